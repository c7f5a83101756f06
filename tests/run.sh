#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole test suite: KUnit over the pure sources, then the VM tests.
# Every component prints TAP-like lines ("ok - ..." / "not ok - ..."),
# possibly behind a "[nI] " node prefix; this script counts them and ends
# with one "N passed, N failed" line.  A component that dies without saying
# why counts as one failure, as does one that reports no test at all.
#
# Expects `make stage` to have run (the Makefile's `check` target does).
# Variables: BUILD_DIR (default ./build), DDSM_TESTS (space-separated subset
# of: kunit model packaging api_host one_node three_node transport peer_death
# home_death configure deploy auth late_home evict sigkill coherence load
# pause rejoin lossy pmem pcrash backup workloads_host workloads txbench txdeath
# api fuzz litmus;
# default all).
# LOAD_SECONDS, LOAD_HOG and LOAD_NODES tune the load component (make soak);
# COUNTER_ROUNDS (coherence), EVICT_UNITS (evict) and LITMUS_ITERS (litmus)
# set how much work those do, TX_OPS (txbench, transactions per thread and
# run; TX_SB_TOTAL, HADES's SmallBank sweep over the cluster, default
# 100000) and FUZZ_OPS (fuzz, calls per node) too (make soak raises the
# first five);
# LOSSY_NETEM replaces the lossy component's netem options.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
RESULTS=$BUILD_DIR/results
DDSM_TESTS=${DDSM_TESTS:-"kunit model workloads_host packaging api_host one_node three_node
	transport peer_death home_death configure deploy auth late_home evict sigkill coherence load
	pause rejoin lossy pmem pcrash backup workloads txbench txdeath api fuzz litmus"}
export BUILD_DIR
mkdir -p "$RESULTS"

passed=0
failed=0
failures=()

# run_component NAME COMMAND...: run it, stream its output, count its lines.
run_component() {
	local name=$1 log=$RESULTS/$1.log rc ok nok t0=$SECONDS
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	ok=$(grep -cE '^(\[n[0-9]+\] )?ok ' "$log")
	nok=$(grep -cE '^(\[n[0-9]+\] )?not ok ' "$log")
	passed=$((passed + ok))
	failed=$((failed + nok))
	while IFS= read -r line; do
		failures+=("$name: $line")
	done < <(grep -E '^(\[n[0-9]+\] )?not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$name: exited with status $rc without naming a failed test")
	elif [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$name: ran no test")
	fi
	echo "=== $name: $ok passed, $nok failed, exit $rc, $((SECONDS - t0)) s"
}

for t in $DDSM_TESTS; do
	case $t in
	kunit)
		run_component kunit bash "$ROOT/tests/kunit/run.sh" ;;
	model)
		# make soak: MODEL_CHECK=check-full (2x2 with a one-slot pool too).
		run_component model make -s -C "$ROOT/tools/model" "${MODEL_CHECK:-check}" ;;
	packaging)
		# make deb, the packages, lintian, a DKMS build, the unit,
		# the udev rule, the man pages, cluster.conf (issue 14).
		run_component packaging bash "$ROOT/tests/packaging.sh" ;;
	api_host)
		# Issue 38, on the host: the docs against the code, the
		# docs' C examples built, the completion; every check also
		# fed a planted mismatch it must catch (tests/components.tsv).
		run_component api_host bash "$ROOT/tests/vm/api_host/host.sh" ;;
	api)
		# Issue 38 on 3 VMs with pmem: the parameters as loaded,
		# every errno of docs/api.md provoked, earlier ABIs' ioctl
		# sizes, ddsmctl -j, ABI 11's programs, the docs' examples.
		run_component api bash "$ROOT/tests/vm/api/host.sh" ;;
	one_node)
		run_component one_node bash "$ROOT/qemu/cluster.sh" -n 1 -t 600 \
			--name one-node -- bash /ddsm/tests/one_node.sh ;;
	three_node)
		run_component three_node bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
			--name three-node -- bash /ddsm/tests/rdma_mesh.sh ;;
	transport)
		run_component transport bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
			--name transport -- bash /ddsm/tests/transport_mesh.sh ;;
	peer_death)
		run_component peer_death bash "$ROOT/tests/vm/peer_death.sh" ;;
	txdeath)
		# Issue 13: a node killed in the middle of HADES transactions
		# leaves no partial commit on the survivors.
		run_component txdeath bash "$ROOT/tests/vm/txdeath.sh" ;;
	home_death)
		run_component home_death bash "$ROOT/tests/vm/home_death.sh" ;;
	configure)
		run_component configure bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
			--name configure -- bash /ddsm/tests/configure.sh ;;
	deploy)
		# Each node from its own cluster.conf, as ddsm.service does:
		# modprobe-args, configure --config, wait --config.
		run_component deploy bash "$ROOT/qemu/cluster.sh" -n 3 -t 300 \
			--name deploy -- bash /ddsm/tests/deploy.sh ;;
	late_home)
		run_component late_home bash "$ROOT/qemu/cluster.sh" -n 3 -t 300 \
			--name late-home -- bash /ddsm/tests/late_home.sh ;;
	evict)
		# 2,048 units through a 64-frame cache: 32 times the
		# cache, ~5,000 evictions (make soak: 4,096).
		run_component evict bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
			--name evict -- "EVICT_UNITS=${EVICT_UNITS:-2048} bash /ddsm/tests/evict.sh" ;;
	sigkill)
		run_component sigkill bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
			--name sigkill -- bash /ddsm/tests/sigkill.sh ;;
	coherence)
		# 4,000 LOCK XADDs per thread: in the 64-counter phase
		# nearly every one is an ownership transfer, 24,000 in all
		# (make soak: 10,000 per thread).
		run_component coherence bash "$ROOT/qemu/cluster.sh" -n 3 -t 1200 \
			--name coherence -- "COUNTER_ROUNDS=${COUNTER_ROUNDS:-4000} bash /ddsm/tests/coherence.sh" ;;
	load)
		# Four guests, 3 minutes, a busy loop beside the traffic in
		# each (issue 10's load test); make soak runs it for 30.
		run_component load bash "$ROOT/qemu/cluster.sh" -n "${LOAD_NODES:-4}" \
			-t $((${LOAD_SECONDS:-180} + 900)) --name load -- \
			"LOAD_SECONDS=${LOAD_SECONDS:-180} LOAD_HOG=${LOAD_HOG:-1} bash /ddsm/tests/load.sh" ;;
	auth)
		run_component auth bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
			--name auth -- bash /ddsm/tests/auth.sh ;;
	pause)
		# Slow is not dead: the host freezes node 1, then node 2, for
		# 4.5 s each (QEMU monitor) while all three run the load test
		# with a 7 s peer timeout: suspected at 3.5 s of silence, and
		# 2.5 s left for a resumed guest on a busy host to answer.
		run_component pause bash "$ROOT/qemu/cluster.sh" -n 3 -t 1200 \
			--name pause --during "PAUSE_MS=4500 bash $ROOT/tests/vm/pause_host.sh" -- \
			"LOAD_SECONDS=60 LOAD_HOG=0 LOAD_PARAMS=peer_timeout_ms=7000 bash /ddsm/tests/load.sh" ;;
	rejoin)
		# A false death: node 2 frozen for 8 s (peer timeout 3 s) with
		# dirty units; nothing it or the others wrote may be lost.
		run_component rejoin bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
			--name rejoin --during "bash $ROOT/tests/vm/rejoin_host.sh" -- \
			bash /ddsm/tests/rejoin.sh ;;
	lossy)
		# The load test over links that lose 1% of packets and delay
		# every one by 2-10 ms (tc netem on each guest's eth0).  The
		# rate keeps netem from reordering (a packet leaves no earlier
		# than the one before it), as a RoCE fabric delivers in order:
		# with reordering, soft-RoCE's go-back-N alone makes a raw
		# 4 KiB RDMA READ 12x slower (172 ms typical instead of 14)
		# and this component 2.2x longer (244 s against 111 s, 30x
		# fewer LOCK XADDs).  LOSSY_NETEM overrides.
		run_component lossy bash "$ROOT/qemu/cluster.sh" -n 3 -t 1200 \
			--name lossy -- \
			"LOAD_SECONDS=60 LOAD_CACHE_FRAMES=96 LOAD_HOG=0 LOAD_NETEM='${LOSSY_NETEM:-loss 1% delay 6ms 4ms rate 1gbit}' bash /ddsm/tests/load.sh" ;;
	pmem)
		# Units homed on pmem survive a clean unload and a kill:
		# three boots of 3 nodes with the same NVDIMM files.
		run_component pmem bash "$ROOT/tests/vm/pmem_host.sh" ;;
	pcrash)
		# Per model, writers on 3 nodes log what was promised; a home
		# VM, then the whole cluster, then (persist-domain checker) a
		# simulated power failure, each at a random point; four boots
		# of the same NVDIMM files check every promise and a 1 MiB
		# Synchronous pattern (issue 12).
		run_component pcrash bash "$ROOT/tests/vm/pcrash_host.sh" ;;
	backup)
		# nr_backups=1: a home with writers on it is killed at a
		# random point and its backup takes over; then the victim
		# rejoins, then the whole cluster restarts (issue 12).
		run_component backup bash "$ROOT/tests/vm/backup_host.sh" ;;
	workloads_host)
		run_component workloads_host make -s -C "$ROOT/tools/workloads" check-host ;;
	workloads)
		# tools/workloads as correctness tests: YCSB A, C, F, D and
		# the GAM micro pattern, a few seconds each, all verified.
		run_component workloads bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
			--name workloads -- bash /ddsm/tests/workloads.sh ;;
	txbench)
		# Issue 13's baseline: SmallBank (3 contention levels), YCSB-T
		# 50/50 and 95/5 on the software OCC backend, audited and checked
		# for serializability; planted bug caught; then SmallBank and
		# YCSB-T on the HADES backend (the kernel's transactions).
		run_component txbench bash "$ROOT/qemu/cluster.sh" -n 3 -t 1800 \
			--name txbench -- "TX_OPS=${TX_OPS:-100} TX_SB_TOTAL=${TX_SB_TOTAL:-100000} TX_BACKENDS='${TX_BACKENDS:-occ hades}' bash /ddsm/tests/txbench.sh" ;;
	fuzz)
		run_component fuzz bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
			--name fuzz -- "FUZZ_OPS=${FUZZ_OPS:-10000} bash /ddsm/tests/fuzz.sh" ;;
	litmus)
		# Four nodes so that IRIW's four threads each get their own.
		# 400 iterations per test and layout keep make check within
		# its 30 minutes (about 8-23 ms per iteration on the 2-core
		# host; 600 took 138 s); make soak runs 5,000, `litmus.sh
		# --long` 100,000.
		run_component litmus bash "$ROOT/qemu/cluster.sh" -n 4 -t 2400 \
			--name litmus -- bash /ddsm/tests/litmus.sh -n "${LITMUS_ITERS:-400}" ;;
	*)
		echo "unknown test component: $t" >&2
		failed=$((failed + 1))
		failures+=("$t: unknown test component") ;;
	esac
done

if [ ${#failures[@]} -gt 0 ]; then
	echo "=== failures:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

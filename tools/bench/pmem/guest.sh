#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/pmem/host.sh (3 nodes with an NVDIMM each): in one
# boot, perftest's 4 KiB RDMA READ latency between nodes 0 and 1, then
# ddsm-bench-pmem on the module without pmem= (the DRAM-only baseline),
# unload, and again with pmem=/dev/pmem0: the Scope barrier's latency and
# the persistency models, each in a region set here on every node right
# after insmod (before any node can touch it); unload, and the DRAM-only
# run once more, so that the baseline brackets the models in time on a
# host whose load drifts.  Prints "bench ..." lines for the host script;
# a benchmark: the exit status only says whether every measurement was
# taken (and every value read was right).
#
#   BENCH_PMEM_SECS    seconds per model in all (default 30; the DRAM-only
#                      baseline gets half of it before, half after)
#   BENCH_PMEM_MODELS  models, in run order (default below)
#   BENCH_PMEM_ARGS    more ddsm-bench-pmem options (-u, -k, -r, -n)

# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile

SECS=${BENCH_PMEM_SECS:-30} ITERS=${BENCH_PERF_ITERS:-1000}
MODELS=${BENCH_PMEM_MODELS:-eventual scope read_enf strict sync}
ARGS=${BENCH_PMEM_ARGS:-}
# shellcheck disable=SC2034 # ITERS, IPS: read_lat (lib/guest.sh) uses them
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"
# The layout ddsm-bench-pmem.c uses: harness units at 32 MiB (Scope, so
# they add no persists), one 1 MiB region per model from 16 MiB.
HARNESS=0x2000000 MODEL_BASE=0x1000000 STRIDE=0x100000
# A guest the host starves can take 10x longer per miss than the others.
LIMIT=$((SECS * 15 + 300))

[ "$N" -ge 3 ] || { nok "needs 3 nodes, have $N"; exit 1; }
read_lat 19300

# bench WHAT SECS ARGS...: ddsm-bench-pmem, bounded, every node at once.
bench() {
	local what=$1 secs=$2 rc
	shift 2
	# shellcheck disable=SC2086 # ARGS: options, split
	timeout "$LIMIT" ddsm-bench-pmem -t "$secs" $ARGS "$@"
	rc=$?
	check "ddsm-bench-pmem $what (exit $rc)" test $rc = 0
}

# unload WHAT: the program's last barrier lined the nodes up: all unload,
# then all load again, each a few seconds apart.
unload() {
	sleep 2
	check "rmmod ddsm ($1)" rmmod ddsm
	sleep 3
}

# dram TURNS: the baseline, SECS / 2 in TURNS turns.
dram() {
	tp_load size=64M || { nok "insmod ddsm.ko (DRAM only)"; exit 1; }
	wait_for 60 all_up || { nok "every peer up within 60 s"; exit 1; }
	bench dram $((SECS / 2 > 0 ? SECS / 2 : 1)) -R "$1" dram
	unload "DRAM only"
}

dram 2

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
check "pmem0 is a DAX namespace" test "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" = 1
tp_load size=64M pmem=/dev/pmem0 || { nok "insmod ddsm.ko pmem=/dev/pmem0"; exit 1; }
check "harness region scope" ddsmctl region $HARNESS 0x200000 scope
i=0
for m in $MODELS; do
	check "region $((MODEL_BASE / 1048576 + i)) MiB $m" \
		ddsmctl region $((MODEL_BASE + i * STRIDE)) $STRIDE "$m"
	i=$((i + 1))
done
wait_for 60 all_up || { nok "every peer up within 60 s (pmem)"; exit 1; }
# shellcheck disable=SC2086 # MODELS: one argument each
bench "pmem $MODELS" "$SECS" pmem $MODELS
ddsmctl status | grep '^pmem' | sed "s/^/# node$ME: /"
check "no fault gave SIGBUS" bash -c "ddsmctl status | grep -q '^fault_errors: 0$'"
unload pmem
dram 2
tap_exit

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/pmem/host.sh: one boot of a series that keeps
# each node's NVDIMM file.  PMEM_PHASES lists the phases this boot runs,
# in order (a phase that unloads the module lets the next one load it
# again in the same boot; one that does not ends the boot with a kill):
#   1  a new namespace is formatted; a 1 MiB pattern written by all nodes
#      is made durable by each writer's Scope barrier; clean unload
#   2  refusals (no such device, another cluster, another node); the
#      namespace mounts clean and holds phase 1's pattern; a new pattern
#      is written with barriers; no unload: the VM is killed
#   3  the namespace is recovered (not clean) and holds phase 2's pattern
#   4  with the persist-domain checker (pmem_check=1): only fenced lines
#      reach the NVDIMM; a new pattern is written with barriers, then a
#      simulated power failure (which must find no line left unfenced)
#      and the VM is killed
#   5  recovered again, with phase 4's pattern; unload
#   6  regions: a Scope and an Eventual one (and the refusals of
#      DDSM_IOC_REGION); each node writes the units of both it homes and
#      calls no barrier; the VM is killed once the flusher is idle
#   7  recovered: the regions are still there; the Eventual half holds
#      phase 6's stores (the flusher made them durable), the Scope half
#      does not (only a barrier would have); unload
#   8  with the flusher off (pmem_flush_ms=3600000): Read-Enforced,
#      Synchronous, Strict and Eventual regions; each node writes units
#      homed on the next one, the node after reads them
#      (ddsm-test-pgate); the VM is killed
#   9  recovered: the Read-Enforced quarter (read by another node), the
#      Synchronous one (durable writes) and the Strict one (durable-write
#      barrier after a reader took the unit) are there; the Eventual one,
#      which nothing promised, is not
# Nothing but the writers' barriers (and, in phases 1 and 3, the unload)
# makes anything durable in this test: no node reads the pattern back in
# the boot that wrote it, and no ddsmctl persist runs.
#
#   qemu/cluster.sh -n 3 --name pmem --pmem 64 -- PMEM_PHASES="1 2" bash /ddsm/tests/pmem/guest.sh

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
PHASES=${PMEM_PHASES:?} PM=/dev/pmem0
pm() { $CTL status | sed -n "s/^pmem_$1: //p"; }
mounted() { $CTL status | grep -q "^pmem: pmem0 .*, $1 at mount"; }
# insmod must fail, and the kernel log must say why in one line.
refused() {
	local what=$1 line=$2 before log
	shift 2
	before=$(dmesg | wc -l)
	if insmod $DDSM/ddsm.ko "$@" 2>/dev/null; then
		nok "$what: insmod succeeded"
		rmmod ddsm
		return
	fi
	log=$(dmesg | tail -n +$((before + 1)) | grep 'ddsm: pmem')
	check "$what: refused ($(echo "$log" | head -n1 | sed 's/^\[[^]]*\] //'))" \
		grep -q "$line" <<<"$log"
}


# phase N: set what phase N expects and does.
phase() {
	PHASE=$1 ARGS="size=64M"
	case $PHASE in
	1) expect=formatted prev=0 next=1111 unload=1 ;;
	2) expect=clean prev=1111 next=2222 unload=0 ;;
	3) expect=recovered prev=2222 next=0 unload=1 ;;
	4) expect=clean prev=2222 next=4444 unload=0 ARGS="$ARGS pmem_check=1" ;;
	5) expect=recovered prev=4444 next=0 unload=1 ;;
	6) expect=clean prev=0 next=0 unload=0 ;;
	7) expect=recovered prev=0 next=0 unload=1 ;;
	8) expect=clean prev=0 next=0 unload=0 ARGS="$ARGS pmem_flush_ms=3600000" ;;
	9) expect=recovered prev=0 next=0 unload=1 ;;
	*) echo "Bail out! phase $PHASE"; exit 1 ;;
	esac
}

# ctl_fails ERRNO_TEXT ARGS...: ddsmctl must fail with that strerror text.
ctl_fails() {
	local want=$1 out
	shift
	out=$($CTL "$@" 2>&1) && return 1
	[[ $out == *"$want"* ]]
}

# Phases 6 and 7: the Scope region [4M, 4.5M) and the Eventual one after.
regions() {
	local S=0x400000 E=0x480000 HALF=0x80000
	if [ "$1" = 6 ]; then
		check "region [4M, +512K) scope" $CTL region $S $HALF scope
		check "region [4.5M, +512K) eventual" $CTL region $E $HALF eventual
		check "the same region again is accepted" $CTL region $S $HALF scope
		check "an overlapping region is refused (EEXIST)" \
			ctl_fails "File exists" region 0x440000 $HALF eventual
		# Unit ME is homed here and was loaded from pmem at insmod.
		check "a touched range is refused (EBUSY)" \
			ctl_fails "busy" region $((ME * 4096)) 0x1000 scope
		check "a range beyond the space is refused (ERANGE)" \
			ctl_fails "out of range" region 0x4000000 0x1000 scope
	fi
	check "region at 4M reads scope ($($CTL region $S))" \
		test "$($CTL region $S)" = scope
	check "region at 4.5M reads eventual ($($CTL region $E))" \
		test "$($CTL region $E)" = eventual
	check "address 0 has the default model ($($CTL region 0))" \
		test "$($CTL region 0)" = eventual
	if [ "$1" = 6 ]; then
		run "ddsm-test-pmodel write 6666" 120 $TESTS/ddsm-test-pmodel write 6666
		sleep 1
		# The flusher is done with the Eventual half; the Scope half's
		# units stay dirty until a barrier.
		check "the Scope half stays dirty (pmem_dirty $(pm dirty))" \
			test "$(pm dirty)" -gt 0
	else
		run "ddsm-test-pmodel check 0 6666" 120 $TESTS/ddsm-test-pmodel check 0 6666
	fi
}

# Phases 8 and 9: four quarters of 256 KiB from 6M, one model each.
GATE_MODELS="read_enf sync strict eventual"
gate_regions() {
	local q=0 m
	for m in $GATE_MODELS; do
		[ "$1" = 8 ] && check "region [$((6 * 1024 + q * 256))K, +256K) $m" \
			$CTL region $((0x600000 + q * 0x40000)) 0x40000 $m
		check "region at $((6 * 1024 + q * 256))K reads $m" \
			test "$($CTL region $((0x600000 + q * 0x40000)))" = $m
		q=$((q + 1))
	done
	if [ "$1" = 8 ]; then
		run "ddsm-test-pgate write 8888" 120 $TESTS/ddsm-test-pgate write 8888
		check "grants waited for pmem (pmem_durable_grants $(pm durable_grants), errors $(pm durable_errors))" \
			test "$(pm durable_grants)" -gt 0 -a "$(pm durable_errors)" = 0
		check "the flusher is off: units stay dirty (pmem_dirty $(pm dirty))" \
			test "$(pm dirty)" -gt 0
	else
		run "ddsm-test-pgate check 8888" 120 $TESTS/ddsm-test-pgate check 8888
	fi
}

run_phase() {
	phase "$1"
	echo "# node$ME: phase $PHASE"
	if [ "$PHASE" = 2 ]; then
		refused "pmem=/dev/nosuch" 'pmem=/dev/nosuch: cannot open: -2$' \
			$ARGS node_id="$ME" nodes="$IPS" pmem=/dev/nosuch
		refused "another cluster (cluster_id=777)" 'pmem pmem0: refused: .*(-18)$' \
			$ARGS node_id="$ME" nodes="$IPS" pmem=$PM cluster_id=777
		refused "another node's namespace" 'pmem pmem0: refused: .*(-78)$' \
			$ARGS node_id=$(((ME + 1) % N)) nodes="$IPS" pmem=$PM
	fi

	# shellcheck disable=SC2086
	if ! insmod $DDSM/ddsm.ko $ARGS node_id="$ME" nodes="$IPS" pmem=$PM; then
		nok "insmod ddsm.ko $ARGS node_id=$ME pmem=$PM"
		diag
		return 1
	fi
	ok "insmod ddsm.ko $ARGS node_id=$ME pmem=$PM ($(dmesg | grep 'ddsm: pmem pmem0: [a-z]*,' | tail -n1 | sed 's/^\[[^]]*\] //'))"
	check "all $((N - 1)) peers up" $CTL wait --timeout 60
	check "the namespace is $expect at mount" mounted $expect
	[ "$PHASE" = 2 ] && check "it holds units (pmem_units_present $(pm units_present))" \
		test "$(pm units_present)" -gt 0
	[ "$PHASE" = 4 ] && check "the persist-domain checker is on" \
		bash -c "$CTL status | grep -q 'persist-domain checker on'"
	check "no torn unit (pmem_units_torn $(pm units_torn))" test "$(pm units_torn)" = 0

	if [ "$PHASE" -ge 8 ]; then
		gate_regions "$PHASE"
	elif [ "$PHASE" -ge 6 ]; then
		regions "$PHASE"
	else
		run "ddsm-test-pmem phase $PHASE" 300 $TESTS/ddsm-test-pmem "$PHASE" "$prev" "$next"
	fi

	if [ "$next" != 0 ]; then
		no_dirty() { [ "$(pm dirty)" = 0 ]; }
		check "nothing left dirty within 10 s (pmem_dirty $(pm dirty))" \
			wait_for 10 no_dirty
		check "the barrier sent PERSISTs (pmem_persist_sent $(pm persist_sent)) and served some (pmem_persist_served $(pm persist_served))" \
			test "$(pm persist_sent)" -gt 0 -a "$(pm persist_served)" -gt 0
		check "units were persisted (pmem_persists $(pm persists), fences $(pm fences), bytes $(pm bytes))" \
			test "$(pm persists)" -gt 0
	fi
	check "no fault gave SIGBUS" bash -c "$CTL status | grep -q '^fault_errors: 0$'"
	if [ "$PHASE" = 4 ]; then
		[ -d /sys/kernel/debug/ddsm ] ||
			mount -t debugfs none /sys/kernel/debug 2>/dev/null
		check "simulated power failure (debugfs ddsm/pmem_crash, 50% of unfenced lines kept)" \
			bash -c 'echo 50 >/sys/kernel/debug/ddsm/pmem_crash'
		# It holds the store's lock, so no persist is half done: a line left
		# unfenced now is a flush or fence missing at the end of some path.
		check "nothing was left unfenced: $(dmesg | grep -o 'simulated power failure.*' | tail -n1)" \
			bash -c "dmesg | grep -q 'ddsm: pmem pmem0: simulated power failure: 0 unfenced pieces dropped, 0 kept'"
	fi
	if [ "$unload" = 1 ]; then
		check "rmmod ddsm" rmmod ddsm
		check "unloaded without a pmem error" \
			bash -c "! dmesg | grep -q 'ddsm: pmem.*\(failed\|not durable\|TORN\)'"
	fi
}

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
check "pmem0 is a DAX namespace" test "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" = 1

for p in $PHASES; do
	run_phase "$p" || break
done
[ $failed -eq 0 ] || diag
tap_exit

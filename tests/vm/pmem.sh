#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/pmem_host.sh: one boot of a series that keeps
# each node's NVDIMM file.  PMEM_PHASE says which boot this is:
#   1  a new namespace is formatted; a 1 MiB pattern written by all nodes
#      is made durable by each writer's Scope barrier; clean unload
#   2  refusals (no such device, another cluster, another node); the
#      namespace mounts clean and holds phase 1's pattern; a new pattern
#      is written and made durable; no unload: the VM is killed
#   3  the namespace is recovered (not clean) and holds phase 2's pattern
#
#   qemu/cluster.sh -n 3 --name pmem --pmem 64 -- PMEM_PHASE=1 bash /ddsm/tests/pmem.sh

. "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
PHASE=${PMEM_PHASE:?} PM=/dev/pmem0
seed() { echo $(($1 * 1111)); }
pm() { $CTL status | sed -n "s/^pmem_$1: //p"; }
mounted() { $CTL status | grep -q "^pmem: pmem0 .*, $1 at mount$"; }
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

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
check "pmem0 is a DAX namespace" test "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" = 1

if [ "$PHASE" = 2 ]; then
	refused "pmem=/dev/nosuch" 'pmem=/dev/nosuch: cannot open: -2$' \
		size=64M node_id="$ME" nodes="$IPS" pmem=/dev/nosuch
	refused "another cluster (cluster_id=777)" 'pmem pmem0: refused: .*(-18)$' \
		size=64M node_id="$ME" nodes="$IPS" pmem=$PM cluster_id=777
	refused "another node's namespace" 'pmem pmem0: refused: .*(-78)$' \
		size=64M node_id=$(((ME + 1) % N)) nodes="$IPS" pmem=$PM
fi

if ! insmod $DDSM/ddsm.ko size=64M node_id="$ME" nodes="$IPS" pmem=$PM; then
	nok "insmod ddsm.ko node_id=$ME pmem=$PM"
	diag
	exit 1
fi
ok "insmod ddsm.ko node_id=$ME pmem=$PM ($(dmesg | grep 'ddsm: pmem pmem0: [a-z]*,' | tail -n1 | sed 's/^\[[^]]*\] //'))"
check "all $((N - 1)) peers up" $CTL wait --timeout 60
case $PHASE in
1) check "a new namespace is formatted" mounted formatted ;;
2) check "the namespace was unmounted cleanly" mounted clean
   check "it holds units (pmem_units_present $(pm units_present))" \
	test "$(pm units_present)" -gt 0 ;;
3) check "the namespace is recovered after the kill" mounted recovered ;;
esac
check "no torn unit (pmem_units_torn $(pm units_torn))" test "$(pm units_torn)" = 0

prev=0 next=0
[ "$PHASE" -gt 1 ] && prev=$(seed $((PHASE - 1)))
[ "$PHASE" -lt 3 ] && next=$(seed "$PHASE")
run "ddsm-test-pmem phase $PHASE" 300 $TESTS/ddsm-test-pmem "$PHASE" "$prev" "$next"

if [ "$PHASE" -lt 3 ]; then
	# No ddsmctl persist here: only the writers' barriers may have made
	# their stores durable, and the next boot checks that they did.
	no_dirty() { [ "$(pm dirty)" = 0 ]; }
	check "nothing left dirty within 10 s (pmem_dirty $(pm dirty))" \
		wait_for 10 no_dirty
	check "the barrier sent PERSISTs (pmem_persist_sent $(pm persist_sent)) and served some (pmem_persist_served $(pm persist_served))" \
		test "$(pm persist_sent)" -gt 0 -a "$(pm persist_served)" -gt 0
	check "units were persisted (pmem_persists $(pm persists), fences $(pm fences))" \
		test "$(pm persists)" -gt 0
fi
check "no fault gave SIGBUS" bash -c "$CTL status | grep -q '^fault_errors: 0$'"
if [ "$PHASE" != 2 ]; then
	check "rmmod ddsm" rmmod ddsm
	check "unloaded without a pmem error" \
		bash -c "! dmesg | grep -q 'ddsm: pmem.*\(failed\|not durable\|TORN\)'"
fi
[ $failed -eq 0 ] || diag
exit $failed

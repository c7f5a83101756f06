#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: the last node loads ddsm late, once
# the host says so (during.sh: a few seconds after the others started
# the fault that must wait for it; not a fixed delay, which a loaded host
# outran), while the others touch its units without waiting for it
# (ddsm-test-latehome: no SIGBUS, the fault waits for the home, and the
# process's mmap_lock is free meanwhile).
#
#   qemu/cluster.sh -n 3 -t 300 --name late-home -- bash /ddsm/tests/late_home/guest.sh

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
LATE=$((N - 1))

if [ "$ME" -eq "$LATE" ]; then
	host_says late 600 || { nok "the host's word to load late"; tap_exit; }
	check "insmod ddsm.ko node_id=$ME nodes=$IPS (late)" \
		insmod $DDSM/ddsm.ko node_id="$ME" nodes="$IPS"
	check "ddsmctl wait: all $((N - 1)) peers up" $CTL wait --timeout 60
	tap_exit
fi
check "insmod ddsm.ko node_id=$ME nodes=$IPS" \
	insmod $DDSM/ddsm.ko node_id="$ME" nodes="$IPS"
# While the late node is still without ddsm, a short wait must fail
# (exit 3, as ddsmctl(8) says) and name it; a long one succeeds once it
# is there.
out=$($CTL wait --timeout 0.5 2>&1)
rc=$?
check "ddsmctl wait --timeout 0.5 fails while node$LATE is late (exit $rc: $out)" \
	eval '[ $rc -eq 3 ] && [[ $out == *" $LATE ("* ]]'
# fault_timeout_ms is read by every fault as it starts: 300 ms now means
# SIGBUS well before the 10 s default; 0 and other nonsense are refused.
P=/sys/module/ddsm/parameters/fault_timeout_ms
check "fault_timeout_ms=0 refused (EINVAL)" bash -c "! echo 0 2>/dev/null >$P"
check "fault_timeout_ms=abc refused" bash -c "! echo abc 2>/dev/null >$P"
check "fault_timeout_ms still 10000 ($(cat $P))" test "$(cat $P)" = 10000
check "fault_timeout_ms=300 at run time" bash -c "echo 300 >$P"
G=/sys/module/ddsm/parameters/grace_us
check "grace_us=10001 refused (EINVAL)" bash -c "! echo 10001 2>/dev/null >$G"
check "grace_us still 200 ($(cat $G))" test "$(cat $G)" = 200
check "the refusal is one kernel log line" \
	bash -c "dmesg | grep -q 'ddsm: grace_us=10001: must be 0..10000$'"
check "grace_us=0 and back to 200 at run time" bash -c "echo 0 >$G && echo 200 >$G"
run ddsm-test-latehome-timeout 30 $TESTS/ddsm-test-latehome "$ME" "$N" "$LATE" \
	--sigbus-within 3000
echo 10000 >$P
marker "late_home waiting"
run ddsm-test-latehome 120 $TESTS/ddsm-test-latehome "$ME" "$N" "$LATE"
check "ddsmctl wait --timeout 60 then succeeds" $CTL wait --timeout 60
check "the wait was counted (home_waits > 0)" \
	bash -c "$CTL status | grep -q '^home_waits: [1-9]'"
# One SIGBUS, the timed-out fault above; no other.
check "only the timed-out fault gave SIGBUS (fault_errors 1)" \
	bash -c "$CTL status | grep -q '^fault_errors: 1$'"
[ $failed -eq 0 ] || diag
tap_exit

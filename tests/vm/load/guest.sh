#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: sustained mixed traffic with a CPU hog
# beside it (ddsm-test-load: LOCK XADD counters, a CMPXCHG spin lock,
# seqlocked mailboxes, a scan that keeps evicting with a small
# cache_frames).  Nothing may be declared dead, no fault may time out or
# end in SIGBUS, and every total and pattern must be exact.
#
#   qemu/cluster.sh -n 4 -t 900 --name load -- bash /ddsm/tests/load/guest.sh
#
# LOAD_SECONDS (default 180) sets the length; `make soak` runs 1800.
# LOAD_HOG=0 leaves the busy loop out (tests/run.sh's default, see there);
# LOAD_PARAMS adds module parameters.  On a failure the last protocol
# events on the shared words are printed (tracepoints with a unit filter).

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
SECS=${LOAD_SECONDS:-180} FRAMES=${LOAD_CACHE_FRAMES:-128}

# A lossy, slow link (tests/run.sh's lossy component): netem on eth0.
if [ -n "${LOAD_NETEM:-}" ]; then
	modprobe sch_netem 2>/dev/null
	check "netem on eth0: $LOAD_NETEM" tc qdisc add dev eth0 root netem $LOAD_NETEM
fi
if ! insmod $DDSM/ddsm.ko node_id="$ME" nodes="$IPS" cache_frames="$FRAMES" ${LOAD_PARAMS:-}; then
	nok "insmod ddsm.ko node_id=$ME nodes=$IPS cache_frames=$FRAMES"
	exit 1
fi
ok "insmod ddsm.ko node_id=$ME nodes=$IPS cache_frames=$FRAMES"
check "ddsmctl wait: all $((N - 1)) peers up" $CTL wait --timeout 60

# The protocol's messages and faults on the shared words (counters, lock,
# guard), kept small by a filter: printed if the program fails.
TR=/sys/kernel/tracing
first=16384 last=16440
if grep -q " $TR tracefs" /proc/mounts || mount -t tracefs nodev $TR 2>/dev/null; then
	echo 8192 >$TR/buffer_size_kb
	for e in ddsm_msg_send ddsm_msg_recv ddsm_fault; do
		echo "unit >= $first && unit < $last" >$TR/events/ddsm/$e/filter
		echo 1 >$TR/events/ddsm/$e/enable
	done
	echo 1 >$TR/tracing_on
fi

# A busy loop at normal priority for the whole run: the guest's only vCPU
# is contended by it, the test's threads and ddsm.
if [ "${LOAD_HOG:-1}" = 1 ]; then (while :; do :; done) & else sleep infinity & fi
hog=$!
bash $DDSM/tests/load/netsample.sh /tmp/netsample &
sampler=$!
# Ahead of the hog and the test, or its gaps would only show that it waited.
renice -n -20 -p $sampler >/dev/null
# For a host that acts on the VMs mid-run (tests/vm/pause/during.sh).
echo "load traffic" >/dev/ttyS1
run ddsm-test-load $((SECS + 400)) $TESTS/ddsm-test-load "$ME" "$N" "$SECS"
kill $hog $sampler
wait $hog $sampler 2>/dev/null
if [ $failed -ne 0 ] && [ -r $TR/trace ]; then
	echo 0 >$TR/tracing_on
	echo "# node$ME: --- last protocol events on units $first..$((last - 1)) ---"
	grep -v '^#' $TR/trace | tail -n 400 | sed "s/^/# node$ME: /"
fi

check "no peer ever declared dead here" \
	bash -c "! $CTL status | grep -q ' deaths [1-9]'"
# The decision's own line ("node N (addr) dead: ..."), not "slow, not dead".
check "dmesg: no 'dead' line" bash -c "! dmesg | grep -qE 'ddsm: node [0-9]+ \([^)]*\) dead:'"
check "no fault timed out (fault_timeouts 0)" \
	bash -c "$CTL status | grep -q '^fault_timeouts: 0$'"
check_no_sigbus
check "evictions happened (cache_frames=$FRAMES)" \
	bash -c "$CTL status | grep -q '^evictions: [1-9]'"
$CTL status | grep -E '^(evictions|faults_|upgrades|msgs_|hold_expired)|peer' | sed "s/^/# node$ME: /"
# Ticks of the failure detector that judged no one (rdma_live.c): pause's
# during.sh wants one on each node it froze.
echo "# node$ME: late liveness ticks $(dmesg | grep -c 'liveness tick ran')"
if [ $failed -ne 0 ]; then
	diag
	echo "# node$ME: --- other kernel messages about time and stalls ---"
	dmesg | grep -iE 'clocksource|watchdog|rcu|thrott|hung|stall|soft lockup' |
		tail -n 20 | sed "s/^/# node$ME: /"
	# The NIC's and soft-RoCE's packet counts around the first sign of
	# trouble: a gap in uptime is a stopped guest, a flat tx column a
	# stalled transmit path.
	t=$(dmesg | grep -E 'ddsm: .*(dead|down:|suspect|timed out)' | head -n 1 |
		sed -E 's/^\[ *([0-9.]+)\].*/\1/')
	if [ -n "$t" ]; then
		echo "# node$ME: --- packets around $t s (uptime tx rx rxe_sent rxe_rcvd tx_timeouts softirqs ctxt) ---"
		awk -v t="$t" 'NR == 1 { next }
			$1 >= t - 6 && $1 <= t + 2 && (n++ % 3 == 0 || $1 - p > 0.3) { print }
			{ p = $1 }' /tmp/netsample | sed "s/^/# node$ME: /"
	fi
fi
tap_exit

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the startup component (issue 15): each cycle, on the
# host's word, every node loads ddsm and at once runs LOCK XADD and
# CMPXCHG loops on counters in units homed on every node (ddsm-test-load's
# xadd and lock threads, first touched by whichever node gets there
# first), with no wait for its peers; then unloads on the host's word,
# once every node is done.  No fault may end in SIGBUS or time out, and
# every total must be exact.
#
# STARTUP_CYCLES (default 3), STARTUP_SECS (traffic per cycle, default 12).
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"

CYCLES=${STARTUP_CYCLES:-3} SECS=${STARTUP_SECS:-12}

for ((c = 1; c <= CYCLES; c++)); do
	marker "cycle $c ready"
	host_says "go $c" 300 || { nok "cycle $c: the host's go"; exit 1; }
	t0=$SECONDS
	if ! insmod "$DDSM/ddsm.ko" node_id="$ME" nodes="$IPS"; then
		nok "cycle $c: insmod ddsm.ko node_id=$ME nodes=$IPS"
		exit 1
	fi
	# No wait for the peers: the traffic starts the moment insmod returns.
	run "cycle $c: ddsm-test-load" $((SECS + 400)) \
		"$TESTS/ddsm-test-load" "$ME" "$N" "$SECS"
	to=$(status_counter fault_timeouts)
	er=$(status_counter fault_errors)
	[ "${to:-1}" = 0 ] && [ "${er:-1}" = 0 ]
	result $? "cycle $c: no fault timed out or ended in SIGBUS (timeouts ${to:-?}, errors ${er:-?}), $((SECONDS - t0)) s"
	[ "$failed" -eq 0 ] || diag
	marker "cycle $c done"
	host_says "unload $c" 300 || { nok "cycle $c: the host's unload"; exit 1; }
	check "cycle $c: rmmod ddsm" rmmod ddsm
done
tap_exit

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/home_death/host.sh.  The last node is the victim (a
# home); the host SIGKILLs its VM while the survivors fault on its units.
# Control lines to the host: "hd up", "hd looping", "hd done".

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
TMO=${HD_TIMEOUT_MS:-3000} MARGIN=${HD_MARGIN_MS:-3000}
VICTIM=$((N - 1))
T=/ddsm/tests/ddsm-test-homedeath

# fault_timeout_ms is far above the peer timeout: a quick SIGBUS proves
# the death was handled, not that some fault gave up waiting.  The bound:
# the death is declared within peer_timeout_ms, and a fault on its units
# then waits up to peer_timeout_ms more for it to come back (a false death
# would), so 2 x TMO + MARGIN after the last good fault.
if ! insmod /ddsm/ddsm.ko node_id="$ME" nodes="$IPS" heartbeat_ms=200 \
	peer_timeout_ms="$TMO" fault_timeout_ms=60000; then
	nok "insmod"
	exit 1
fi
wait_for 30 peers_up && ok "every peer up" || { nok "every peer up"; exit 1; }

if [ "$ME" = "$VICTIM" ]; then
	marker "hd up"
	sleep 600	# until the host kills this VM
	exit 0
fi
$T touch "$VICTIM" "$N" && ok "cached units homed on node$VICTIM" ||
	nok "cached units homed on node$VICTIM"
marker "hd up"

out=/tmp/hd-loop.out
$T loop "$VICTIM" "$N" >"$out" 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q faulting "$out" && break; sleep 0.1; done
marker "hd looping"
for _ in $(seq 1200); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -9 $pid 2>/dev/null
wait $pid
rc=$?
cat "$out"
ms=$(sed -n 's/^homedeath-sigbus-ms //p' "$out")
if [ "$rc" -eq 0 ] && [ -n "$ms" ]; then
	ok "a fault on node$VICTIM's unit got SIGBUS when it died"
	[ "$ms" -le $((2 * TMO + MARGIN)) ] &&
		ok "SIGBUS ${ms} ms after the last good fault (bound $((2 * TMO + MARGIN)) ms)" ||
		nok "SIGBUS ${ms} ms after the last good fault (bound $((2 * TMO + MARGIN)) ms)"
else
	nok "a fault on node$VICTIM's unit got SIGBUS when it died (exit $rc)"
fi
$CTL status | grep -E "peer $VICTIM:|fault_errors"
$T after "$VICTIM" "$N" "$ME" || failed=$((failed + 1))
dmesg | grep -E "ddsm: node $VICTIM" | tail -3
marker "hd done"
tap_exit

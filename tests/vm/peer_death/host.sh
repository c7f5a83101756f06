#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: a peer dies mid-traffic and comes back.
#
#   BUILD_DIR=... bash tests/vm/peer_death/host.sh      (after make stage)
#
# Boots 3 nodes running tests/vm/peer_death/guest.sh, which loads ddsm with
# heartbeat_ms=200 peer_timeout_ms=3000 reconnect_ms=1000 and keeps ping/xfer
# traffic going to every peer.  Then:
#   1. SIGKILL node 2's QEMU (a machine crash) after 2 full traffic rounds
#   2. nodes 0 and 1 declare it dead within peer_timeout_ms + PD_MARGIN_MS,
#      measured from the kill to their kernel's "dead" line (guest clock
#      mapped to the host's; the "pd gone" control line's arrival when no
#      mapping could be made)
#   3. the survivors check, on their own, that self-tests against node 2 fail
#      fast with an error and that they still talk to each other
#   4. node 2 boots again with the same id (role "rejoin"), loads the module,
#      every peer is up again and traffic flows both ways
# TAP-like lines (host checks plus every guest's lines, which end up in the
# node logs); exit 0 iff all passed.  The whole run is bounded by PD_LIMIT
# seconds, and the EXIT trap kills every QEMU this script started.
set -uo pipefail

CL_NAME=${PD_NAME:-peer-death} CL_N=3 CL_TIMEOUT=${PD_LIMIT:-170}
HB_MS=200 TMO_MS=3000 RECON_MS=1000
MARGIN_MS=${PD_MARGIN_MS:-3000}
VICTIM=2 SURVIVORS="0 1"
guest_cmd() {
	echo "PD_ROLE=$1 PD_HB_MS=$HB_MS PD_TIMEOUT_MS=$TMO_MS" \
		"PD_RECONNECT_MS=$RECON_MS bash /ddsm/tests/peer_death/guest.sh"
}
CL_CMD=$(guest_cmd first)

. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
ms() { echo $(($(date +%s%N) / 1000000)); }

open_cluster
for i in 0 1 2; do cl_start_node "$i"; done
wait_all 90 ready 0 1 2 || bail "nodes booted"
for i in 0 1 2; do cl_send "$i" go; done
wait_all 90 "pd up" 0 1 2 || bail "ddsm loaded, every peer up on every node"
ok "ddsm loaded and every peer up on all 3 nodes"
wait_all 60 "pd round 2" 0 1 2 || bail "2 rounds of traffic on every node"
ok "traffic flowing on all 3 nodes"

# ---- kill ---------------------------------------------------------------

# Guest uptime -> host clock: the arrival of a fresh "pd round K UPTIME"
# line, seen within 50 ms, gives each survivor's offset.
declare -A off=()
for i in $SURVIVORS; do
	prev=$(cl_marker "$i" "pd round")
	end=$((SECONDS + 30))
	while m=$(cl_marker "$i" "pd round") && [ "$m" = "$prev" ] &&
		[ "$SECONDS" -lt "$end" ]; do
		sleep 0.05
	done
	up=${m##* }
	[[ $up =~ ^[0-9]+\.[0-9]+$ ]] &&
		off[$i]=$(($(ms) - $(awk -v u="$up" 'BEGIN { printf "%d", u * 1000 }')))
done

t_kill=$(ms)
{ cl_stop_node "$VICTIM" KILL; } 2>/dev/null
cl_alive "$VICTIM" && nok "node$VICTIM's QEMU gone after SIGKILL" ||
	ok "node$VICTIM's QEMU killed with SIGKILL mid-traffic"

bound=$((TMO_MS + MARGIN_MS))
# How long the host waits to read the survivors' word; the bound itself is
# checked below on the kernel's own line.
seen_ms=$((bound + 30000))
declare -A seen=()
while :; do
	now=$(ms)
	for i in $SURVIVORS; do
		[ -n "${seen[$i]:-}" ] && continue
		m=$(cl_marker "$i" "pd gone") && seen[$i]="$((now - t_kill)) ${m#pd gone }"
	done
	[ ${#seen[@]} -eq 2 ] && break
	[ $((now - t_kill)) -gt $seen_ms ] && break
	sleep 0.05
done
for i in $SURVIVORS; do
	if [ -z "${seen[$i]:-}" ]; then
		nok "node$i noticed node$VICTIM's death within $seen_ms ms"
		continue
	fi
	read -r t state ts <<<"${seen[$i]}"
	# The bound is on the kernel's decision: its dmesg line's time on the
	# host's clock.  When this script sees the line is a matter of how
	# soon a loaded guest runs its script and the host reads its log
	# (6.3 s after a decision at 3.3 s, beside a CPU hog, 2026-11-28).
	# The offset is taken from a line the host may also have seen late,
	# so the mapped time errs late, never early.
	d=$t g=
	if [ -n "${off[$i]:-}" ] && [[ $ts =~ ^[0-9]+\.[0-9]+$ ]]; then
		d=$(awk -v t="$ts" -v o="${off[$i]}" -v k="$t_kill" \
			'BEGIN { printf "%d", t * 1000 + o - k }')
		g="; its dmesg line came ${d} ms after the kill (guest clock mapped to the host's, +-50 ms)"
	fi
	echo "# node$i: node$VICTIM $state, reported $t ms after the kill$g"
	[ "$state" = dead ] && ok "node$i declared node$VICTIM dead" ||
		nok "node$i declared node$VICTIM dead (state: $state)"
	# Not before the timeout (heartbeats arrived until the kill), not much after.
	if [ "$d" -ge $((TMO_MS - 1000)) ] && [ "$d" -le "$bound" ]; then
		ok "node$i: time to dead $d ms, within [$((TMO_MS - 1000)), $bound] ms"
	else
		nok "node$i: time to dead $d ms, within [$((TMO_MS - 1000)), $bound] ms"
	fi
done
wait_all 60 "pd alone-done" $SURVIVORS &&
	ok "survivors finished their checks while node$VICTIM was dead"

# ---- restart ------------------------------------------------------------

CL_CMD=$(guest_cmd rejoin)
t_start=$(ms)
cl_start_node "$VICTIM"
wait_all 90 ready "$VICTIM" || bail "node$VICTIM boots again"
cl_send "$VICTIM" go
if wait_all 90 "pd up" "$VICTIM"; then
	ok "node$VICTIM restarted with the same id: ddsm loaded, every peer up ($(($(ms) - t_start)) ms after the restart)"
fi
wait_all 120 "pd rejoined" $SURVIVORS &&
	ok "survivors talked to the restarted node$VICTIM"

# ---- results ------------------------------------------------------------

for i in 0 1 2; do
	if wait_all 60 'exit [0-9]+' "$i"; then
		m=$(cl_marker "$i" 'exit [0-9]+')
		[ "$m" = "exit 0" ] && ok "node$i: guest script exit 0" ||
			nok "node$i: guest script $m"
	fi
done
for i in 0 1 2; do cl_send "$i" release; done
for _ in $(seq 100); do
	cl_alive 0 || cl_alive 1 || cl_alive 2 || break
	sleep 0.1
done
for i in 0 1 2; do cl_stop_node "$i"; done
for i in 0 1 2; do
	bad=$(grep -c '^not ok' "$CL_LOG/node$i.out")
	good=$(grep -c '^ok' "$CL_LOG/node$i.out")
	[ "$bad" -eq 0 ] && ok "node$i: $good guest checks passed" ||
		nok "node$i: $bad of $((bad + good)) guest checks failed"
	console_clean "$i"
done
echo "# peer_death: $failed of $total host checks failed in ${SECONDS}s; logs in $CL_LOG"
[ "$failed" -eq 0 ]

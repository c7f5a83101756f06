#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the rejoin component (host side: tests/vm/rejoin/during.sh,
# which freezes the last node, the victim, for longer than peer_timeout_ms
# once every node has filled its units).  A false death costs time, not
# data: the others declare the victim dead while it is alive with dirty
# copies; reads of the units it owns wait instead of failing, and once it
# is back every unit holds the data its owner wrote, everywhere.
#
#   qemu/cluster.sh -n 3 --name rejoin \
#       --during "bash tests/vm/rejoin/during.sh" -- bash /ddsm/tests/rejoin/guest.sh
#
# RJ_FAULT_MS (default 30000) is fault_timeout_ms: how long a read may wait
# for the victim to come back; RJ_PARAMS adds module parameters.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
VICTIM=$((N - 1)) K=4
T=$TESTS/ddsm-test-rejoin

stat_of() { $CTL status | sed -n "s/^$1: //p"; }
victim_dead() { # declared dead at least once
	local d
	d=$($CTL status | sed -n "s/^ *peer $VICTIM: .* deaths \([0-9]*\) .*/\1/p")
	[ "${d:-0}" -ge 1 ]
}
# until SECS CMD...: poll CMD every 0.2 s for SECS seconds of wall time.
until_s() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.2
	done
}
gone_seen() { # the victim's view: every peer went down at least once
	local p
	for ((p = 0; p < N; p++)); do
		[ "$p" = "$ME" ] && continue
		dmesg | grep -q "ddsm: node $p gone:" || return 1
	done
}

if ! insmod $DDSM/ddsm.ko node_id="$ME" nodes="$IPS" \
	fault_timeout_ms="${RJ_FAULT_MS:-30000}" ${RJ_PARAMS:-}; then
	nok "insmod ddsm.ko node_id=$ME nodes=$IPS"
	exit 1
fi
ok "insmod ddsm.ko node_id=$ME (fault_timeout_ms ${RJ_FAULT_MS:-30000})"
check "ddsmctl wait: all $((N - 1)) peers up" $CTL wait --timeout 60
run "fill: this node's units, dirty" 120 $T fill "$N" "$ME"
echo "rj filled" >/dev/ttyS1

if [ "$ME" = "$VICTIM" ]; then
	check "frozen, then every peer went down here (dmesg 'gone')" \
		until_s 120 gone_seen
else
	check "node$VICTIM declared dead here while frozen" \
		until_s 120 victim_dead
	t0=$SECONDS
	run "read node$VICTIM's units while it is declared dead" 200 \
		$T read-owned "$N" "$ME" "$VICTIM"
	echo "# node$ME: the reads took $((SECONDS - t0)) s"
fi
check "ddsmctl wait: all peers up again" $CTL wait --timeout 120
# Every node hands its orphans back on "up"; give the last ones a moment.
sleep 2
run "check: every node's units hold its pattern" 200 $T check "$N" "$ME"

lost=$(stat_of units_lost) restored=$(stat_of units_restored)
orph=$(stat_of orphans) dropped=$(stat_of orphans_dropped)
echo "# node$ME: units_lost $lost units_restored $restored orphans $orph orphans_dropped $dropped lost_retries $(stat_of lost_retries)"
check "every unit lost here came back (units_lost $lost = units_restored $restored)" \
	test "$lost" = "$restored"
if [ "$ME" = "$VICTIM" ]; then
	want=$((K * (N - 1)))
else
	want=$K
fi
check "units restored here: at least $want (got $restored)" test "$restored" -ge "$want"
check "dirty copies kept for a lost home: at least $want (got $orph)" test "$orph" -ge "$want"
check "no dirty copy dropped (orphans_dropped $dropped)" test "$dropped" = 0
check_no_sigbus
$CTL status | grep -E '^peer' | sed "s/^/# node$ME: /"
dmesg | grep -E 'ddsm: node [0-9]' | sed "s/^/# node$ME: /"
[ $failed -ne 0 ] && diag
tap_exit

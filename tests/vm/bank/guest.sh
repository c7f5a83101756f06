#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the bank component (issue 15): load ddsm with a short
# peer timeout, wait for every peer, then move money in HADES
# transactions and audit it (ddsm-test-bank) while the host takes links
# down, freezes a VM or kills one.
#
# BANK_SECS (default 120), BANK_HOMES (the nodes whose units hold the
# accounts, a bit mask, default every node), BANK_WORKERS (default 2),
# BANK_VICTIM (a node the host kills: it holds each commit's locks
# longer before and between its Validations, so that its death lands
# in a commit; default none), BANK_LATE (a node that starts its program
# 5 s after the others: node 0 must not load the accounts before that
# node's region is declared, or its home NACKs them; default none).
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"

SECS=${BANK_SECS:-120} HOMES=${BANK_HOMES:-$(((1 << N) - 1))}
knobs=
if [ "${BANK_VICTIM:-}" = "$ME" ]; then
	knobs="tx_validate_delay_ms=50 tx_validate_gap_ms=400"
fi
# shellcheck disable=SC2086 # knobs is a list of parameters
tp_load heartbeat_ms=200 peer_timeout_ms=3000 reconnect_ms=500 $knobs ||
	{ nok "insmod ddsm.ko node_id=$ME"; exit 1; }
ok "insmod ddsm.ko (heartbeat 200 ms, peer timeout 3000 ms${knobs:+, $knobs})"
wait_for 90 all_up || { nok "every peer up within 90 s"; diag; exit 1; }
ok "every peer up"
[ "${BANK_LATE:-}" = "$ME" ] && sleep 5
run "ddsm-test-bank" $((SECS + 500)) "$TESTS/ddsm-test-bank" "$ME" "$N" \
	"$SECS" "$HOMES" "${BANK_WORKERS:-2}"
$CTL tx stats 2>/dev/null | grep -E "home_(in_doubt|rollbacks|rollforwards)|aborts" |
	sed "s/^/# node$ME: /"
dmesg | grep -E "in doubt|rolled|given up" | tail -n 8 | sed "s/^/# node$ME: dmesg: /"
# The host's upgrade check (BANK_UPGRADE=ROUNDS): node 1 stores to a unit
# of node 2 while node 2's link is down, once per round; every node stays
# loaded until the host releases it.
if [ "${BANK_UPGRADE:-0}" -gt 0 ]; then
	if [ "$ME" = 1 ]; then
		for ((r = 0; r < BANK_UPGRADE; r++)); do
			run "ddsm-test-upgrade round $r" 120 \
				"$TESTS/ddsm-test-upgrade" "$N" 2 "$r"
			marker "upgrade finished $r"
		done
	fi
	while read -r -t 300 line <&3; do
		[ "${line%$'\r'}" = release ] && break
	done
fi
[ "$failed" -eq 0 ] || diag
tap_exit

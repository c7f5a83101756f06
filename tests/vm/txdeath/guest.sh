#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/txdeath/host.sh: load ddsm with a short peer timeout,
# wait for every peer, run ddsm-test-txdeath (transfers in HADES
# transactions among accounts homed on the survivors) for TXD_SECS.  The
# host kills the last node's VM meanwhile.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"

SECS=${TXD_SECS:-40}
# The victim (last node) holds each commit's locks 50 ms before its
# Validations and 400 ms between its first Validation and the next, so
# that its death almost surely leaves commits locked at both survivors
# (to roll back) or applied at node 0 and locked at node 1 (to roll
# forward).
DELAY=0 GAP=0
if [ "$ME" -eq $((N - 1)) ]; then
	DELAY=${TXD_DELAY_MS:-50} GAP=${TXD_GAP_MS:-400}
fi
tp_load heartbeat_ms=200 peer_timeout_ms=3000 reconnect_ms=1000 \
	tx_validate_delay_ms="$DELAY" tx_validate_gap_ms="$GAP" ||
	{ nok "insmod ddsm.ko node_id=$ME"; exit 1; }
ok "insmod ddsm.ko (heartbeat 200 ms, timeout 3000 ms, validate delay $DELAY ms, gap $GAP ms)"
wait_for 90 all_up || { nok "every peer up within 90 s"; exit 1; }
ok "every peer up"
/ddsm/tests/ddsm-test-txdeath "$ME" "$N" "$SECS" "${TXD_WORKERS:-3}"
rc=$?
dmesg | grep -E "ddsm|tx " | tail -5 | sed "s/^/# node$ME: dmesg: /"
exit $rc

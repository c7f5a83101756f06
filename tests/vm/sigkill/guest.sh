#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, 3 nodes: node 0 homes the units, node 1 (with an 8-frame
# cache, so every access is a protocol fault) SIGKILLs faulting tasks at
# random points, then rewrites every unit; node 2 checks the values.
# Afterwards no node may have logged a protocol error.

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
UNITS=64 KILLS=${SIGKILL_ROUNDS:-150}
T=/ddsm/tests/ddsm-test-sigkill

extra=
[ "$ME" = 1 ] && extra=cache_frames=8
if ! insmod /ddsm/ddsm.ko node_id="$ME" nodes="$IPS" $extra; then
	nok "insmod"
	exit 1
fi
wait_for 30 peers_up && ok "every peer up" || { nok "every peer up"; exit 1; }

rc=0
case $ME in
1) timeout 600 $T kill "$N" $UNITS "$KILLS" || rc=1 ;;
2) timeout 600 $T check "$N" $UNITS || rc=1 ;;
*) timeout 600 $T wait "$N" $UNITS || rc=1 ;;
esac
if dmesg | grep -q "ddsm: unexpected"; then
	nok "no protocol error logged"
	dmesg | grep "ddsm: unexpected" | head -5 | sed 's/^/# /'
	rc=1
else
	ok "no protocol error logged"
fi
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side: every node loads ddsm with a 64-frame cache limit; node 0
# writes and re-reads patterns over EVICT_UNITS units (default 4,096), so most of them go back
# and forth between its small cache and their homes.  The other nodes only
# serve as homes and stay up until node 0 is done (cluster.sh holds them).

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
LIMIT=64 UNITS=${EVICT_UNITS:-4096}

if ! insmod /ddsm/ddsm.ko node_id="$ME" nodes="$IPS" cache_frames=$LIMIT; then
	nok "insmod with cache_frames=$LIMIT"
	exit 1
fi
ok "insmod with cache_frames=$LIMIT"
if ! wait_for 30 peers_up; then
	nok "peers up"
	exit 1
fi
[ "$ME" = 0 ] || exit 0
timeout 600 /ddsm/tests/ddsm-test-evict $UNITS $LIMIT
rc=$?
$CTL status | grep -E 'evictions|cache_frames|fault'
exit $rc

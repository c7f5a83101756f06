#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side: every node loads ddsm with a 64-frame cache limit; node 0
# writes and re-reads patterns over EVICT_UNITS units (default 4,096), so most of them go back
# and forth between its small cache and their homes.  The other nodes only
# serve as homes and stay up until node 0 is done (cluster.sh holds them).

ME=${DDSM_NODE_ID:?} N=${DDSM_NR_NODES:?} IPS=${DDSM_NODE_IPS:?}
LIMIT=64 UNITS=${EVICT_UNITS:-4096}
CTL=/ddsm/bin/ddsmctl
peers_up() { [ "$($CTL status | grep -c 'state up')" -ge $((N - 1)) ]; }

if ! insmod /ddsm/ddsm.ko node_id="$ME" nodes="$IPS" cache_frames=$LIMIT; then
	echo "not ok - node$ME: insmod with cache_frames=$LIMIT"
	exit 1
fi
echo "ok - node$ME: insmod with cache_frames=$LIMIT"
for _ in $(seq 300); do peers_up && break; sleep 0.1; done
if ! peers_up; then
	echo "not ok - node$ME: peers up"
	exit 1
fi
[ "$ME" = 0 ] || exit 0
timeout 600 /ddsm/tests/ddsm-test-evict $UNITS $LIMIT
rc=$?
$CTL status | grep -E 'evictions|cache_frames|fault'
exit $rc

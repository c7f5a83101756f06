#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: load ddsm.ko as node $DDSM_NODE_ID,
# wait until every peer is up, then run ddsm-litmus (thread r of each test
# on node r; see docs/litmus.md).  Arguments go to ddsm-litmus:
#
#   qemu/cluster.sh -n 3 -t 1800 --name litmus -- bash /ddsm/tests/litmus/guest.sh
#   qemu/cluster.sh -n 4 -t 1800 --name litmus -- bash /ddsm/tests/litmus/guest.sh
#   qemu/cluster.sh -n 3 -t 36000 --name litmus-long -- \
#       bash /ddsm/tests/litmus/guest.sh --long
#
# IRIW needs 4 nodes; on 3 it is reported as "ok ... # SKIP".
# TAP-like output; exit 0 iff no forbidden outcome and no error.  On a
# failure the node's ddsm kernel messages and counters are printed as "#"
# lines.  LITMUS_TIMEOUT (seconds, default 1700) bounds the program.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
LITMUS_TIMEOUT=${LITMUS_TIMEOUT:-1700}

load_cluster
run ddsm-litmus "$LITMUS_TIMEOUT" $TESTS/ddsm-litmus "$@"
check_no_sigbus
if [ $failed -ne 0 ]; then
	diag
else
	$CTL status | grep -E '^(faults_|upgrades|remaps|msgs_)' |
		sed "s/^/# node$ME: /"
fi
echo "# node$ME: litmus.sh done in $((SECONDS - t_start)) s"
tap_exit

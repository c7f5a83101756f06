#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: load ddsm.ko as node $DDSM_NODE_ID of
# the cluster, wait until every peer is up, then run the coherence tests
# (ddsm-test-counters: LOCK XADD totals; ddsm-test-data: 1 MiB written on
# one node, read on the others, rewritten, false sharing).
#
#   qemu/cluster.sh -n 3 -t 900 --name coherence -- bash /ddsm/tests/coherence/guest.sh
#
# TAP-like output; exit 0 iff all ok.  On a failure the node's ddsm kernel
# messages and counters are printed as "#" lines.  Every wait is bounded
# (the programs' barriers give up after 120 s, timeout(1) kills a stuck one).

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
COUNTER_ROUNDS=${COUNTER_ROUNDS:-10000}

load_cluster
run ddsm-test-counters 400 $TESTS/ddsm-test-counters "$COUNTER_ROUNDS"
run ddsm-test-data 300 $TESTS/ddsm-test-data

check_no_sigbus
if [ $failed -ne 0 ]; then
	diag
fi
# Stay up (module loaded, mapped memory homed here) until the peers are
# done with it: cluster.sh keeps finished nodes up, so just exit.
echo "# node$ME: coherence.sh done in $((SECONDS - t_start)) s"
tap_exit

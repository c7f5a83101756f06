#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/tx-pairs/host.sh, every node at once: one workload
# (TXB_WL, default YCSB-T 50/50 with 256-byte values) run TXB_PAIRS
# times on each backend in one boot, alternating occ, hades | hades,
# occ | occ, hades ... so that a drift of the host's speed within the
# boot falls on both sides alike.  Node 0 prints each run's cluster
# total as "# pair P backend=B ..."; the host computes the ratios.
#
# TXB_PAIRS (10), TXB_SECS (20), TXB_RECORDS (10000), TXB_WL.

set -u
# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile
BIN=$DDSM/bin
PAIRS=${TXB_PAIRS:-10} SECS=${TXB_SECS:-20} RECORDS=${TXB_RECORDS:-10000}
WL=${TXB_WL:-ycsbt -r 50 -v 256}

load_cluster
for ((p = 1; p <= PAIRS; p++)); do
	order="occ hades"
	((p % 2)) || order="hades occ"
	for b in $order; do
		# shellcheck disable=SC2086
		out=$(timeout $((SECS * 6 + 300)) "$BIN/ddsm-txbench" -t 2 \
			-s "$SECS" -n "$RECORDS" -w $WL --backend "$b" 2>&1)
		rc=$?
		grep '^bench txbench' <<<"$out" | sed "s/^bench /# pair $p /"
		check "pair $p, $b: ddsm-txbench exit 0" [ $rc -eq 0 ]
		[ $rc -eq 0 ] || { echo "$out" | tail -20 | sed "s/^/# node$ME: /"; diag; }
	done
done
# What the transactions did on this node over the boot, for the log.
$CTL status | grep '^tx_' | tr '\n' ' ' | sed "s/^/# node$ME: /; s/ $/\n/"
check_no_sigbus
tap_exit

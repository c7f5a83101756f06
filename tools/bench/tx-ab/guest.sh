#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/tx-ab/host.sh, every node at once: module
# TXB_MODULE (a or b: $DDSM/ab/$TXB_MODULE/ddsm.ko, with its own
# programs), one timed ddsm-txbench run.  Each node prints its own rate
# ("# ab round=R module=M ..."), which the host sums; nothing is
# compared here.  One boot per run: nodes that reload a module at
# different times would meet their peers' old one.

set -u
# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile
SECS=${TXB_SECS:-20} RECORDS=${TXB_RECORDS:-10000}
WL=${TXB_WL:-ycsbt -r 50 -v 256} BACKEND=${TXB_BACKEND:-hades}
M=${TXB_MODULE:?} R=${TXB_ROUND:?}
BIN=$DDSM/ab/$M/bin CTL=$DDSM/ab/$M/bin/ddsmctl

if ! insmod "$DDSM/ab/$M/ddsm.ko" node_id="$ME" nodes="$IPS" ||
   ! $CTL wait --timeout 60; then
	nok "module $M loaded and every peer up"
	diag
	exit 1
fi
# shellcheck disable=SC2086
out=$(timeout $((SECS * 6 + 300)) "$BIN/ddsm-txbench" -t 2 -s "$SECS" \
	-n "$RECORDS" -w $WL --backend "$BACKEND" 2>&1)
rc=$?
grep '^bench txbench ' <<<"$out" | sed "s/^bench /# ab round=$R module=$M /"
check "round $R, module $M: ddsm-txbench exit 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { echo "$out" | tail -20 | sed "s/^/# node$ME: /"; diag; }
tap_exit

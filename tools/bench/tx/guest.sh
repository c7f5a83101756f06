#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/tx/host.sh, every node at once: issue 13's HADES
# against the software OCC baseline on the same DSM, one timed run of
# each workload on each backend, back to back so that both meet the same
# host: YCSB-T 50/50 and 95/5 (5 operations, zipfian 0.99, 256-byte
# values so that a commit's writes at one home fit an Intend page),
# SmallBank uniform and with 90% of the choices on 100 accounts.  YCSB-T
# 50/50 runs twice: its reads all at once (txn_read_many(), on HADES one
# DDSM_IOC_TX_READV), and one by one as before READV.  Every
# run keeps its audit (a wrong value fails it); no history log, which
# would cost time.
#
# TXB_SECS (seconds per run, default 20), TXB_RECORDS (default 10000).

set -u
# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile
BIN=$DDSM/bin
SECS=${TXB_SECS:-20} RECORDS=${TXB_RECORDS:-10000}

load_cluster
run() { # NAME ARGS...
	local name=$1 out rc
	shift
	out=$(timeout $((SECS * 6 + 300)) "$BIN/ddsm-txbench" -t 2 -s "$SECS" \
		-n "$RECORDS" "$@" 2>&1)
	rc=$?
	grep -E '^(bench |not ok)' <<<"$out"
	if [ $rc -eq 0 ]; then
		ok "$name"
	else
		echo "$out" | tail -20 | sed "s/^/# node$ME: /"
		nok "$name: exit $rc"
	fi
}
for wl in "ycsbt -r 50 -v 256" "ycsbt -r 50 -v 256 --one-by-one" \
	  "ycsbt -r 95 -v 256" "smallbank" "smallbank --hot 100"; do
	for b in occ hades; do
		# shellcheck disable=SC2086
		run "$wl, $b" -w $wl --backend $b
	done
done
check_no_sigbus
tap_exit

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/workloads/host.sh (make bench), every node at once:
# load ddsm (a one-node DSM when N = 1, optionally with a small
# cache_frames for cache pressure), then run the YCSB workloads and, if
# asked, the anonymous-memory YCSB-C baseline and the GAM micro sharing
# sweep.  The programs print "bench ..." lines (passed through for the
# host) and verify every value; a wrong value fails the run.
#
# Env: BW_WORKLOADS (default "A B C F"), BW_RECORDS (10000), BW_SECS (10),
# BW_THREADS (1), BW_FRAMES (cache_frames, empty: the module's default),
# BW_ANON (1: also YCSB-C over anonymous memory), BW_SHARING (sharing
# percentages for ddsm-micro, empty: none), BW_MICRO_SECS (5: seconds of
# each ddsm-micro measured run, which replays its trace for that long, so
# that the nodes' runs overlap whatever their speed).

set -u
# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile
BIN=$DDSM/bin
RECORDS=${BW_RECORDS:-10000} SECS=${BW_SECS:-10} THREADS=${BW_THREADS:-1}

args=()
[ -n "${BW_FRAMES:-}" ] && args+=(cache_frames="$BW_FRAMES")
[ "$N" -gt 1 ] && args+=(node_id="$ME" nodes="$IPS")
if ! insmod $DDSM/ddsm.ko "${args[@]}"; then
	nok "insmod ddsm.ko ${args[*]}"
echo "bench clocksource node=$ME cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	exit 1
fi
ok "insmod ddsm.ko ${args[*]}"
if [ "$N" -gt 1 ] && ! $CTL wait --timeout 60; then
	nok "all $((N - 1)) peers up within 60 s"
	diag
	exit 1
fi

for wl in ${BW_WORKLOADS:-A B C F}; do
	extra=()
	[ "$wl" = C ] && extra=(--warm)
	run "ycsb $wl" 1200 $BIN/ddsm-ycsb -w "$wl" -n "$RECORDS" -s "$SECS" \
		-t "$THREADS" "${extra[@]}"
done
if [ "${BW_ANON:-0}" = 1 ]; then
	run "ycsb C over anonymous memory" 1200 $BIN/ddsm-ycsb -w C \
		-n "$RECORDS" -s "$SECS" -t "$THREADS" --warm --anon
fi
for sh in ${BW_SHARING:-}; do
	run "micro sharing $sh%" 1200 $BIN/ddsm-micro -S "$sh" \
		-s "${BW_MICRO_SECS:-5}"
done
check_no_sigbus
[ $failed -ne 0 ] && diag
tap_exit

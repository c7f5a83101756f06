#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/pingpong/host.sh (2 nodes): perftest's 4 KiB RDMA
# READ latency between the two VMs, then ddsm-bench-pingpong, whose two
# threads hand one unit back and forth and wait for each other by
# spinning.  Prints "bench ..." lines for the host script; a benchmark:
# the exit status only says whether every measurement was taken.
# BENCH_TRACE=1 records the ddsm_grace tracepoint during the round trips
# and prints, per node and request type, how long the grace slept
# ("bench grace NODE TYPE N MEDIAN P90" in us, and the mean).

# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile

ROUNDS=${BENCH_ROUNDS:-500} ITERS=${BENCH_PERF_ITERS:-1000}
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"

[ "$N" -ge 2 ] || { nok "needs 2 nodes, have $N"; exit 1; }
read_lat 19200
# shellcheck disable=SC2086 # BENCH_MOD_ARGS: module parameters, split
tp_load ${BENCH_MOD_ARGS:-} || { nok "insmod ddsm.ko"; exit 1; }
wait_for 60 all_up || { nok "every peer up within 60 s"; exit 1; }
ok "ddsm loaded, peers up"
if [ -n "${BENCH_TRACE:-}" ]; then
	trace_setup 4096 ddsm/ddsm_grace || nok "tracing ddsm_grace"
	echo 1 >$TR/tracing_on
fi
# shellcheck disable=SC2086 # BENCH_PP_ARGS: options, split
ddsm-bench-pingpong -r "$ROUNDS" ${BENCH_PP_ARGS:-} "$ME" || nok "ddsm-bench-pingpong"
if [ -n "${BENCH_TRACE:-}" ]; then
	echo 0 >$TR/tracing_on
	# "... ddsm_grace: TYPE unit=U asked=Aus slept=Sus" -> "TYPE S"
	sed -n 's/.* ddsm_grace: \([A-Z_]*\) .* slept=\([0-9]*\)us$/\1 \2/p' \
		$TR/trace >/tmp/grace.txt
	stage_summary grace </tmp/grace.txt
	awk -v me="$ME" '{ s += $2 }
		END { if (NR) printf "bench grace_mean %d %d %.0f\n", me, NR, s / NR }' \
		/tmp/grace.txt
fi
ddsmctl status | sed 's/^/# status: /'
tap_exit

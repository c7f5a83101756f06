#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/transitions/host.sh (3 nodes or more): the raw
# transport first (perftest, server on node 0, client on node 1: the
# reference ib_read_lat -s 4096, and ib_send_lat -s 64 and -s 4096 for
# the two-sided floor), then ddsm-bench-transitions on every node (node 1
# drives and prints), ddsm's own transport self-test, then perftest once
# more, so that drift during the run shows.  A benchmark, not a test: it
# fails only if a measurement could not be taken or the coherence checks
# of ddsm-bench-transitions failed.
#
# Node 1 prints, for the host script:
#   bench perftest ROUND read|send64|send4k T_TYPICAL_US T_AVG_US
#   bench row|scan|errors ...        (see ddsm-bench-transitions.c)
#   bench transport ping_rtt|rpc4k|read4k VALUE_US VALUE_US  (ddsm self-test)
#   bench gap GAP_US N MEDIAN_US P90_US MIN_US  (ddsm-bench-gap)
#   bench trace NODE KIND N MEDIAN_US P90_US   (every node, BENCH_TRACE=1)
#
# Environment: BENCH_REPS (100), BENCH_SCAN_MIB (16), BENCH_SETTLE_US
# (1000), BENCH_PERF_ITERS (1000), BENCH_TRACE (1: after the timed rounds,
# BENCH_TRACE_REPS (30) more rounds with ddsm's tracepoints recorded on
# every node, analysed into where the time goes; the timed rounds run
# with tracing off).
#
# The trace breakdown, from ddsm:ddsm_msg_send/recv and ddsm:ddsm_fault
# (timestamps of one node's clock only, so nothing is compared across
# nodes), over the measured units only (not control or scan units):
#   req_TYPE   request sent -> fault finished, on the requester: the
#              kernel's share of the fault latency
#   first_TYPE request sent -> first reply received, on the requester
#   wake_TYPE  last reply received -> fault finished (wake-up, map)
#   svc_TYPE   TYPE received -> next message sent for that unit, on the
#              node that handles it (home or owner): its processing time

# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile

REPS=${BENCH_REPS:-100} SCAN_MIB=${BENCH_SCAN_MIB:-16}
SETTLE=${BENCH_SETTLE_US:-1000} ITERS=${BENCH_PERF_ITERS:-1000}
TRACE=${BENCH_TRACE:-1} TRACE_REPS=${BENCH_TRACE_REPS:-30}
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"
PORT0=19100		# perftest's own port; ddsm listens on 18515
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ "$N" -ge 3 ] || { nok "needs 3 nodes, have $N"; exit 1; }

# perftest1 ROUND KIND: one perftest latency run, node 0 serving, node 1
# measuring; other nodes skip it.  KIND: read (ib_read_lat -s 4096, the
# reference), send64 / send4k (ib_send_lat -s 64 / 4096: one-way times
# whose sum is what a two-sided request and a 4 KiB answer cost at best).
perftest1() {
	local r=$1 kind=$2 port try size cmd
	case $kind in
	read) cmd=(ib_read_lat) size=4096 port=$((PORT0 + r)) ;;
	send64) cmd=(ib_send_lat) size=64 port=$((PORT0 + 10 + r)) ;;
	send4k) cmd=(ib_send_lat) size=4096 port=$((PORT0 + 20 + r)) ;;
	esac
	cmd+=(-d rxe0 -s "$size" -n "$ITERS" -F -p "$port")
	if [ "$ME" -eq 0 ]; then
		timeout 180 "${cmd[@]}" >"$tmp/srv" 2>&1 ||
			{ nok "${cmd[0]} -s $size server round $r"; sed 's/^/# /' "$tmp/srv"; }
		return
	fi
	[ "$ME" -eq 1 ] || return 0
	for ((try = 1; try <= 60; try++)); do
		timeout 180 "${cmd[@]}" "${IPS[0]}" >"$tmp/out" 2>&1
		grep -q '^ *[0-9]\+ \+[0-9]\+ \+[0-9.]\+' "$tmp/out" && break
		grep -q "Couldn't connect" "$tmp/out" || break
		sleep 1
	done
	# Data line: #bytes #iterations t_min t_max t_typical t_avg ...
	local line
	line=$(awk '/#bytes/ { getline; print; exit }' "$tmp/out")
	if [[ $line =~ ^\ *$size\ + ]]; then
		echo "# ${cmd[0]} -s $size: $line"
		awk -v r="$r" -v k="$kind" '{ print "bench perftest", r, k, $5, $6 }' <<<"$line"
	else
		nok "${cmd[0]} -s $size client round $r"
		sed 's/^/# /' "$tmp/out"
	fi
}

perftest() {
	perftest1 "$1" read
	perftest1 "$1" send64
	perftest1 "$1" send4k
}

# trace_report LO HI: the breakdown over units LO <= u < HI.
trace_report() {
	echo 0 >$TR/tracing_on
	grep -c . $TR/trace | sed 's/^/# trace lines: /'
	awk -v me="$ME" -v lo="$1" -v hi="$2" '
	function add(k, v) { printf "%s %.1f\n", k, v }
	function field(name,   i) {
		for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
		return ""
	}
	/ ddsm_(msg_send|msg_recv|fault): / {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1) * 1e6; ev = $(i + 1); ty = $(i + 2); break }
		u = field("unit") + 0
		if (u < lo || u >= hi) next
		if (ev == "ddsm_fault:") {
			if (u in req && $0 ~ / remote /) {
				add("req_" rty[u], t - req[u])
				if (u in last) add("wake_" rty[u], t - last[u])
				delete req[u]; delete last[u]; delete got[u]
			}
			next
		}
		split($(i + 4), sd, "->")
		if (ev == "ddsm_msg_send:" && sd[1] == me) {
			if (u in svc) { add("svc_" sty[u], t - svc[u]); delete svc[u] }
			if (ty ~ /^(READ_MISS|WRITE_MISS|WRITE_SHARED)$/) { req[u] = t; rty[u] = ty; delete got[u]; delete last[u] }
		} else if (ev == "ddsm_msg_recv:" && sd[2] == me) {
			if (u in req && ty ~ /^(ACK|NACK)$/) {
				if (!(u in got)) { add("first_" rty[u], t - req[u]); got[u] = 1 }
				last[u] = t
			}
			if (ty ~ /^(READ_MISS|WRITE_MISS|WRITE_SHARED|INV|FETCH|FETCH_INV)$/) { svc[u] = t; sty[u] = ty }
		}
	}' $TR/trace | stage_summary trace
}

# Every node must be done with a phase before the next one starts; the
# nodes have no other channel yet, so the host-side harness's common
# start plus generous waits (perftest retries while the server is not
# listening) keep them in step.
perftest 1

tp_load || { nok "insmod ddsm.ko"; exit 1; }
wait_for 60 all_up || { nok "every peer up within 60 s"; exit 1; }
ok "ddsm loaded, peers up"
TRACE_ARGS=()
if [ "$TRACE" = 1 ]; then
	# Events on, recording off: ddsm-bench-transitions switches
	# recording on for its traced rounds only.
	if trace_setup 32768 ddsm/ddsm_msg_send ddsm/ddsm_msg_recv ddsm/ddsm_fault; then
		note "tracing ddsm events in $TRACE_REPS extra rounds"
		TRACE_ARGS=(-T "$TRACE_REPS")
	else
		note "tracing unavailable"
		TRACE=0
	fi
fi
note "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"

ddsm-bench-transitions -r "$REPS" -s "$SCAN_MIB" -w "$SETTLE" -p "${BENCH_POLL_US:-50}" \
	"${TRACE_ARGS[@]}" "$ME" "$N"
rc=$?
if [ "$rc" -eq 0 ]; then ok "ddsm-bench-transitions"; else nok "ddsm-bench-transitions exit $rc"; fi
# selftest CMD NAME FIELD...: run a self-test command on node 1 against
# node 0 and print "bench transport NAME" with the fields in us.
selftest() {
	local cmd=$1 name=$2 f vals=()
	shift 2
	if st 180 "$cmd" && [ "$(kv "$ST_OUT" error)" = 0 ] &&
		[ "$(kv "$ST_OUT" bad)" = 0 ] && [ "$(kv "$ST_OUT" ok)" = "$ITERS" ]; then
		echo "# $ST_OUT"
		for f in "$@"; do vals+=("$(kv "$ST_OUT" "$f")"); done
		awk -v n="$name" -v a="${vals[0]}" -v b="${vals[1]}" \
			'BEGIN { printf "bench transport %s %.1f %.1f\n", n, a / 1e3, b / 1e3 }'
	else
		note "ddsm $cmd: $ST_OUT"
	fi
}
if [ "$ME" -eq 1 ]; then
	ddsmctl status | sed 's/^/# status: /'
	# ddsm's own transport to node 0, for the reading of the numbers: a
	# 48-byte message round trip, a small request answered with a 4 KiB
	# unit (a read miss's exchange without the protocol and the fault),
	# and a one-sided 4 KiB RDMA READ.  Node 0 waits in perftest's server.
	selftest "ping 0 $ITERS 48" ping_rtt rtt_p50_ns rtt_avg_ns
	selftest "rpc 0 $ITERS" rpc4k rtt_p50_ns rtt_avg_ns
	selftest "xfer 0 $ITERS" read4k read_avg_ns read_avg_ns
	# The I->S from home again, after idle pauses of 0, 1 and 20 ms, on
	# units the transitions above never touched.
	units=$(($(ddsmctl status | sed -n 's/^space size: \([0-9]*\).*/\1/p') / 4096))
	ddsm-bench-gap -n 100 -s $((units / 4)) 0 0 1000 20000 ||
		nok "ddsm-bench-gap"
fi

# Node 0 finishes the helper loop before node 1 has printed its scans and
# run the self-tests; the client retries for up to 60 s until the server
# listens.  The trace analysis comes last, so it disturbs no measurement.
perftest 2
if [ "$TRACE" = 1 ]; then
	units=$(($(ddsmctl status | sed -n 's/^space size: \([0-9]*\).*/\1/p') / 4096))
	trace_report 64 $((units - 2 * SCAN_MIB * 256))
fi
echo "# bench: node$ME: $failed failures"
[ "$failed" -eq 0 ]

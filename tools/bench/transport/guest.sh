#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/bench/transport/host.sh (2 nodes): perftest against ddsm's
# self-test, in the same VMs, interleaved, BENCH_ROUNDS times.  Node 0 runs
# the perftest servers, node 1 the clients and the ddsm self-tests (against
# node 0).  A benchmark, not a test: it fails only if a measurement could
# not be taken.
#
# Node 1 prints one line per measurement, which the host script turns into
# the table:  "bench ROUND METRIC perftest|ddsm VALUE"
#   lat64_p50  usec  ib_send_lat -s 64 t_typical | ping (48 B payload + 16 B
#                    header = one 64-byte SEND each way) rtt_p50 / 2
#   lat64_avg  usec  ib_send_lat t_avg           | ping rtt_avg / 2
#   read4k     usec  ib_read_lat -s 4096 t_avg   | xfer read_avg
#   write4k    usec  ib_write_lat -s 4096 t_avg  | xfer write_avg
#   bw4k       ops/s ib_write_bw -s 4096 -t DEPTH MsgRate | bw ... DEPTH ops_per_s
#
# Environment: BENCH_ROUNDS (3), BENCH_ITERS (1000: latency iterations),
# BENCH_BW_ITERS (2000), BENCH_DEPTH (64: in flight, both tools).

# shellcheck source=tests/vm/lib/guest.sh
. /ddsm/tests/lib/guest.sh	# staged by tests/vm/Makefile

ROUNDS=${BENCH_ROUNDS:-3} ITERS=${BENCH_ITERS:-1000}
BW_ITERS=${BENCH_BW_ITERS:-2000} DEPTH=${BENCH_DEPTH:-64}
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"
SERVER=${IPS[0]}
PORT0=19000		# perftest's own port; ddsm listens on 18515
tmp=$(mktemp -d)

# The perftest runs, in order; the port differs per test and round.
TESTS=(send_lat read_lat write_lat write_bw)
args() { # TEST
	case $1 in
	send_lat) echo "ib_send_lat -s 64 -n $ITERS" ;;
	read_lat) echo "ib_read_lat -s 4096 -n $ITERS" ;;
	write_lat) echo "ib_write_lat -s 4096 -n $ITERS" ;;
	write_bw) echo "ib_write_bw -s 4096 -n $BW_ITERS -t $DEPTH" ;;
	esac
}
port() { echo $((PORT0 + 10 * $1 + $2)); }	# ROUND TEST-INDEX

tp_load || { nok "insmod ddsm.ko"; exit 1; }
wait_for 60 all_up || { nok "peer up within 60 s"; exit 1; }
ok "ddsm loaded, peer up"

if [ "$ME" -eq 0 ]; then
	# Servers, one at a time, in the client's order.
	for ((r = 1; r <= ROUNDS; r++)); do
		for k in "${!TESTS[@]}"; do
			# shellcheck disable=SC2046
			timeout 180 $(args "${TESTS[k]}") -d rxe0 -F -p "$(port "$r" "$k")" \
				>"$tmp/srv" 2>&1 ||
				{ nok "server ${TESTS[k]} round $r"; sed 's/^/# /' "$tmp/srv"; }
		done
	done
	# Stay loaded (the client's ddsm runs target this node) until the
	# client unloads; polling the local state only, no traffic.
	wait_for 300 eval '! peer_is 1 up'
	rmmod ddsm
	echo "# bench: node0: $failed failures"
	[ "$failed" -eq 0 ]
	exit
fi
[ "$ME" -eq 1 ] || exit 0

# client TEST ROUND: run the perftest client, retrying while the server
# is not listening yet; the data line goes to $tmp/out.
client() {
	local k=$2 try
	for ((try = 1; try <= 60; try++)); do
		# shellcheck disable=SC2046
		timeout 180 $(args "${TESTS[k]}") -d rxe0 -F -p "$(port "$1" "$k")" \
			"$SERVER" >"$tmp/out" 2>&1
		grep -q '^ *[0-9]\+ \+[0-9]\+ \+[0-9.]\+' "$tmp/out" && return 0
		grep -q "Couldn't connect" "$tmp/out" || break
		sleep 1
	done
	nok "perftest ${TESTS[k]} round $1"
	sed 's/^/# /' "$tmp/out"
	return 1
}
# Columns of perftest's data line (the line after the " #bytes" header).
pf() { awk '/#bytes/ { getline; print; exit }' "$tmp/out"; }
col() { awk -v c="$1" '{ print $c }' <<<"$(pf)"; }
say() { echo "bench $r $1 $2 $3"; }
ns_us() { awk -v n="$1" -v d="$2" 'BEGIN { printf "%.2f", n / d / 1000 }'; }

for ((r = 1; r <= ROUNDS; r++)); do
	if client "$r" 0; then
		echo "# $(pf)"
		say lat64_p50 perftest "$(col 5)"
		say lat64_avg perftest "$(col 6)"
	fi
	if st 120 "ping 0 $ITERS 48" && ping_ok "$ITERS"; then
		echo "# $ST_OUT"
		say lat64_p50 ddsm "$(ns_us "$(kv "$ST_OUT" rtt_p50_ns)" 2)"
		say lat64_avg ddsm "$(ns_us "$(kv "$ST_OUT" rtt_avg_ns)" 2)"
	else
		nok "ddsm ping round $r: $ST_OUT"
	fi
	client "$r" 1 && { echo "# $(pf)"; say read4k perftest "$(col 6)"; }
	client "$r" 2 && { echo "# $(pf)"; say write4k perftest "$(col 6)"; }
	if st 180 "xfer 0 $ITERS" && xfer_ok "$ITERS"; then
		echo "# $ST_OUT"
		say read4k ddsm "$(ns_us "$(kv "$ST_OUT" read_avg_ns)" 1)"
		say write4k ddsm "$(ns_us "$(kv "$ST_OUT" write_avg_ns)" 1)"
	else
		nok "ddsm xfer round $r: $ST_OUT"
	fi
	if client "$r" 3; then
		echo "# $(pf)"
		say bw4k perftest "$(awk -v m="$(col 5)" 'BEGIN { printf "%d", m * 1e6 }')"
	fi
	if st 180 "bw 0 $BW_ITERS $DEPTH" && [ "$(kv "$ST_OUT" errors)" = 0 ] &&
		[ "$(kv "$ST_OUT" done)" = "$BW_ITERS" ]; then
		echo "# $ST_OUT"
		say bw4k ddsm "$(kv "$ST_OUT" ops_per_s)"
	else
		nok "ddsm bw round $r: $ST_OUT"
	fi
done
rmmod ddsm
rm -rf "$tmp"
echo "# bench: node1: $failed failures"
[ "$failed" -eq 0 ]

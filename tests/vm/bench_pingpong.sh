#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of qemu/bench-pingpong.sh (2 nodes): perftest's 4 KiB RDMA
# READ latency between the two VMs, then ddsm-bench-pingpong, whose two
# threads hand one unit back and forth and wait for each other by
# spinning.  Prints "bench ..." lines for the host script; a benchmark:
# the exit status only says whether every measurement was taken.

. "$(dirname "${BASH_SOURCE[0]}")/transport_lib.sh"

ROUNDS=${BENCH_ROUNDS:-500} ITERS=${BENCH_PERF_ITERS:-1000}
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# ib_read_lat: node 0 serves, node 1 measures (retrying until the server
# listens).  Data line: #bytes #iterations t_min t_max t_typical t_avg ...
read_lat() {
	local cmd=(ib_read_lat -d rxe0 -s 4096 -n "$ITERS" -F -p 19200) try line
	if [ "$ME" -eq 0 ]; then
		timeout 180 "${cmd[@]}" >"$out" 2>&1 || nok "ib_read_lat server"
		return
	fi
	for ((try = 1; try <= 60; try++)); do
		timeout 180 "${cmd[@]}" "${IPS[0]}" >"$out" 2>&1
		grep -q "Couldn't connect" "$out" || break
		sleep 1
	done
	line=$(awk '/#bytes/ { getline; print; exit }' "$out")
	if [[ $line =~ ^\ *4096\ + ]]; then
		echo "# ib_read_lat -s 4096: $line"
		awk '{ print "bench read_lat", $5, $6 }' <<<"$line"
	else
		nok "ib_read_lat client"
		sed 's/^/# /' "$out"
	fi
}

[ "$N" -ge 2 ] || { nok "needs 2 nodes, have $N"; exit 1; }
read_lat
# shellcheck disable=SC2086 # BENCH_MOD_ARGS: module parameters, split
tp_load ${BENCH_MOD_ARGS:-} || { nok "insmod ddsm.ko"; exit 1; }
wait_until 60 all_up || { nok "every peer up within 60 s"; exit 1; }
ok "ddsm loaded, peers up"
ddsm-bench-pingpong -r "$ROUNDS" ${BENCH_PP_ARGS:-} "$ME" || nok "ddsm-bench-pingpong"
if [ "$ME" -eq 0 ]; then
	ddsmctl status | sed 's/^/# status: /'
fi
exit $((failed > 0))

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the RDMA transport against perftest, in the same two TCG
# VMs in the same run (tools/bench/transport/guest.sh does the measuring).
#
#   tools/bench/transport/host.sh [-t SECONDS] [--rounds N] [--iters N] [--bw-iters N] [--depth N]
#
# Prints the medians over the rounds and the ratio per metric, oriented so
# that > 1 always means "ddsm is slower": ddsm/perftest for latencies,
# perftest/ddsm for the message rate.  The target is 1.3.  Latencies are
# one-way where perftest reports one-way (send: ddsm's RTT is halved) and
# post-to-completion for RDMA READ; see docs/transport.md for what each row
# compares.  Exit 0 iff every measurement was taken.
set -uo pipefail

LIMIT=600 ROUNDS=3 ITERS=1000 BW_ITERS=2000 DEPTH=64 TARGET=1.3
while [ $# -gt 0 ]; do
	case $1 in
	-t) LIMIT=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--iters) ITERS=$2; shift 2 ;;
	--bw-iters) BW_ITERS=$2; shift 2 ;;
	--depth) DEPTH=$2; shift 2 ;;
	*) echo "usage: $0 [-t SECONDS] [--rounds N] [--iters N] [--bw-iters N] [--depth N]" >&2
	   exit 2 ;;
	esac
done

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
NAME=bench-transport
out=$(mktemp)
trap 'rm -f "$out"' EXIT

bash "$ROOT/qemu/cluster.sh" -n 2 -t "$LIMIT" --name "$NAME" -- \
	"BENCH_ROUNDS=$ROUNDS BENCH_ITERS=$ITERS BENCH_BW_ITERS=$BW_ITERS" \
	"BENCH_DEPTH=$DEPTH bash /ddsm/bench/transport/guest.sh" | tee "$out"
rc=${PIPESTATUS[0]}

echo
echo "# perftest vs ddsm, 2 TCG VMs over soft-RoCE (rxe0), medians of $ROUNDS round(s)"
echo "# latency: $ITERS iterations; write bandwidth: $BW_ITERS x 4 KiB, $DEPTH in flight"
sed -n 's/^\[n1\] bench //p' "$out" | awk -v target="$TARGET" '
{ v[$2, $3, ++n[$2, $3]] = $4; r[$2, $1, $3] = $4; rounds[$1] = 1 }
function median(m, s,   k, i, j, t, a) {
	k = n[m, s]
	for (i = 1; i <= k; i++) a[i] = v[m, s, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	if (!k) return ""
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function ratio(m, p, d) {
	if (p == "" || d == "" || p == 0 || d == 0) return ""
	return m == "bw4k" ? p / d : d / p
}
END {
	split("lat64_p50 lat64_avg read4k write4k bw4k", order)
	desc["lat64_p50"] = "64 B send one-way, median (us)"
	desc["lat64_avg"] = "64 B send one-way, mean (us)"
	desc["read4k"]    = "4 KiB RDMA READ, mean (us)"
	desc["write4k"]   = "4 KiB RDMA WRITE, mean (us) [1]"
	desc["bw4k"]      = "4 KiB RDMA WRITE rate (ops/s)"
	printf "%-34s %12s %12s %8s %8s  %s\n", "metric", "perftest", "ddsm", "ratio", "target", "per round"
	for (i = 1; i <= 5; i++) {
		m = order[i]; p = median(m, "perftest"); d = median(m, "ddsm")
		x = ratio(m, p, d); per = ""
		for (k = 1; k in rounds; k++) {
			y = ratio(m, r[m, k, "perftest"], r[m, k, "ddsm"])
			per = per (per == "" ? "" : " ") (y == "" ? "-" : sprintf("%.2f", y))
		}
		printf "%-34s %12s %12s %8s %7sx  %s\n", desc[m], p, d,
			x == "" ? "-" : sprintf("%.2f", x), target, per
	}
	print "# ratio > 1: ddsm slower (ddsm/perftest for latency, perftest/ddsm for the rate)"
	print "# [1] ddsm: post to completion, which includes the responder'"'"'s ACK;"
	print "#     ib_write_lat: one-way (half a ping-pong of two writes), no ACK on the path"
}'
exit "$rc"

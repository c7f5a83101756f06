#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ownership transfers with spinning waiters on 2 TCG VMs, against
# perftest's 4 KiB RDMA READ in the same VMs in the same run
# (tools/bench/pingpong/guest.sh and ddsm-bench-pingpong do the measuring).
#
#   tools/bench/pingpong/host.sh [-t SECONDS] [--rounds N] [--hog] [--no-migratory]
#                          [--no-handoff] [--trace]
#
# BENCH_PP_ARGS passes options to ddsm-bench-pingpong (e.g. -P: spin
# without PAUSE).
# BENCH_MOD_ARGS passes module parameters (e.g. grace_us=100).
#
# --hog runs a busy loop beside the spinning thread on both guests.
# --no-migratory loads the module with migratory=0 (every transfer is then
# a read miss and an upgrade), --no-handoff with handoff=0 (home waits for
# the requester's UNLOCK before it forwards), for before/after comparisons.
# --trace records the ddsm_grace tracepoint and prints how long each
# node's access grace slept, per request type (median, p90, mean in us).
# Prints the round trip (two transfers), one transfer (half of it) and
# that transfer over ib_read_lat's t_typical.  A benchmark: the exit
# status says whether every measurement was taken, not whether a target
# was met.
set -uo pipefail

LIMIT=600 ROUNDS=500 MODARGS=${BENCH_MOD_ARGS:-} TRACE=
while [ $# -gt 0 ]; do
	case $1 in
	-t) LIMIT=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--hog) export BENCH_HOG=1; shift ;;
	--no-migratory) MODARGS="$MODARGS migratory=0"; shift ;;
	--no-handoff) MODARGS="$MODARGS handoff=0"; shift ;;
	--trace) TRACE=1; shift ;;
	*) echo "usage: $0 [-t SECONDS] [--rounds N] [--hog] [--no-migratory] [--no-handoff] [--trace]" >&2; exit 2 ;;
	esac
done
export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "# host: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
cmd="BENCH_TRACE=$TRACE BENCH_ROUNDS=$ROUNDS BENCH_PP_ARGS='${BENCH_PP_ARGS:-}' BENCH_MOD_ARGS='$MODARGS' bash /ddsm/bench/pingpong/guest.sh"
if [ -n "${BENCH_HOG:-}" ]; then
	cmd="(while :; do :; done) & hog=\$!; $cmd; rc=\$?; kill \$hog; exit \$rc"
fi
bash "$ROOT/qemu/cluster.sh" -n 2 -t "$LIMIT" --name bench-pingpong -- "$cmd" | tee "$out"
rc=${PIPESTATUS[0]}

read_typ=$(sed -n 's/^\[n1\] bench read_lat \([0-9.]*\) .*/\1/p' "$out" | tail -n 1)
pp=$(sed -n 's/^\[n0\] bench pingpong //p' "$out" | tail -n 1)
if [ -z "$read_typ" ] || [ -z "$pp" ]; then
	echo "bench-pingpong: a measurement is missing" >&2
	exit 1
fi
read -r n med p90 p99 min <<<"$pp"
awk -v n="$n" -v med="$med" -v p90="$p90" -v p99="$p99" -v min="$min" \
	-v rd="$read_typ" -v hog="${BENCH_HOG:+ (busy loop beside it)}" \
	-v mig="${MODARGS:+ ($MODARGS)}" 'BEGIN {
	printf "ping-pong with spinning waiters%s%s, %d round trips:\n", hog, mig, n
	printf "  round trip: median %.0f us, p90 %.0f us, p99 %.0f us, min %.0f us\n", med, p90, p99, min
	printf "  one ownership transfer (half): median %.0f us\n", med / 2
	printf "  ib_read_lat -s 4096 t_typical: %.1f us\n", rd
	printf "  transfer / READ: %.2fx (target: at most 4x)\n", med / 2 / rd
}'
if [ -n "$TRACE" ]; then
	echo "access grace slept (us): node type count median p90, and node count mean"
	sed -n 's/^\[n[0-9]*\] bench grace\(_mean\)\{0,1\} /  /p' "$out"
fi
exit "$rc"

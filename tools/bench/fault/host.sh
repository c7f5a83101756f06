#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a first-touch remote read fault spends its time, against
# perftest's 4 KiB RDMA READ in the same 2 VMs in the same run
# (tools/bench/fault/guest.sh measures and traces; this prints the table).
#
#   tools/bench/fault/host.sh [-t SECONDS] [-o FILE]
#
# -o also writes the table to FILE (make bench: build/bench/fault.txt).
# BENCH_FAULTS / BENCH_TRACE_FAULTS: faults timed / traced (200 / 100).
# A benchmark: the exit status says whether every measurement was taken
# and every load was right, not whether the 2x target was met.
set -uo pipefail

LIMIT=600 OUTFILE=
while [ $# -gt 0 ]; do
	case $1 in
	-t) LIMIT=$2; shift 2 ;;
	-o) OUTFILE=$2; shift 2 ;;
	*) echo "usage: $0 [-t SECONDS] [-o FILE]" >&2; exit 2 ;;
	esac
done
export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
out=$(mktemp) table=$(mktemp)
trap 'rm -f "$out" "$table"' EXIT

load0=$(cut -d' ' -f1-3 /proc/loadavg)
cmd="BENCH_FAULTS=${BENCH_FAULTS:-200} BENCH_TRACE_FAULTS=${BENCH_TRACE_FAULTS:-100} bash /ddsm/bench/fault/guest.sh"
bash "$ROOT/qemu/cluster.sh" -n 2 -t "$LIMIT" --name bench-fault -- "$cmd" >"$out"
rc=$?
grep -E '^\[n[01]\] (bench|not ok|# (status|trace|node))' "$out"

reads=$(sed -n 's/^\[n1\] bench read_lat \([0-9.]*\) .*/\1/p' "$out")
gap=$(sed -n 's/^\[n1\] bench gap 0 //p' "$out" | tail -n 1)
if [ "$(wc -w <<<"$reads")" -ne 2 ] || [ -z "$gap" ] ||
	! grep -q '^\[n1\] bench fault 1 total ' "$out" ||
	! grep -q '^\[n0\] bench fault 0 h_total ' "$out"; then
	echo "bench-fault: a measurement is missing (exit $rc)" >&2
	exit 1
fi
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "# first-touch remote read fault, 2 TCG VMs over soft-RoCE, commit $commit, $(date -u '+%F %H:%M UTC')"
	echo "# host load before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
	read -r n med p90 min <<<"$gap"
	awk -v n="$n" -v med="$med" -v p90="$p90" -v min="$min" -v r="${reads//$'\n'/ }" 'BEGIN {
		split(r, rd, " "); ref = (rd[1] + rd[2]) / 2
		printf "ib_read_lat -s 4096 t_typical: %.1f and %.1f us, reference %.1f us\n", rd[1], rd[2], ref
		printf "first-touch read fault (%d, untraced): median %.1f us, p90 %.1f, min %.1f\n", n, med, p90, min
		printf "fault / READ: %.2fx (target: at most 2x): %s\n", med / ref, med / ref <= 2 ? "met" : "not met"
	}'
	echo
	echo "traced faults, per stage (us; each stage on one node's clock):"
	printf '%-6s %-11s %5s %9s %9s\n' node stage n median p90
	sed -n 's/^\[n[01]\] bench fault //p' "$out" | awk '
	{ row[$2] = sprintf("%-6s %-11s %5d %9.1f %9.1f", $1, $2, $3, $4, $5) }
	END {
		n = split("enter post wire dispatch install wake retry map total " \
			  "h_dispatch h_serve h_post h_total", order, " ")
		for (i = 1; i <= n; i++)
			if (order[i] in row)
				print row[order[i]]
	}'
	sed -n 's/^\[n1\] # traced: bench gap 0 \([0-9]*\) \([0-9.]*\) .*/traced faults as the program saw them: \1, median \2 us/p' "$out"
} >"$table"
cat "$table"
[ -n "$OUTFILE" ] && cp "$table" "$OUTFILE"
exit "$rc"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-pmem: what each persistency model costs a write-heavy
# workload on 3 TCG VMs with an NVDIMM each, next to Eventual and to the
# module without pmem= (DRAM only), with the Scope barrier's latency and
# perftest's 4 KiB RDMA READ measured in the same VMs in the same run
# (tools/bench/pmem/guest.sh and ddsm-bench-pmem do the measuring;
# tools/bench/pmem/report.awk makes the table).  QEMU's NVDIMM is a file
# mapping, so its persist timings say little: the table also gives unit
# images persisted, bytes flushed, fences and durable grants per write.
#
#   tools/bench/pmem/host.sh [-t SECONDS_PER_MODEL]   (default 30, in 3 turns;
#                       DRAM only: half before the models, half after)
#
# Env: BENCH_PMEM_MODELS (run order, default "eventual scope read_enf
# strict sync"), BENCH_PMEM_ARGS (more ddsm-bench-pmem options: -u UNITS,
# -k K, -r READ_PCT, -n ROUNDS), BUILD_DIR (default ./build).  Writes
# $BUILD_DIR/bench/pmem.{log,csv,txt} and, with gnuplot, pmem.png there
# (also into docs/img/ with BENCH_PMEM_PLOT=docs).  A benchmark: the exit status says whether
# every measurement was taken and every value read was right, not whether
# the models came out in MINOS's order.
set -uo pipefail

SECS=30
while [ $# -gt 0 ]; do
	case $1 in
	-t) SECS=$2; shift 2 ;;
	*) echo "usage: $0 [-t SECONDS_PER_MODEL]" >&2; exit 2 ;;
	esac
done
[[ $SECS =~ ^[1-9][0-9]*$ ]] || { echo "bench-pmem: -t wants seconds" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
OUT=$BUILD_DIR/bench NAME=bench-pmem
MODELS=${BENCH_PMEM_MODELS:-eventual scope read_enf strict sync}
export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"
mkdir -p "$OUT"
log=$OUT/pmem.log

commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$ROOT" status --porcelain 2>/dev/null | grep -q . && echo "+dirty")
# Other TCG guests on the host take its cores from ours: say how many.
host() { echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(pgrep -c qemu-system) QEMU processes"; }
head="# bench-pmem, commit $commit$dirty, $(date -u +%FT%TZ), $SECS s per model, host before: $(host)"
echo "$head"
# A new NVDIMM file per node: each run formats its namespaces afresh.
rm -f "$BUILD_DIR/qemu/pmem/$NAME"-node*.img
t0=$SECONDS
cmd="BENCH_PMEM_SECS=$SECS BENCH_PMEM_MODELS='$MODELS' BENCH_PMEM_ARGS='${BENCH_PMEM_ARGS:-}' bash /ddsm/bench/pmem/guest.sh"
bash "$ROOT/qemu/cluster.sh" -n 3 -t $((SECS * 35 + 600)) --name "$NAME" --pmem 64 -- "$cmd" >"$log" 2>&1
rc=$?
rm -f "$BUILD_DIR/qemu/pmem/$NAME"-node*.img
grep -E '^\[n[0-9]+\] (not ok|Bail out)' "$log"
head="$head
# host after: $(host); wall time $((SECONDS - t0)) s (boot, ib_read_lat, DRAM only, models, DRAM only)"
echo "# log $log"

{
	echo "$head"
	awk -v models="dram $MODELS" -v csv="$OUT/pmem.csv" \
		-f "$HERE/report.awk" "$log"
} >"$OUT/pmem.txt"
report=$?
cat "$OUT/pmem.txt"
[ $report -eq 0 ] || { echo "bench-pmem: a measurement is missing" >&2; exit 1; }

if command -v gnuplot >/dev/null; then
	gnuplot -e "csv='$OUT/pmem.csv'; png='$OUT/pmem.png'" "$HERE/plot.gp" ||
		echo "bench-pmem: the plot failed" >&2
	[ "${BENCH_PMEM_PLOT:-}" = docs ] && [ -f "$OUT/pmem.png" ] &&
		cp "$OUT/pmem.png" "$ROOT/docs/img/pmem.png"
fi
exit "$rc"

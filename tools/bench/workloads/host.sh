#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the workloads of tools/workloads on 1-4 QEMU nodes, with and
# without cache pressure, the YCSB-C local-memory baseline and the GAM
# micro sharing sweep on 3 nodes, and first the per-stage breakdown of a
# first-touch remote read fault on 2 nodes (tools/bench/fault/host.sh).  Every
# run verifies its values (a wrong value fails make bench).  Writes
# build/bench/{bench.log,ycsb.csv,micro.csv,summary.txt,fault.txt} and PNG
# plots drawn with gnuplot.
#
# Env: BENCH_NODES ("1 2 3 4"), BENCH_RECORDS (5000), BENCH_SECS (10),
# BENCH_PRESSURE_FRAMES (cache_frames under pressure, 256: a sixth of the
# default table's units), BENCH_WORKLOADS ("A B C F"), BUILD_DIR.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${BUILD_DIR:-$ROOT/build}/bench
NODES=${BENCH_NODES:-"1 2 3 4"}
RECORDS=${BENCH_RECORDS:-5000} SECS=${BENCH_SECS:-10}
FRAMES=${BENCH_PRESSURE_FRAMES:-256}
WORKLOADS=${BENCH_WORKLOADS:-"A B C F"}

# A TCG guest on a busy host may find its TSC unstable at boot and fall
# back to HPET, whose every clock_gettime is an emulated MMIO read: 5-10x
# slower per-operation timing than with the TSC.  Every run pins the TSC
# and says what each node used.
export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"
if ! command -v gnuplot >/dev/null; then
	echo "bench: installing gnuplot-nox (Debian)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null ||
		{ echo "bench: gnuplot is needed for the plots" >&2; exit 1; }
fi
mkdir -p "$OUT"
log=$OUT/bench.log
: >"$log"
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# make bench, commit $commit, $(date -u +%FT%TZ), host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$log"

# Where a first-touch remote read fault's time goes, against a raw READ
# (tools/bench/fault/host.sh, 2 nodes, about a minute).
failed=0 t0=$SECONDS
echo "[bench] first-touch fault breakdown, 2 nodes"
echo "# run fault" >>"$log"
if ! bash "$ROOT/tools/bench/fault/host.sh" -o "$OUT/fault.txt" >>"$log" 2>&1; then
	echo "[bench] fault breakdown failed: see $log and build/qemu/logs/"
	failed=1
fi
[ -f "$OUT/fault.txt" ] && grep -E '^(fault|first)' "$OUT/fault.txt" | sed 's/^/[bench]   /'

runs=()
for n in $NODES; do
	runs+=("$n off" "$n on")
done
i=0
for r in "${runs[@]}"; do
	read -r n pressure <<<"$r"
	i=$((i + 1))
	env="BW_SECS=$SECS BW_RECORDS=$RECORDS BW_WORKLOADS='$WORKLOADS'"
	[ "$pressure" = on ] && env="$env BW_FRAMES=$FRAMES"
	# The baseline and the sweep once, on 3 nodes without pressure.
	[ "$n" = 3 ] && [ "$pressure" = off ] && env="$env BW_ANON=1 BW_SHARING='0 50 100'"
	echo "[bench] run $i/${#runs[@]}: $n node(s), cache pressure $pressure ($((SECONDS - t0)) s so far)"
	echo "# run nodes=$n pressure=$pressure" >>"$log"
	bash "$ROOT/qemu/cluster.sh" -n "$n" -t 2400 --name "bench-wl-$n-$pressure" -- \
		"$env bash /ddsm/bench/workloads/guest.sh" |
		sed -u "s/^/$n $pressure /" | tee -a "$log" |
		grep --line-buffered -E ' (bench (ycsb|micro)-total|not ok)' |
		sed -u 's/^/[bench]   /'
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "[bench] run $i failed (exit $rc): see $log and build/qemu/logs/"
		failed=1
	fi
done

python3 "$HERE/report.py" "$log" "$OUT" "$commit" || failed=1
for p in "$OUT"/*.gp; do
	gnuplot "$p" || failed=1
done
cat "$OUT/summary.txt"
[ -f "$OUT/fault.txt" ] && { echo; cat "$OUT/fault.txt"; }
echo "[bench] done in $((SECONDS - t0)) s: $OUT"
exit $failed

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-tx: HADES transactions against the software OCC baseline
# (issue 13) on 3 QEMU nodes x 2 threads, each workload on both backends
# in one boot (tools/bench/tx/guest.sh).  Writes build/bench/tx.log (every
# node's lines), tx.csv and tx.txt (the table with the HADES / OCC
# ratios, tools/bench/tx/report.py).  A run whose audit fails fails it.
#
# Env: TXB_SECS (20), TXB_RECORDS (10000), BUILD_DIR.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${BUILD_DIR:-$ROOT/build}/bench
SECS=${TXB_SECS:-20} RECORDS=${TXB_RECORDS:-10000}

# Per-transaction timing reads the clock: keep the TSC (bench-workloads.sh).
export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"
mkdir -p "$OUT"
log=$OUT/tx.log
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# make bench-tx, commit $commit, $(date -u +%FT%TZ), host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$log"
echo "[bench-tx] 3 nodes x 2 threads, $SECS s per run, 10 runs"
bash "$ROOT/qemu/cluster.sh" -n 3 -t 2400 --name bench-tx -- \
	"TXB_SECS=$SECS TXB_RECORDS=$RECORDS bash /ddsm/bench/tx/guest.sh" |
	tee -a "$log" |
	grep --line-buffered -E '(bench txbench-total|not ok)' |
	sed -u 's/^/[bench-tx]   /'
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || echo "[bench-tx] a run failed (exit $rc): see $log and build/qemu/logs/"
python3 "$HERE/report.py" "$log" "$OUT" "$commit" || rc=1
[ -f "$OUT/tx.txt" ] && cat "$OUT/tx.txt"
exit "$rc"

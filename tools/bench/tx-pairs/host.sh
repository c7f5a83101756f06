#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-tx-pairs: HADES against the OCC baseline on one workload,
# TXB_PAIRS alternating pairs in one boot of 3 nodes x 2 threads
# (tools/bench/tx-pairs/guest.sh), so that a ratio rests on many paired
# runs instead of one (this host's speed drifts by up to 2x).  Prints
# each pair's ratio, their geometric mean with a 95% interval, and the
# trend of each backend over the boot (tools/bench/tx-pairs/report.py);
# writes build/bench/tx-pairs.log and tx-pairs.txt.
#
# Env: TXB_PAIRS (10), TXB_SECS (20), TXB_RECORDS (10000),
#      TXB_WL ("ycsbt -r 50 -v 256"), BUILD_DIR.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${BUILD_DIR:-$ROOT/build}/bench
PAIRS=${TXB_PAIRS:-10} SECS=${TXB_SECS:-20} RECORDS=${TXB_RECORDS:-10000}
WL=${TXB_WL:-ycsbt -r 50 -v 256}

export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"
mkdir -p "$OUT"
log=$OUT/tx-pairs.log
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# make bench-tx-pairs, commit $commit, $WL, $PAIRS pairs of $SECS s, $(date -u +%FT%TZ), host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$log"
bash "$ROOT/qemu/cluster.sh" -n 3 -t $((PAIRS * 2 * (SECS * 3 + 240) + 600)) \
	--name bench-tx-pairs -- \
	"TXB_PAIRS=$PAIRS TXB_SECS=$SECS TXB_RECORDS=$RECORDS TXB_WL='$WL' bash /ddsm/bench/tx-pairs/guest.sh" |
	tee -a "$log" |
	grep --line-buffered -E '(# pair [0-9]+ txbench-total|not ok)' |
	sed -u 's/^/[bench-tx-pairs]   /'
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || echo "[bench-tx-pairs] a run failed (exit $rc): see $log and build/qemu/logs/"
python3 "$HERE/report.py" "$log" "$commit" >"$OUT/tx-pairs.txt" || rc=1
cat "$OUT/tx-pairs.txt"
exit "$rc"

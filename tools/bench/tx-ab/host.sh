#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Before and after, paired: the module and programs built at BASE
# (default HEAD) and the working tree's, one after the other on fresh
# boots of 3 nodes, one timed transactional run each per round
# (tools/bench/tx-ab/guest.sh).  Runs of
# the same workload on different boots of this host differed by 2x in
# throughput, so a change is judged by the ratio within each round, not
# against an earlier table.  Prints each round's commits/s of both and
# their ratio; writes build/bench/tx-ab.log.
#
# usage: tools/bench/tx-ab/host.sh [BASE]
# Env: TXB_SECS (20), TXB_ROUNDS (3), TXB_RECORDS (10000),
#      TXB_WL ("ycsbt -r 50 -v 256"), TXB_BACKEND (hades), BUILD_DIR.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
BASE=${1:-HEAD}
SECS=${TXB_SECS:-20} ROUNDS=${TXB_ROUNDS:-3} RECORDS=${TXB_RECORDS:-10000}
WL=${TXB_WL:-ycsbt -r 50 -v 256} BACKEND=${TXB_BACKEND:-hades}

base_rev=$(git -C "$ROOT" rev-parse --short "$BASE") || exit 2
tree=$(mktemp -d "${TMPDIR:-/tmp}/ddsm-ab.XXXXXX")
trap 'git -C "$ROOT" worktree remove --force "$tree" 2>/dev/null; rm -rf "$tree"' EXIT
git -C "$ROOT" worktree add --detach -q "$tree" "$base_rev" || exit 1
echo "[bench-tx-ab] building $base_rev"
# Its own programs too: ddsmctl refuses a module of another ABI version.
make -C "$tree" -s stage BUILD_DIR="$tree/build" >/dev/null || exit 1
make -C "$ROOT" -s stage || exit 1
ab=$BUILD/stage/ddsm/ab
mkdir -p "$ab/b" "$BUILD/bench"
cp -r "$tree/build/stage/ddsm" "$ab/a"
cp -r "$BUILD/stage/ddsm/ddsm.ko" "$BUILD/stage/ddsm/bin" "$BUILD/stage/ddsm/lib" "$ab/b/"

log=$BUILD/bench/tx-ab.log
export DDSM_KERNEL_ARGS="${DDSM_KERNEL_ARGS:-} tsc=reliable"
echo "# bench-tx-ab: a = $base_rev, b = working tree of $(git -C "$ROOT" rev-parse --short HEAD); $WL --backend $BACKEND; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$log"
rc=0
for ((r = 1; r <= ROUNDS; r++)); do
	for m in a b; do
		echo "[bench-tx-ab] round $r, module $m"
		bash "$ROOT/qemu/cluster.sh" -n 3 -t $((SECS * 6 + 420)) \
			--name bench-tx-ab -- \
			"TXB_MODULE=$m TXB_ROUND=$r TXB_SECS=$SECS TXB_RECORDS=$RECORDS TXB_WL='$WL' TXB_BACKEND=$BACKEND bash /ddsm/bench/tx-ab/guest.sh" \
			>>"$log" || rc=1
	done
done
rm -rf "$ab"
# Each node's own rate, summed per (round, module).
awk '/^\[n[0-9]+\] # ab / {
	r = m = c = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^round=/) r = substr($i, 7)
		if ($i ~ /^module=/) m = substr($i, 8)
		if ($i ~ /^commits_per_s=/) c = substr($i, 15)
	}
	sum[r, m] += c; seen[r] = 1
}
END {
	n = 0; lg = 0
	for (r = 1; r in seen; r++) {
		ratio = sum[r, "a"] ? sum[r, "b"] / sum[r, "a"] : 0
		printf "round %d: a %d commits/s, b %d commits/s, b/a %.3f\n", r, sum[r, "a"], sum[r, "b"], ratio
		if (ratio > 0) { lg += log(ratio); n++ }
	}
	if (n) printf "geometric mean b/a over %d rounds: %.3f\n", n, exp(lg / n)
}' "$log" | tee -a "$log"
[ "$rc" -eq 0 ] || echo "[bench-tx-ab] the run failed (exit $rc): see $log"
exit "$rc"

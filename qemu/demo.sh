#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make demo` (after `make stage`): boot a 3-node cluster, run
# tests/vm/demo/guest.sh on every node, print one clear verdict.
# Env: DEMO_NODES (default 3), DEMO_TIMEOUT (default 300 s), plus everything
# qemu/cluster.sh reads (BUILD_DIR, STAGE, KVER, DDSM_ACCEL, ...).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
N=${DEMO_NODES:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "demo: booting $N QEMU nodes with soft-RoCE (TCG: expect ~15-30 s)..."
"$HERE/cluster.sh" -n "$N" -t "${DEMO_TIMEOUT:-300}" --name demo -- bash /ddsm/tests/demo/guest.sh |
	tee "$out"
rc=${PIPESTATUS[0]}

passed=$(grep -c '^node[0-9]*: exit 0' "$out")
if [ "$rc" -eq 0 ] && [ "$passed" -eq "$N" ]; then
	echo "demo: PASSED on $passed/$N nodes"
	exit 0
fi
echo "demo: FAILED ($passed/$N nodes passed)"
grep -E '^\[n[0-9]+\] not ok|^node[0-9]+: ' "$out" | grep -v ': exit 0' | sed 's/^/demo:   /'
exit 1

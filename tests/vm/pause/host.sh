#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's pause: slow is not dead.  The host freezes node 1, then
# node 2, for 4.5 s each (QEMU monitor; during.sh) while all three run the
# load test (tests/vm/load/guest.sh) with a 7 s peer timeout: suspected
# at 3.5 s of silence, and 2.5 s left for a resumed guest on a busy host
# to answer.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 1200 \
	--name pause --during "PAUSE_MS=4500 bash $ROOT/tests/vm/pause/during.sh" -- \
	"LOAD_SECONDS=60 LOAD_HOG=0 LOAD_PARAMS=peer_timeout_ms=7000 bash /ddsm/tests/load/guest.sh"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's rejoin: a false death.  Node 2 frozen for 8 s (during.sh;
# peer timeout 3 s) with dirty units; nothing it or the others wrote may
# be lost.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
	--name rejoin --during "bash $ROOT/tests/vm/rejoin/during.sh" -- \
	bash /ddsm/tests/rejoin/guest.sh

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's three_node: 3 VMs run guest.sh (soft-RoCE, rping between
# every pair, ddsm.ko loads).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
	--name three-node -- bash /ddsm/tests/three_node/guest.sh

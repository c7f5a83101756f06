#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's one_node: one VM runs guest.sh.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 1 -t 600 \
	--name one-node -- bash /ddsm/tests/one_node/guest.sh

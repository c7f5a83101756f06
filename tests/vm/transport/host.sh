#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's transport: 3 VMs run guest.sh (the RDMA transport's
# self-tests between every pair).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
	--name transport -- bash /ddsm/tests/transport/guest.sh

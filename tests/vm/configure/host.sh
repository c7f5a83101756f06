#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's configure: 3 one-node VMs join with ddsmctl configure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
	--name configure -- bash /ddsm/tests/configure/guest.sh

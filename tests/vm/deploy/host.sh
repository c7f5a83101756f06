#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's deploy: each node from its own cluster.conf, as ddsm.service
# does: modprobe-args, configure --config, wait --config.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 300 \
	--name deploy -- bash /ddsm/tests/deploy/guest.sh

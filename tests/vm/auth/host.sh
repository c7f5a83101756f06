#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's auth: peers authenticate with a cluster key.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 \
	--name auth -- bash /ddsm/tests/auth/guest.sh

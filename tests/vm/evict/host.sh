#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's evict: 2,048 units through a 64-frame cache: 32 times the
# cache, ~5,000 evictions (make soak: EVICT_UNITS=4096).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
	--name evict -- "EVICT_UNITS=${EVICT_UNITS:-2048} bash /ddsm/tests/evict/guest.sh"

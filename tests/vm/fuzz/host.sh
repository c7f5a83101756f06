#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's fuzz: FUZZ_OPS (10,000; make soak: 100,000) random system
# calls per node.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
	--name fuzz -- "FUZZ_OPS=${FUZZ_OPS:-10000} bash /ddsm/tests/fuzz/guest.sh"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's workloads: tools/workloads as correctness tests: YCSB A, C,
# F, D and the GAM micro pattern, a few seconds each, all verified.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 900 \
	--name workloads -- bash /ddsm/tests/workloads/guest.sh

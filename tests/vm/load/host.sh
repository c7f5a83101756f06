#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's load: four guests, 1 minute, a busy loop beside the traffic
# in each (issue 10's load test); make soak runs it for 30 (LOAD_NODES,
# LOAD_SECONDS, LOAD_HOG).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n "${LOAD_NODES:-4}" \
	-t $((${LOAD_SECONDS:-60} + 900)) --name load -- \
	"LOAD_SECONDS=${LOAD_SECONDS:-60} LOAD_HOG=${LOAD_HOG:-1} bash /ddsm/tests/load/guest.sh"

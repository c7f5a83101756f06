#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the units a cluster homes survive a clean unload, a kill and
# a simulated power failure (issue 12).  Five boots of 3 nodes with the
# same NVDIMM files ($BUILD_DIR/qemu/pmem/pmem-node<i>.img, made new
# first), each running tests/vm/pmem.sh with its phase: write + clean
# unload; refusals, read back + write + kill; recover + read back; the
# persist-domain checker + write + power failure + kill; recover + read
# back.
#
#   BUILD_DIR=... bash tests/vm/pmem_host.sh      (after make stage)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
NAME=${PMEM_NAME:-pmem} MIB=${PMEM_MIB:-64}
rm -f "$BUILD_DIR/qemu/pmem/$NAME"-node*.img
rc=0
for phase in 1 2 3 4 5; do
	bash "$ROOT/qemu/cluster.sh" -n 3 -t 600 --name "$NAME" --pmem "$MIB" -- \
		"PMEM_PHASE=$phase bash /ddsm/tests/pmem.sh"
	r=$?
	if [ $r -eq 0 ]; then
		echo "ok - host: boot $phase of 5 passed on every node"
	else
		echo "not ok - host: boot $phase of 5 exited $r"
		rc=1
	fi
done
rm -f "$BUILD_DIR/qemu/pmem/$NAME"-node*.img
exit $rc

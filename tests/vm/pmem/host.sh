#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: the units a cluster homes survive a clean unload, a kill and
# a simulated power failure, per region model (issue 12).  Four boots of
# 3 nodes with the same NVDIMM files ($BUILD_DIR/qemu/pmem/pmem-node<i>.img,
# made new first) run the seven phases of tests/vm/pmem/guest.sh: write + clean
# unload, then refusals, read back + write, and the boot ends with a kill;
# recover + read back + unload, then the persist-domain checker + write +
# power failure, and a kill; recover + read back + unload, then a Scope
# and an Eventual region written without a barrier, and a kill; recover:
# only the Eventual region's stores are there; unload, then Read-Enforced,
# Synchronous, Strict and Eventual regions with the flusher off, and a
# kill; recover: what each model promised is there.
#
#   BUILD_DIR=... bash tests/vm/pmem/host.sh      (after make stage)
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
NAME=${PMEM_NAME:-pmem} MIB=${PMEM_MIB:-64}
rm -f "$BUILD_DIR/qemu/pmem/$NAME"-node*.img
# A boot ends with a kill after phases 2, 4, 6 and 8, with an unload
# otherwise.
boots=("1 2" "3 4" "5 6" "7 8" "9")
for b in "${!boots[@]}"; do
	bash "$CL_REPO/qemu/cluster.sh" -n 3 -t 600 --name "$NAME" --pmem "$MIB" -- \
		"PMEM_PHASES='${boots[b]}' bash /ddsm/tests/pmem/guest.sh"
	r=$?
	if [ $r -eq 0 ]; then
		ok "boot $((b + 1)) of ${#boots[@]} (phases ${boots[b]}) passed on every node"
	else
		nok "boot $((b + 1)) of ${#boots[@]} (phases ${boots[b]}) exited $r"
	fi
done
rm -f "$BUILD_DIR/qemu/pmem/$NAME"-node*.img
tap_exit

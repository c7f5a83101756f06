#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's txbench: issue 13's baseline: SmallBank (3 contention
# levels), YCSB-T 50/50 and 95/5 on the software OCC backend, audited and
# checked for serializability; planted bug caught; then SmallBank and
# YCSB-T on the HADES backend (the kernel's transactions).  TX_OPS
# (transactions per thread and run; make soak: 2000), TX_SB_TOTAL (HADES's
# SmallBank sweep over the cluster; make check: 8000, make soak: 100000),
# TX_BACKENDS.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 1800 \
	--name txbench -- "TX_OPS=${TX_OPS:-100} TX_SB_TOTAL=${TX_SB_TOTAL:-8000} TX_BACKENDS='${TX_BACKENDS:-occ hades}' bash /ddsm/tests/txbench/guest.sh"

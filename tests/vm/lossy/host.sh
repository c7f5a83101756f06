#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's lossy: the load test (tests/vm/load/guest.sh) over links
# that lose 1% of packets and delay every one by 2-10 ms (tc netem on each
# guest's eth0).  The rate keeps netem from reordering (a packet leaves
# no earlier than the one before it), as a RoCE fabric delivers in order:
# with reordering, soft-RoCE's go-back-N alone makes a raw 4 KiB RDMA READ
# 12x slower (172 ms typical instead of 14) and this component 2.2x longer
# (244 s against 111 s, 30x fewer LOCK XADDs).  LOSSY_NETEM overrides.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
exec bash "$ROOT/qemu/cluster.sh" -n 3 -t 1200 \
	--name lossy -- \
	"LOAD_SECONDS=40 LOAD_CACHE_FRAMES=96 LOAD_HOG=0 LOAD_NETEM='${LOSSY_NETEM:-loss 1% delay 6ms 4ms rate 1gbit}' bash /ddsm/tests/load/guest.sh"

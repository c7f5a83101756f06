#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's membound (issue 16, "memory bound"): a resync of a whole
# space to a backup that is slowed down stays within the stated bound, at
# two space sizes (tests/vm/membound/guest.sh says what each node does).
# The bound is the backup's window (DDSM_REPLICA_WINDOW images out at
# once, docs/persistency.md "Memory bounds"): what the home queues for
# the backup and what the backup holds before it persists must not grow
# with the space.
set -uo pipefail

CL_NAME=membound CL_N=2 CL_TIMEOUT=${MB_LIMIT:-900} CL_PMEM=160
CL_CMD="bash /ddsm/tests/membound/guest.sh"
CL_STREAM=0
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

open_cluster
for i in 0 1; do cl_start_node "$i" >/dev/null; done
wait_all 180 ready 0 1 || bail "nodes booted"
for i in 0 1; do cl_send "$i" go; done
for size in 16M 64M; do
	wait_all 600 "mb filled $size" 0 1 ||
		bail "both nodes filled their units ($size)"
	cl_send 0 watch
	wait_all 60 "mb watching $size" 0 || bail "node0 watches ($size)"
	cl_send 1 bounce
	wait_all 300 "mb done $size" 0 1 ||
		bail "node1 reloaded and node0 resynced it ($size)"
	ok "node0 resynced a slowed node1 with a $size space"
	for i in 0 1; do cl_send "$i" next; done
done
wait_all 120 'exit [0-9]+' 0 1
report 0 1
tap_exit

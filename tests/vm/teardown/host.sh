#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's teardown (issue 34, item 5): rmmod in the middle of a
# backup's resync and of a takeover, with nr_backups=1 on pmem
# (tests/vm/teardown/guest.sh says what each node does).  Part 1: node 1,
# node 0's backup, reloads, and node 0 unloads as its resync of node 1
# begins.  Part 2: node 1 is SIGKILLed, and node 2, its backup, unloads as
# its takeover begins.  Every unload succeeds and no console shows a
# splat (make check-debug: KASAN, lockdep).
set -uo pipefail

CL_NAME=teardown CL_N=3 CL_TIMEOUT=${TD_LIMIT:-900} CL_PMEM=64
CL_CMD="bash /ddsm/tests/teardown/guest.sh"
# The guests' lines are printed once, from their logs, when they are done.
CL_STREAM=0
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

open_cluster
for i in 0 1 2; do cl_start_node "$i" >/dev/null; done
wait_all 180 ready 0 1 2 || bail "nodes booted"
for i in 0 1 2; do cl_send "$i" go; done
wait_all 600 "td filled" 0 1 2 || bail "every node filled its units"
ok "every node filled its units of the Scope region"

# Part 1: a resync interrupted by rmmod.
wait_all 60 "td watch" 0 || bail "node0 watches for its resync"
cl_send 1 bounce
wait_all 300 "td back" 0 1 || bail "nodes 0 and 1 loaded again"
ok "node0 unloaded in a resync of node1, and both are back"

# Part 2: a takeover interrupted by rmmod, while it waits for node 0's
# dirty copies of node 1's units.
cl_send 0 dirty
wait_all 300 "td dirty" 0 || bail "node0 holds node1's units dirty"
cl_send 2 watch
wait_all 60 "td watch2" 2 || bail "node2 watches for its takeover"
{ cl_stop_node 1 KILL; } 2>/dev/null
cl_alive 1 && nok "node1's QEMU gone after SIGKILL" ||
	ok "node1 (node2's predecessor) killed with SIGKILL"
wait_all 300 "td done" 2 || bail "node2 took node1 over and unloaded"
for i in 0 2; do cl_send "$i" end; done
wait_all 120 'exit [0-9]+' 0 2
report 0 1 2
tap_exit

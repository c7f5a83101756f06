#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's spoof (issue 34, "spoofing"): a second host on the RoCE
# segment (node 3's VM, not a ddsm node: it takes node 1's address and
# answers no ARP) asks node 0 for a ddsm connection as node 1 all through
# a run of data traffic between nodes 0-2, alternately proving nothing and
# answering with another key's AUTH.  Every ddsm node pins its neighbour
# entries, so that the test is about ddsm and not about ARP
# (tests/vm/spoof/guest.sh).
set -uo pipefail

CL_NAME=spoof CL_N=4 CL_TIMEOUT=${SPOOF_LIMIT:-600}
CL_CMD="bash /ddsm/tests/spoof/guest.sh"
# The guests' lines are printed once, from their logs, when they are done.
CL_STREAM=0
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

open_cluster
for i in 0 1 2 3; do cl_start_node "$i" >/dev/null; done
wait_all 180 ready 0 1 2 3 || bail "nodes booted"
for i in 0 1 2 3; do cl_send "$i" go; done
# The knocking starts once node 1's connection is authenticated: before,
# a request in its name is not a newcomer but the connection itself.
wait_all 180 "sp up" 0 1 2 || bail "nodes 0-2 up with each other"
cl_send 3 knock
wait_all 300 "sp data done" 0 1 2 || bail "the data run ended on nodes 0-2"
cl_send 3 stop
wait_all 120 "sp attempts [0-9]+" 3 || bail "the second host stopped"
attempts=$(grep -aoE "sp attempts [0-9]+" "$CL_LOG/node3.ctl" | tail -n 1)
ok "the second host made ${attempts#sp attempts } connection attempts as node1"
for i in 0 1 2; do cl_send "$i" "${attempts#sp }"; done
wait_all 240 'exit [0-9]+' 0 1 2 3
report 0 1 2 3
tap_exit

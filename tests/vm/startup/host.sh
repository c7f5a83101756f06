#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's startup (issue 15): applications that start the moment
# insmod returns get no SIGBUS.  A cluster of 3 nodes, then one of 4,
# each through STARTUP_CYCLES cycles (default 3; make soak: 20) of: every
# node loads ddsm on the host's word, at the same instant, and runs
# atomics on shared counters at once (guest.sh); every node unloads once
# all are done.  The first message a home or an owner sends to a node it
# has no connection to yet must wait for the connection, not be dropped
# (docs/transport.md, "Sends before a peer is up").
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
# The guests' lines are printed once, from their logs, when they are done.
CL_STREAM=0
CYCLES=${STARTUP_CYCLES:-3}
WAIT_PAST_DEADLINE=1

run_cluster() {
	local i c nodes=$1
	CL_NAME=startup$nodes CL_N=$nodes CL_TIMEOUT=$((300 + CYCLES * 150))
	CL_CMD="STARTUP_CYCLES=$CYCLES STARTUP_SECS=${STARTUP_SECS:-12} bash /ddsm/tests/startup/guest.sh"
	open_cluster
	for ((i = 0; i < nodes; i++)); do cl_start_node "$i"; done
	wait_all 180 ready $(seq 0 $((nodes - 1))) || bail "$nodes nodes booted"
	for ((i = 0; i < nodes; i++)); do cl_send "$i" go; done
	for ((c = 1; c <= CYCLES; c++)); do
		wait_all 300 "cycle $c ready" $(seq 0 $((nodes - 1))) ||
			bail "$nodes nodes: cycle $c ready"
		# As near the same instant as the host can make it.
		for ((i = 0; i < nodes; i++)); do cl_send "$i" "go $c"; done
		wait_all 600 "cycle $c done" $(seq 0 $((nodes - 1))) ||
			bail "$nodes nodes: cycle $c done"
		for ((i = 0; i < nodes; i++)); do cl_send "$i" "unload $c"; done
	done
	wait_all 300 'exit [0-9]+' $(seq 0 $((nodes - 1)))
	report $(seq 0 $((nodes - 1)))
	cl_teardown
	trap - EXIT
}

run_cluster 3
run_cluster 4
tap_exit

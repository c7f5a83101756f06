#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the pause component, run by qemu/cluster.sh --during while
# every guest runs tests/vm/load/guest.sh: slow is not dead.  Once traffic flows
# on every node, node 1 and then node 2 are frozen whole (QEMU monitor
# "stop": no vCPU, no timer, no NIC) for PAUSE_MS and resumed.  The
# silence is longer than half of peer_timeout_ms, so the others suspect
# the frozen node and probe it, but shorter than the time after which an
# unanswered probe means dead: the guests' own checks (nothing declared
# dead, no fault timed out, every total exact) must all pass, and here
# every other node must have suspected each frozen one.
#
# Then node 0's QEMU is stopped whole (SIGSTOP) as long: the guest's
# clocks run on, so it comes back as a guest whose host took its CPU, its
# liveness tick seconds late with every peer silent.  That tick is evidence
# about itself, not its peers (kernel/net/rdma_live.c): it must say so.
#
# Environment: CL_RUN, CL_LOG, CL_N (from cluster.sh); PAUSE_MS (default
# 2000; keep it between half of peer_timeout_ms and peer_timeout_ms minus
# the time a resumed guest needs to answer), PAUSE_NODES (default "1 2"),
# STARVE_NODES (default "0").
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

PAUSE_MS=${PAUSE_MS:-2000}
VICTIMS=${PAUSE_NODES:-"1 2"}
STARVED=${STARVE_NODES-0}

if ! cl_wait_ctl 300 "load traffic"; then
	nok "every node started its traffic"
	exit 1
fi
for v in $VICTIMS; do
	sleep 8
	t=$(cl_freeze "$v" "$PAUSE_MS")
	st=$(cl_monitor "$v" "info status")
	if [[ $st == *running* ]] && [[ $t =~ ^[0-9]+$ ]]; then
		ok "node$v frozen mid-traffic for $t ms (monitor stop/cont), running again"
	else
		nok "node$v frozen and resumed: ${t//$'\n'/ } / $st"
	fi
done
for v in $STARVED; do
	sleep 8
	t=$(cl_starve "$v" "$PAUSE_MS")
	if [[ $t =~ ^[0-9]+$ ]]; then
		ok "node$v's QEMU stopped mid-traffic for $t ms (SIGSTOP/SIGCONT)"
	else
		nok "node$v's QEMU stopped and resumed: $t"
	fi
done

cl_wait_ctl 900 "exit [0-9]+" || nok "every node finished its test"
# load.sh prints each node's peer table last: "peer P: node P state up ...
# deaths D suspicions S ...".
for v in $VICTIMS $STARVED; do
	for ((i = 0; i < CL_N; i++)); do
		[ "$i" = "$v" ] && continue
		line=$(grep -E "peer $v: node $v " "$CL_LOG/node$i.out" | tail -n 1)
		if [[ $line =~ deaths\ 0\ suspicions\ [1-9] ]]; then
			ok "node$i suspected node$v while it was frozen, and did not declare it dead"
		else
			nok "node$i suspected frozen node$v without declaring it dead: ${line:-no peer line}"
		fi
	done
done
for v in $STARVED; do
	if grep -qaE "late liveness ticks [1-9]" "$CL_LOG/node$v.out"; then
		ok "node$v, its CPU back, judged no peer on its late tick"
	else
		nok "node$v, its CPU back, logged no late tick: $(grep -a 'late liveness' "$CL_LOG/node$v.out")"
	fi
done
tap_exit

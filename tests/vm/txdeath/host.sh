#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: a node dies in the middle of HADES transactions (issue 13).
#
#   BUILD_DIR=... bash tests/vm/txdeath/host.sh      (after make stage)
#
# Boots 3 nodes running tests/vm/txdeath/guest.sh: every node moves money
# between accounts homed on nodes 0 and 1 in transactions.  Once every
# node runs, node 2's QEMU is SIGKILLed (its transactions may hold the
# partial lock at both survivors).  The survivors go on, then node 0
# checks that the total over the accounts is unchanged: no commit of the
# dead coordinator is visible in part.  Exit 0 iff every check passed.
set -uo pipefail

CL_NAME=${TXD_NAME:-txdeath} CL_N=3 CL_TIMEOUT=${TXD_LIMIT:-400}
VICTIM=2 SURVIVORS="0 1"
CL_CMD="TXD_SECS=${TXD_SECS:-40} TXD_DELAY_MS=${TXD_DELAY_MS:-50} TXD_GAP_MS=${TXD_GAP_MS:-400} bash /ddsm/tests/txdeath/guest.sh"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
# The guests' lines are printed once, from their logs, when they are done.
CL_STREAM=0
# Each wait here has always had its own bound only, not TXD_LIMIT's.
WAIT_PAST_DEADLINE=1

open_cluster
for i in 0 1 2; do cl_start_node "$i"; done
wait_all 120 ready 0 1 2 || bail "nodes booted"
for i in 0 1 2; do cl_send "$i" go; done
wait_all 200 "txd running" 0 1 2 || bail "every node runs transactions"
ok "every node runs transactions"
sleep "${TXD_KILL_AFTER:-5}"
{ cl_stop_node "$VICTIM" KILL; } 2>/dev/null
cl_alive "$VICTIM" && nok "node$VICTIM's QEMU gone after SIGKILL" ||
	ok "node$VICTIM's QEMU killed with SIGKILL mid-run"
wait_all 200 "txd done" $SURVIVORS
for i in $SURVIVORS; do
	if cl_wait_marker "$i" 'exit [0-9]+' 60; then
		m=$(cl_marker "$i" 'exit [0-9]+')
		[ "$m" = "exit 0" ] && ok "node$i: guest exit 0" || nok "node$i: guest $m"
	fi
	grep -aE "^(not )?ok - |^# node" "$CL_LOG/node$i.out" | tr -d '\r' | sed "s/^/[n$i] /"
done
# What the victim said before it was killed.
grep -aE "^(not )?ok - |^# node" "$CL_LOG/node$VICTIM.out" | tr -d '\r' | sed "s/^/[n$VICTIM] /"
sum() { cat "$CL_LOG"/node[01].out | tr -d '\r' | grep -o "$1 [0-9]*" | awk '{ s += $2 } END { print s + 0 }'; }
echo "# txdeath: locked commits of node$VICTIM at the survivors: $(sum home_in_doubt) in doubt, $(sum home_rollbacks) rolled back, $(sum home_rollforwards) rolled forward"
echo "# txdeath: $failed of $total host checks failed; logs in $CL_LOG"
[ "$failed" -eq 0 ]

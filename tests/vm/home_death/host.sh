#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: a home dies while the others fault on its units.
#
#   BUILD_DIR=... bash tests/vm/home_death/host.sh      (after make stage)
#
# Boots 3 nodes running tests/vm/home_death/guest.sh; once the survivors
# (0, 1) are faulting on units homed on node 2, SIGKILLs node 2's QEMU.
# The survivors check that the fault in flight and every later fault on
# node 2's units get SIGBUS within peer_timeout + margin, and that units
# homed on the survivors stay fully usable.  TAP-like lines; exit 0 iff
# all passed; bounded by HD_LIMIT seconds; no QEMU survives the script.
set -uo pipefail

CL_NAME=${HD_NAME:-home-death} CL_N=3 CL_TIMEOUT=${HD_LIMIT:-240}
VICTIM=2 SURVIVORS="0 1"
CL_CMD="HD_TIMEOUT_MS=3000 HD_MARGIN_MS=3000 bash /ddsm/tests/home_death/guest.sh"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

open_cluster
for i in 0 1 2; do cl_start_node "$i"; done
wait_all 120 ready 0 1 2 || exit 1
for i in 0 1 2; do cl_send "$i" go; done
if wait_all 120 "hd up" 0 1 2 && wait_all 60 "hd looping" $SURVIVORS; then
	{ cl_stop_node "$VICTIM" KILL; } 2>/dev/null
	cl_alive "$VICTIM" && nok "node$VICTIM killed" ||
		ok "node$VICTIM (a home) killed with SIGKILL while the others fault on its units"
	wait_all 120 "hd done" $SURVIVORS
fi
for i in $SURVIVORS; do
	wait_all 30 'exit [0-9]+' "$i" || continue
	m=$(cl_marker "$i" 'exit [0-9]+')
	[ "$m" = "exit 0" ] && ok "node$i: guest checks passed" ||
		nok "node$i: guest script $m"
done
for i in $SURVIVORS; do cl_send "$i" release; done
sleep 1
for i in 0 1 2; do cl_stop_node "$i"; done
for i in 0 1 2; do
	sed "s/^/[n$i] /" "$CL_LOG/node$i.out"
	console_clean "$i"
done
echo "# home_death: logs in $CL_LOG"
tap_exit

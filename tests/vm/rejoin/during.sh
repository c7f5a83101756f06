#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the rejoin component, run by qemu/cluster.sh --during while
# every guest runs tests/vm/rejoin/guest.sh: once every node has filled its
# units, the last node is frozen whole (QEMU monitor "stop") for
# RJ_PAUSE_MS, longer than peer_timeout_ms, so the others declare it dead
# while it is alive, and then resumed.
#
# Environment: CL_RUN, CL_LOG, CL_N (from cluster.sh); RJ_PAUSE_MS
# (default 8000; the module's peer_timeout_ms is 3000).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

PAUSE_MS=${RJ_PAUSE_MS:-8000}
VICTIM=$((CL_N - 1))

if ! cl_wait_ctl 400 "rj filled"; then
	nok "every node filled its units"
	exit 1
fi
t=$(cl_freeze "$VICTIM" "$PAUSE_MS")
st=$(cl_monitor "$VICTIM" "info status")
if [[ $st == *running* ]] && [[ $t =~ ^[0-9]+$ ]] && [ "$t" -ge "$PAUSE_MS" ]; then
	ok "node$VICTIM frozen for $t ms (monitor stop/cont), running again"
else
	nok "node$VICTIM frozen and resumed: ${t//$'\n'/ } / $st"
fi
cl_wait_ctl 900 "exit [0-9]+" || nok "every node finished its test"
tap_exit

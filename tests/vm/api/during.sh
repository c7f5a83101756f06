#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the api component while the guests run (qemu/cluster.sh
# --during): when node 0 says "api freeze1", freeze node 1 whole (QEMU
# monitor stop/cont) for API_FREEZE_MS (1200): longer than node 0's
# fault_timeout_ms then (300), so its PERSIST to node 1 times out
# (ETIMEDOUT), and well under half of peer_timeout_ms (3000), so node 1 is
# not declared dead.  CL_RUN, CL_LOG, CL_N come from cluster.sh.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../../qemu/lib.sh"

MS=${API_FREEZE_MS:-1200}
end=$((SECONDS + 900))
until cl_ctl_has 0 "api freeze1"; do
	if [ "$SECONDS" -ge "$end" ] || cl_ctl_has 0 "exit [0-9]+"; then
		echo "not ok - host: node0 asked for node1's freeze"
		exit 1
	fi
	sleep 0.2
done
t=$(cl_freeze 1 "$MS")
if [[ $t =~ ^[0-9]+$ ]] && [ "$t" -ge "$MS" ]; then
	echo "ok - host: node1 frozen for $t ms while node0 asked it to persist"
else
	echo "not ok - host: node1 frozen for $MS ms (${t//$'\n'/ })"
	exit 1
fi

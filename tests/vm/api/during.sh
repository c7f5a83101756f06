#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the api component while the guests run (qemu/cluster.sh
# --during): when node 0 says "api freeze-commit" and then "api freeze1",
# freeze node 1 whole (QEMU monitor stop/cont) for API_FREEZE_MS (1200):
# longer than six times node 0's fault_timeout_ms the first time (100),
# so its COMMIT to node 1 times out (ETIMEDOUT), and than that timeout the
# second time (300), so its PERSIST does; well under half of
# peer_timeout_ms (3000), so node 1 is not declared dead.  CL_RUN, CL_LOG, CL_N come from cluster.sh.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../../qemu/lib.sh"

MS=${API_FREEZE_MS:-1200}
end=$((SECONDS + 900))
# freeze WHY: when node 0 asks (its line "api WHY"), node 1 stopped MS ms.
freeze() {
	until cl_ctl_has 0 "api $1\$"; do
		if [ "$SECONDS" -ge "$end" ] || cl_ctl_has 0 "exit [0-9]+"; then
			echo "not ok - host: node0 asked for node1's freeze ($1)"
			exit 1
		fi
		sleep 0.2
	done
	t=$(cl_freeze 1 "$MS")
	if [[ $t =~ ^[0-9]+$ ]] && [ "$t" -ge "$MS" ]; then
		echo "ok - host: node1 frozen for $t ms ($2)"
	else
		echo "not ok - host: node1 frozen for $MS ms (${t//$'\n'/ })"
		exit 1
	fi
}
freeze freeze-commit "while node0 committed to it"
freeze freeze1 "while node0 asked it to persist"

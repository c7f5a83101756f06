#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of late_home while the guests run (qemu/cluster.sh --during):
# once every early node says "late_home waiting" (its fault on a unit of
# the late node is about to wait), LATE_S seconds (default 4) later the
# late node is told to load ddsm.  CL_RUN, CL_LOG, CL_N come from
# cluster.sh.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../../qemu/lib.sh"

late=$((CL_N - 1))
end=$((SECONDS + 600))
# cl_send needs cluster.sh's QEMU pids, which a --during command has not.
tell_late() { echo late 1<>"$CL_RUN/node$late.ctl.in"; }
for ((i = 0; i < late; i++)); do
	until cl_ctl_has "$i" "late_home waiting"; do
		if [ "$SECONDS" -ge "$end" ] || cl_ctl_has "$i" "exit [0-9]+"; then
			echo "not ok - host: node$i started the fault that waits for node$late"
			tell_late
			exit 1
		fi
		sleep 0.2
	done
done
sleep "${LATE_S:-4}"
tell_late
echo "ok - host: node$late told to load ddsm ${LATE_S:-4} s after the others' faults began"

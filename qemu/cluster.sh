#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot N QEMU guests on one private L2 segment with soft-RoCE, run COMMAND
# (bash -c) on all of them together, collect output, tear everything down.
# See docs/qemu.md.  Exit status 0 iff COMMAND exited 0 on every node.
set -uo pipefail

usage() {
	cat >&2 <<'EOF'
usage: qemu/cluster.sh [-n N] [-t SECONDS] [--name NAME] [--mem MiB] [--pmem MiB]
                      [--during HOSTCMD] -- COMMAND...
  -n N          number of nodes (default 3)
  -t SECONDS    wall-clock limit for the whole run (default 300)
  --name NAME   run name: log dir and pmem file names (default cluster)
  --mem MiB     guest RAM (default 512)
  --pmem MiB    add a file-backed NVDIMM of this size per node, kept in
                $BUILD_DIR/qemu/pmem/NAME-node<i>.img across runs (default none)
  --during HOSTCMD  run HOSTCMD (bash -c) on the host while the guests run
                COMMAND, with CL_RUN (per-node monitor sockets node<i>.mon),
                CL_LOG (node<i>.ctl/.out logs) and CL_N exported; the run
                fails if it exits non-zero.  For tests that act on the VMs
                from outside (pausing one, say).
EOF
	exit 2
}

CL_N=3 CL_TIMEOUT=300 CL_NAME=cluster CL_MEM=512 CL_PMEM=0 CL_DURING=
while [ $# -gt 0 ]; do
	case $1 in
	-n) CL_N=$2; shift 2 ;;
	-t) CL_TIMEOUT=$2; shift 2 ;;
	--name) CL_NAME=$2; shift 2 ;;
	--mem) CL_MEM=$2; shift 2 ;;
	--pmem) CL_PMEM=$2; shift 2 ;;
	--during) CL_DURING=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ $# -gt 0 ] || usage
for v in "$CL_N" "$CL_TIMEOUT" "$CL_MEM" "$CL_PMEM"; do
	[[ $v =~ ^[0-9]+$ ]] || usage
done
[ "$CL_N" -ge 1 ] && [ "$CL_N" -le 200 ] || usage
CL_CMD="$*"

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Whatever happens (success, failure, timeout, Ctrl-C, kill), no QEMU stays.
trap cl_teardown EXIT
trap 'cl_msg "interrupted"; exit 130' INT
trap 'cl_msg "terminated"; exit 143' TERM

START=$SECONDS
cl_setup || { cl_msg "image build failed"; exit 1; }
cl_msg "logs: $CL_LOG"
cl_msg "booting $CL_N node(s) (${DDSM_ACCEL:-tcg}, mcast port $CL_PORT, limit ${CL_TIMEOUT}s)"
declare -a state=() t_go=() t_end=()
for ((i = 0; i < CL_N; i++)); do
	cl_start_node "$i"
	state[i]=booting
done

# poll_all PHASE: refresh state[] from the markers; LEFT = nodes still in
# PHASE (booting or running).  A QEMU that is gone without the marker the
# phase waits for has crashed (its ctl reader is drained first).
poll_all() {
	local i m want alive
	LEFT=0
	for ((i = 0; i < CL_N; i++)); do
		[ "${state[i]}" = "$1" ] || continue
		want=ready
		[ "$1" = running ] && want='exit [0-9]+'
		alive=1
		if ! cl_alive "$i"; then
			alive=0
			for _ in 1 2 3 4 5; do kill -0 "${CL_CTLPID[i]}" 2>/dev/null || break; sleep 0.2; done
		fi
		if m=$(cl_marker "$i" "$want"); then
			if [ "$1" = booting ]; then
				state[i]=ready
				cl_msg "node$i ready ($((SECONDS - START))s)"
			else
				state[i]="exit ${m#exit }"
				t_end[i]=$SECONDS
				cl_msg "node$i done: ${state[i]} ($((SECONDS - START))s)"
			fi
		elif [ $alive -eq 0 ]; then
			state[i]=crashed
			cl_msg "node$i crashed (QEMU exited; see node$i.console)"
		else
			LEFT=$((LEFT + 1))
		fi
	done
}

# Phase 1: all nodes ready.  A node that dies while booting aborts the run.
while :; do
	poll_all booting
	[[ " ${state[*]} " == *" crashed "* ]] && break
	[ "$LEFT" -eq 0 ] && break
	[ "$SECONDS" -ge "$CL_DEADLINE" ] && break
	sleep 0.2
done

if [ "$LEFT" -eq 0 ] && [[ " ${state[*]} " != *" crashed "* ]]; then
	cl_msg "all $CL_N nodes ready after $((SECONDS - START))s; running: $CL_CMD"
	for ((i = 0; i < CL_N; i++)); do
		state[i]=running
		t_go[i]=$SECONDS
		cl_send "$i" go
	done
	if [ -n "$CL_DURING" ]; then
		CL_RUN=$CL_RUN CL_LOG=$CL_LOG CL_N=$CL_N bash -c "$CL_DURING" &
		during=$!
	fi
	# Phase 2: wait for every command to finish, crash or hit the limit.
	while poll_all running && [ "$LEFT" -gt 0 ] && [ "$SECONDS" -lt "$CL_DEADLINE" ]; do
		sleep 0.2
	done
	# Phase 3: let finished nodes power off together.
	for ((i = 0; i < CL_N; i++)); do cl_send "$i" release; done
	for ((t = 0; t < 150; t++)); do
		alive=0
		for ((i = 0; i < CL_N; i++)); do
			[ "${state[i]}" != running ] && cl_alive "$i" && alive=1
		done
		[ $alive -eq 0 ] && break
		sleep 0.2
	done
fi

# Stop everything still up (timed-out nodes included) before the summary,
# so the streamed output is complete.
for ((i = 0; i < CL_N; i++)); do
	case ${state[i]} in booting | running) state[i]=timeout ;; esac
	cl_alive "$i" && kill -TERM "${CL_QPID[i]}"	# all at once, then reap
done
for ((i = 0; i < CL_N; i++)); do cl_stop_node "$i"; done

rc=0 ok=0
if [ -n "${during:-}" ]; then
	# It watches the nodes' logs and ends once they are done; not longer.
	for ((t = 0; t < 150; t++)); do kill -0 "$during" 2>/dev/null || break; sleep 0.2; done
	kill "$during" 2>/dev/null
	wait "$during" || { rc=1; echo "cluster: --during command failed"; }
fi
for ((i = 0; i < CL_N; i++)); do
	s=${state[i]} extra=
	[ "$s" = "exit 0" ] && ok=$((ok + 1)) || rc=1
	[ -n "${t_end[i]:-}" ] && extra=" after $((t_end[i] - t_go[i]))s"
	# A kernel splat fails the run even if the command exited 0.
	if grep -qE 'Oops|BUG:|Kernel panic|WARNING:|INFO: task .* blocked' \
		"$CL_LOG/node$i.console"; then
		extra+=" (kernel Oops/BUG/WARNING: see node$i.console)"
		echo "not ok - node$i: kernel console free of Oops/BUG/WARNING"
		grep -m 5 -E 'Oops|BUG:|Kernel panic|WARNING:|INFO: task .* blocked' \
			"$CL_LOG/node$i.console" | sed "s/^/# node$i: /"
		rc=1
	fi
	case $s in
	timeout) s="TIMEOUT (limit ${CL_TIMEOUT}s)" ;;
	crashed) s="CRASHED (QEMU exited before the command finished)" ;;
	ready) s="NOT RUN (booted, but not every node became ready)" ;;
	esac
	echo "node$i: $s$extra"
done
echo "cluster: $ok/$CL_N nodes exited 0 in $((SECONDS - START))s; logs in $CL_LOG"
exit $rc

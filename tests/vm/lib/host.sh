# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The host-side library of the VM tests: sourced by a component's host.sh
# (or during.sh, the script cluster.sh --during runs beside the guests),
# not run.  It brings tap.sh (lines as "host: ...") and qemu/lib.sh (the
# cl_* functions).
#
# A host.sh that drives the VMs itself (kills one, boots it again) calls
# open_cluster once it has set CL_NAME, CL_N, CL_TIMEOUT (CL_PMEM, CL_CMD);
# a during.sh must not: the VMs, and CL_RUN, are cluster.sh's.
#
#   open_cluster            the EXIT/INT/TERM traps (no QEMU outlives the
#                           script), cl_setup, the log directory's name
#   left / within SECS      seconds to the run's deadline / SECS, no later
#                           than the deadline
#   wait_all SECS REGEX NODES...  every node sent a control line matching
#                           ^REGEX within SECS (cut at the deadline; not
#                           with WAIT_PAST_DEADLINE=1); nok for the first
#                           that did not
#   bail TEXT               nok, "# NAME: bailed out", exit 1
#   kill_all                SIGKILL every node's QEMU, reap its helpers
#   console_clean I         nok (and the first lines) if node I's kernel
#                           console shows an Oops, BUG, WARNING or a
#                           blocked task; prints nothing otherwise
#
# TEST_NAME (default: the component's folder name) names the run in the
# comment lines.

# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# shellcheck source=qemu/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../qemu/lib.sh"
# shellcheck disable=SC2034 # tap.sh's
TAP_WHO=host
TEST_NAME=${TEST_NAME:-$(basename "$(dirname "$(readlink -f "$0")")")}

open_cluster() {
	trap cl_teardown EXIT
	trap 'cl_msg "interrupted"; exit 130' INT
	trap 'cl_msg "terminated"; exit 143' TERM
	cl_setup || bail "image build failed"
	cl_msg "logs: $CL_LOG"
}

left() { echo $((CL_DEADLINE - SECONDS > 0 ? CL_DEADLINE - SECONDS : 0)); }
within() {
	if [ "${WAIT_PAST_DEADLINE:-0}" = 1 ]; then
		echo "$1"
	else
		echo $(($1 < $(left) ? $1 : $(left)))
	fi
}

wait_all() {
	local secs=$1 re=$2 i rc
	shift 2
	for i in "$@"; do
		cl_wait_marker "$i" "$re" "$(within "$secs")"
		rc=$?
		[ $rc -eq 0 ] && continue
		if [ $rc -eq 1 ]; then
			nok "node$i: '$re' (QEMU exited)"
		else
			nok "node$i: '$re' within ${secs}s"
		fi
		return 1
	done
}

# report I...: what those nodes' guests checked (their ok/not ok lines
# and comments, node-tagged), and whether their consoles stayed clean.
report() {
	local i
	for i in "$@"; do
		grep -aE "^(not )?ok - |^# node" "$CL_LOG/node$i.out" |
			tr -d '\r' | sed "s/^/[n$i] /"
		console_clean "$i"
	done
}

# Each node's last lines, so that a run which bails says why even where
# its logs are gone (CI keeps only what the run printed).
bail_tails() {
	local i f
	for ((i = 0; i < ${CL_N:-0}; i++)); do
		for f in out console; do
			[ -s "${CL_LOG:-}/node$i.$f" ] || continue
			tail -n 15 "$CL_LOG/node$i.$f" | tr -d '\r' |
				sed "s/^/# node$i.$f: /"
		done
	done
}

bail() {
	nok "$*"
	bail_tails
	echo "# $TEST_NAME: bailed out; logs in ${CL_LOG:-?}"
	exit 1
}

kill_all() {
	local i
	for ((i = 0; i < CL_N; i++)); do cl_alive "$i" && kill -KILL "${CL_QPID[i]}"; done
	for ((i = 0; i < CL_N; i++)); do cl_stop_node "$i" KILL 2>/dev/null; done
}

console_clean() {
	local re='Oops|BUG:|Kernel panic|WARNING:|INFO: task .* blocked'
	grep -qE "$re" "$CL_LOG/node$1.console" || return 0
	nok "node$1: kernel console free of Oops/BUG/WARNING"
	grep -m 5 -E "$re" "$CL_LOG/node$1.console" | sed "s/^/# node$1: /"
	return 1
}

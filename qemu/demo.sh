#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make demo` (after `make stage`): the three pillars on 3
# QEMU nodes with soft-RoCE and a file-backed NVDIMM each, one clear
# verdict at the end.
#   boot 1  on every node, tests/vm/demo/guest.sh: rxe0, ddsm as a one-node DSM
#           shared by two processes, ddsmctl status, an rping with the next
#           node, then one coherent memory over the 3 nodes (coherence);
#           then tests/vm/demo/pillars.sh: money moved in HADES
#           transactions and audited (transactions), a record written with
#           ddsm_write_durable(); the record's home is then SIGKILLed here
#   boot 2  the whole cluster again on the same NVDIMMs: the killed home
#           recovers its namespace and every node reads the record back
#           (persistence)
# The transaction and persistence programs are README.md's own examples
# (tests/api_host/examples.sh builds them into the stage).
# Env: DEMO_TIMEOUT (default 600 s, both boots), plus what qemu/lib.sh
# reads (BUILD_DIR, STAGE, KVER, DDSM_ACCEL, ...).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
# The stage of make stage (tests/vm/demo/ is in it), plus the demo's
# programs.
W=$BUILD_DIR/demo
rm -rf "$W"
mkdir -p "$W/stage/ddsm/demo/examples"
cp -a "${STAGE:-$BUILD_DIR/stage}/ddsm/." "$W/stage/ddsm/"
if ! bash "$ROOT/tests/api_host/examples.sh" extract "$W/stage/ddsm/demo/examples" "$ROOT/README.md" ||
	! bash "$ROOT/tests/api_host/examples.sh" build "$W/stage/ddsm/demo/examples"; then
	echo "demo: FAILED (README.md's examples do not build)"
	exit 1
fi
STAGE=$W/stage
CL_NAME=demo CL_N=3 CL_TIMEOUT=${DEMO_TIMEOUT:-600} CL_PMEM=64 CL_CMD=
. "$HERE/lib.sh"
trap cl_teardown EXIT
trap 'cl_msg "interrupted"; exit 130' INT
trap 'cl_msg "terminated"; exit 143' TERM
rm -f "$BUILD_DIR/qemu/pmem/demo-node"*.img

say() { echo "demo: $*"; }
cl_setup || { say "FAILED (image build)"; exit 1; }
declare -a result=()
# boot CMD: start every node on CMD, wait until all are ready, let them go.
boot() {
	local i
	CL_CMD=$1
	for i in 0 1 2; do cl_start_node "$i"; done
	for i in 0 1 2; do
		cl_wait_marker "$i" ready 240 || { say "node$i did not boot"; return 1; }
	done
	for i in 0 1 2; do cl_send "$i" go; done
}
# finish I...: every node's exit status into result[], then power them
# off together (a node done early still serves the units it homes).
finish() {
	local i m
	for i in "$@"; do
		cl_wait_marker "$i" 'exit [0-9]+' >/dev/null
		m=$(cl_marker "$i" 'exit [0-9]+') || m="no exit"
		result[i]=$m
	done
	for i in "$@"; do cl_send "$i" release; done
	sleep 2
	for i in "$@"; do cl_stop_node "$i"; done
}

say "booting 3 QEMU nodes with soft-RoCE and an NVDIMM each (TCG: expect 2-4 minutes in all)..."
boot "bash /ddsm/tests/demo/guest.sh && DEMO_PHASE=1 bash /ddsm/tests/demo/pillars.sh" || exit 1
victim=
declare -a done_early=()
until [ -n "$victim" ] || [ "$SECONDS" -ge "$CL_DEADLINE" ]; do
	for i in 0 1 2; do
		cl_marker "$i" "demo crash-me" >/dev/null && victim=$i
		cl_marker "$i" 'exit [0-9]+' >/dev/null && [ -z "${done_early[i]:-}" ] && done_early[i]=1
	done
	[ "${#done_early[@]}" -eq 3 ] && break
	sleep 0.5
done
if [ -z "$victim" ]; then
	finish 0 1 2
	say "FAILED (no node reached the crash: ${result[*]})"
	exit 1
fi
say "node$victim homes the durable record: killing its VM (SIGKILL, a crash)"
cl_stop_node "$victim" KILL 2>/dev/null
others=()
for i in 0 1 2; do [ "$i" != "$victim" ] && others+=("$i"); done
finish "${others[@]}"
bad=
for i in "${others[@]}"; do [ "${result[i]}" = "exit 0" ] || bad+=" node$i: ${result[i]}"; done
if [ -n "$bad" ]; then
	say "FAILED (boot 1:$bad)"
	exit 1
fi

say "restarting the cluster on the same NVDIMMs: node$victim recovers its namespace"
boot "DEMO_PHASE=2 bash /ddsm/tests/demo/pillars.sh" || exit 1
finish 0 1 2
passed=0
for i in 0 1 2; do [ "${result[i]}" = "exit 0" ] && passed=$((passed + 1)); done
if [ "$passed" -eq 3 ]; then
	say "PASSED on $passed/3 nodes"
	exit 0
fi
say "FAILED ($passed/3 nodes passed: ${result[*]})"
grep -hE '^not ok' "$CL_LOG"/node*.out | sed 's/^/demo:   /'
exit 1

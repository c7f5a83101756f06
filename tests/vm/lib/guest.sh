# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest-side helpers for the multi-node tests that run programs on a
# loaded cluster (coherence.sh, litmus.sh); sourced, not run.
#
#   ok/nok/check                TAP lines; nok sets $failed
#   wait_for SECS CMD...        poll CMD every 0.1 s, bounded
#   diag                        this node's ddsm counters and kernel messages
#   load_cluster                insmod as node $ME of $IPS, wait for every peer
#                               (ddsmctl wait, 60 s), exit 1 with diag on failure
#   run NAME TIMEOUT CMD...     a test program, bounded; its TAP lines pass
#                               through, then one line for its exit status
#   check_no_sigbus             no fault ended in SIGBUS (fault_errors 0)

set -u
ME=${DDSM_NODE_ID:?} N=${DDSM_NR_NODES:?} IPS=${DDSM_NODE_IPS:?}
DDSM=${DDSM:-/ddsm}
CTL=$DDSM/bin/ddsmctl
TESTS=$DDSM/tests
failed=0
t_start=$SECONDS

ok() { echo "ok - node$ME: $*"; }
nok() { echo "not ok - node$ME: $*"; failed=1; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

peers_up() { [ "$($CTL status 2>/dev/null | grep -c 'state up')" -ge $((N - 1)) ]; }
wait_for() {
	local n=$(($1 * 10)); shift
	until "$@"; do ((n-- > 0)) || return 1; sleep 0.1; done
}
diag() {
	echo "# node$ME: --- ddsmctl status ---"
	$CTL status 2>&1 | sed "s/^/# node$ME: /"
	echo "# node$ME: --- dmesg | grep ddsm ---"
	dmesg | grep -i ddsm | tail -n 60 | sed "s/^/# node$ME: /"
}

load_cluster() {
	if ! insmod $DDSM/ddsm.ko node_id="$ME" nodes="$IPS"; then
		nok "insmod ddsm.ko node_id=$ME nodes=$IPS"
		diag
		exit 1
	fi
	ok "insmod ddsm.ko node_id=$ME nodes=$IPS"
	if ! $CTL wait --timeout 60; then
		nok "all $((N - 1)) peers up within 60 s (ddsmctl wait)"
		diag
		exit 1
	fi
	ok "all $((N - 1)) peers up ($((SECONDS - t_start)) s)"
}

run() {
	local name=$1 limit=$2 t0=$SECONDS rc
	shift 2
	timeout "$limit" "$@"
	rc=$?
	echo "# node$ME: $name exit $rc after $((SECONDS - t0)) s"
	if [ $rc -ne 0 ]; then
		nok "$name (exit $rc$([ $rc -eq 124 ] && echo ', killed by timeout'))"
		diag
	else
		ok "$name"
	fi
}

# run_bench NAME LIMIT CMD...: run as run(), the program's "bench" lines
# (timings, not checks) printed as comments.
run_bench() {
	local name=$1 limit=$2
	shift 2
	run "$name" "$limit" bash -c '"$@" | sed "s/^bench /# bench /"; exit ${PIPESTATUS[0]}' _ "$@"
}

check_no_sigbus() {
	check "no fault gave SIGBUS (fault_errors 0)" \
		bash -c "$CTL status | grep -q '^fault_errors: 0$'"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: load ddsm.ko as node $DDSM_NODE_ID of
# the cluster, wait until every peer is up, then run the coherence tests
# (ddsm-test-counters: LOCK XADD totals; ddsm-test-data: 1 MiB written on
# one node, read on the others, rewritten, false sharing).
#
#   qemu/cluster.sh -n 3 -t 900 --name coherence -- bash /ddsm/tests/coherence.sh
#
# TAP-like output; exit 0 iff all ok.  On a failure the node's ddsm kernel
# messages and counters are printed as "#" lines.  Every wait is bounded
# (the programs' barriers give up after 120 s, timeout(1) kills a stuck one).

set -u
ME=${DDSM_NODE_ID:?} N=${DDSM_NR_NODES:?} IPS=${DDSM_NODE_IPS:?}
DDSM=${DDSM:-/ddsm}
CTL=$DDSM/bin/ddsmctl
TESTS=$DDSM/tests
COUNTER_ROUNDS=${COUNTER_ROUNDS:-10000}
failed=0
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
# run NAME TIMEOUT CMD...: a test program; its own TAP lines pass through.
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

t_start=$SECONDS
if ! insmod $DDSM/ddsm.ko node_id="$ME" nodes="$IPS"; then
	nok "insmod ddsm.ko node_id=$ME nodes=$IPS"
	diag
	exit 1
fi
ok "insmod ddsm.ko node_id=$ME nodes=$IPS"
if ! wait_for 60 peers_up; then
	nok "all $((N - 1)) peers up within 60 s"
	diag
	exit 1
fi
ok "all $((N - 1)) peers up ($((SECONDS - t_start)) s)"

run ddsm-test-counters 400 $TESTS/ddsm-test-counters "$COUNTER_ROUNDS"
run ddsm-test-data 300 $TESTS/ddsm-test-data

check "no fault gave SIGBUS (fault_errors 0)" \
	bash -c "$CTL status | grep -q '^fault_errors: 0$'"
if [ $failed -ne 0 ]; then
	diag
fi
# Stay up (module loaded, mapped memory homed here) until the peers are
# done with it: cluster.sh keeps finished nodes up, so just exit.
echo "# node$ME: coherence.sh done in $((SECONDS - t_start)) s"
exit $failed

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, every node at once: load ddsm.ko as node $DDSM_NODE_ID,
# wait until every peer is up, then run ddsm-litmus (thread r of each test
# on node r; see docs/litmus.md).  Arguments go to ddsm-litmus:
#
#   qemu/cluster.sh -n 3 -t 1800 --name litmus -- bash /ddsm/tests/litmus.sh
#   qemu/cluster.sh -n 4 -t 1800 --name litmus -- bash /ddsm/tests/litmus.sh
#   qemu/cluster.sh -n 3 -t 36000 --name litmus-long -- \
#       bash /ddsm/tests/litmus.sh --long
#
# IRIW needs 4 nodes; on 3 it is reported as "ok ... # SKIP".
# TAP-like output; exit 0 iff no forbidden outcome and no error.  On a
# failure the node's ddsm kernel messages and counters are printed as "#"
# lines.  LITMUS_TIMEOUT (seconds, default 1700) bounds the program.

set -u
ME=${DDSM_NODE_ID:?} N=${DDSM_NR_NODES:?} IPS=${DDSM_NODE_IPS:?}
DDSM=${DDSM:-/ddsm}
CTL=$DDSM/bin/ddsmctl
LITMUS_TIMEOUT=${LITMUS_TIMEOUT:-1700}
failed=0
ok() { echo "ok - node$ME: $*"; }
nok() { echo "not ok - node$ME: $*"; failed=1; }

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

t0=$SECONDS
timeout "$LITMUS_TIMEOUT" $DDSM/tests/ddsm-litmus "$@"
rc=$?
echo "# node$ME: ddsm-litmus exit $rc after $((SECONDS - t0)) s"
if [ $rc -ne 0 ]; then
	nok "ddsm-litmus (exit $rc$([ $rc -eq 124 ] && echo ', killed by timeout'))"
else
	ok "ddsm-litmus"
fi
if $CTL status | grep -q '^fault_errors: 0$'; then
	ok "no fault gave SIGBUS (fault_errors 0)"
else
	nok "no fault gave SIGBUS (fault_errors 0)"
fi
if [ $failed -ne 0 ]; then
	diag
else
	$CTL status | grep -E '^(faults_|upgrades|remaps|msgs_)' |
		sed "s/^/# node$ME: /"
fi
echo "# node$ME: litmus.sh done in $((SECONDS - t_start)) s"
exit $failed

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo` (run on every node by qemu/demo.sh): show the
# soft-RoCE device, load ddsm as a one-node DSM, let two processes share
# data through /dev/ddsm, show ddsmctl status, do a 4 KiB rping with the
# next node, then load ddsm as one cluster over all nodes and share data,
# and an atomic counter, across them.
# TAP-like output; non-zero exit if any step failed.

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"
step() { echo "# --- node$ME: $*"; }

# run_prog DESCRIPTION PROG ARGS...
run_prog() {
	local d=$1
	shift
	if "$@"; then
		ok "$d"
	else
		nok "$d (exit $?)"
	fi
}

step "soft-RoCE device"
rdma link show
if ibv_devices | grep -qw rxe0; then ok "rxe0 present"; else nok "rxe0 present"; fi

step "load ddsm"
if insmod /ddsm/production/ddsm.ko && [ -e /dev/ddsm ]; then
	ok "insmod ddsm.ko, /dev/ddsm present"
else
	nok "insmod ddsm.ko, /dev/ddsm present"
fi

step "two processes share data through /dev/ddsm"
run_prog "ddsm-test-share" /ddsm/tests/ddsm-test-share

step "ddsmctl status"
run_prog "ddsmctl status" /ddsm/bin/ddsmctl status

if [ "$N" -gt 1 ]; then
	next=$(((ME + 1) % N))
	step "rping 4 KiB with node$next"
	# Each node serves its predecessor and is the client of its successor;
	# the client retries (bounded) until the successor's server listens.
	timeout 90 rping -s -a "${IPS[ME]}" -p $((7500 + ME)) -S 4096 -C 4 -V -v \
		>/tmp/rping-server 2>&1 &
	server=$!
	# Retry only while refused; all 4 pings echoed back is success even if
	# rping's exit status is spoiled by a disconnect race at teardown.
	res=1
	for ((try = 1; try <= 30; try++)); do
		timeout 30 rping -c -a "${IPS[next]}" -p $((7500 + next)) \
			-S 4096 -C 4 -V -v >/tmp/rping-try 2>&1
		rc=$?
		got=$(grep -c '^ping data: rdma-ping-' /tmp/rping-try)
		{ cat /tmp/rping-try; echo "attempt $try: exit $rc, $got pings"; } >>/tmp/rping-client
		if [ $rc -eq 0 ] || [ "$got" -ge 4 ]; then res=0; break; fi
		[ "$got" -gt 0 ] && break
		sleep 2
	done
	if [ $res -eq 0 ]; then ok "rping 4 KiB x4 to node$next"; else
		nok "rping 4 KiB x4 to node$next"
		sed 's/^/# /' /tmp/rping-client
	fi
	if wait "$server" || [ "$(grep -c '^server ping data:' /tmp/rping-server)" -ge 4 ]; then ok "rping server for node$(((ME + N - 1) % N))"; else
		nok "rping server for node$(((ME + N - 1) % N))"
		sed 's/^/# /' /tmp/rping-server
	fi
fi

step "unload the one-node DSM"
if rmmod ddsm; then ok "rmmod ddsm"; else nok "rmmod ddsm"; fi

if [ "$N" -gt 1 ]; then
	step "one coherent memory over the $N nodes"
	if insmod /ddsm/production/ddsm.ko node_id="$ME" nodes="$DDSM_NODE_IPS"; then
		if wait_for 30 peers_up; then ok "cluster of $N: every peer up over RDMA"; else nok "cluster of $N: every peer up over RDMA"; fi
		# Each node stores into a unit homed on the next node, reads
		# everyone's values, then all add to one atomic counter.
		run_prog "cross-node stores, loads and atomics through /dev/ddsm" \
			/ddsm/tests/ddsm-test-xnode "$ME" "$N"
		/ddsm/bin/ddsmctl status | grep -E 'peer|faults|msgs_(sent|recv)'
		if rmmod ddsm; then ok "rmmod ddsm with live connections"; else nok "rmmod ddsm with live connections"; fi
	else
		nok "insmod ddsm.ko node_id=$ME nodes=$DDSM_NODE_IPS"
	fi
fi
tap_exit

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, on every node of a cluster (qemu/cluster.sh ... -- three_node/guest.sh):
# soft-RoCE is up, ddsm.ko loads and unloads, and every pair of nodes
# completes an rping exchange.  Prints TAP-like lines; exits non-zero if any
# check failed.
#
# No deadlock when all nodes start together: for a pair (a < b) node a runs
# the rping server and node b the client, which retries (bounded) while the
# server is still starting.  Every wait is bounded.

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
TAP_WHO=	# its lines name the nodes themselves
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"
SIZE=4096 COUNT=5
SERVER_WAIT=90		# seconds a server waits for its client
CLIENT_TRIES=30		# connection attempts, ~2 s apart
tmp=$(mktemp -d)

port() { echo $((7000 + 100 * $1 + $2)); }	# pair (lower id, higher id)

check "node$ME: rdma link shows rxe0" bash -c 'rdma link show | grep -q "rxe0/"'
check "node$ME: ibv_devices lists rxe0" bash -c 'ibv_devices | grep -qw rxe0'

loaded=0
if [ ! -e /ddsm/ddsm.ko ]; then
	nok "node$ME: insmod /ddsm/ddsm.ko (file missing)"
elif insmod /ddsm/ddsm.ko; then
	loaded=1
	ok "node$ME: insmod /ddsm/ddsm.ko"
	for _ in $(seq 50); do [ -e /dev/ddsm ] && break; sleep 0.1; done
	check "node$ME: /dev/ddsm exists" test -e /dev/ddsm
else
	nok "node$ME: insmod /ddsm/ddsm.ko"
fi

# Servers for higher-id peers.
declare -A spid=()
for ((p = ME + 1; p < N; p++)); do
	timeout "$SERVER_WAIT" rping -s -a "${IPS[ME]}" -p "$(port "$ME" "$p")" \
		-S "$SIZE" -C "$COUNT" -V -v >"$tmp/server$p" 2>&1 &
	spid[$p]=$!
done

# Clients for lower-id peers, in parallel.  Retry only while the connection
# is refused (server not listening yet): once pings flowed the server is
# gone.  All COUNT pings echoed back counts as success even if rping's exit
# status is spoiled by a disconnect race at teardown.
client() {
	local peer=$1 try rc got log=$tmp/client$1
	for ((try = 1; try <= CLIENT_TRIES; try++)); do
		: >"$log.try"
		timeout 30 rping -c -a "${IPS[peer]}" -p "$(port "$peer" "$ME")" \
			-S "$SIZE" -C "$COUNT" -V -v >"$log.try" 2>&1
		rc=$?
		got=$(grep -c '^ping data: rdma-ping-' "$log.try")
		{ cat "$log.try"; echo "attempt $try: exit $rc, $got pings"; } >>"$log"
		[ $rc -eq 0 ] || [ "$got" -ge "$COUNT" ] && return 0
		[ "$got" -gt 0 ] && return 1
		sleep 2
	done
	return 1
}
declare -A cpid=()
for ((p = 0; p < ME; p++)); do
	client "$p" &
	cpid[$p]=$!
done

for p in "${!cpid[@]}"; do
	if wait "${cpid[$p]}"; then
		ok "node$ME <-> node$p rdma exchange"
	else
		nok "node$ME <-> node$p rdma exchange"
		sed 's/^/# /' "$tmp/client$p"
	fi
done
for p in "${!spid[@]}"; do
	# Same rule as the client: all pings seen counts even if rc is spoiled.
	if wait "${spid[$p]}" ||
		[ "$(grep -c '^server ping data:' "$tmp/server$p")" -ge "$COUNT" ]; then
		ok "node$ME serves node$p (rping server)"
	else
		nok "node$ME serves node$p (rping server)"
		sed 's/^/# /' "$tmp/server$p"
	fi
done

if [ $loaded -eq 1 ]; then
	check "node$ME: rmmod ddsm" rmmod ddsm
else
	nok "node$ME: rmmod ddsm (module was not loaded)"
fi
rm -rf "$tmp"
tap_exit

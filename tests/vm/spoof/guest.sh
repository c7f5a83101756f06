#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/spoof/host.sh (issue 34, "spoofing").  Nodes 0-2
# form a ddsm cluster with key A; node 3's VM is a second host on the
# segment, not a ddsm node.  It takes node 1's address (no ARP answers)
# and asks node 0 for a ddsm connection as node 1 again and again, in
# turn proving nothing (silent) and answering with an AUTH of another key
# (wrongkey), while nodes 0-2 run atomic counters on shared units
# (ddsm-test-counters), from when nodes 0-2 are up with each other until
# the host says the run is over.
#
# A soft-RoCE device cannot live in a second network namespace on this
# kernel: rdma_rxe routes and receives in the initial namespace only
# (drivers/infiniband/sw/rxe/rxe_net.c), so the second host is a VM of
# its own.  With the neighbour entries pinned, node 0's answers to the
# spoofer's requests go to the real node 1, so no handshake gets past
# the connection manager: node 0 sees each request as a newcomer for
# node 1 (next to the authenticated connection), and refuses and counts
# it when it ends without proving the key.
#
# Checks: on node 0, the requests seen as node 1's newcomers, node 1's
# connection never replaced and up all along, every attempt counted
# (auth_failures); on nodes 0-2, the data run passed, no peer down,
# nothing dropped as malformed; on node 3, no HELLO with a frame pool's
# rkey ever reached it.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
N=3
NODES=$(cut -d, -f1-3 <<<"$IPS")
VICTIM=1
ip_of() { cut -d, -f$(($1 + 1)) <<<"$IPS"; }
mac_of() { printf '52:54:00:77:00:%02x' $(($1 + 1)); }

if [ "$ME" -eq 3 ]; then
	spoofer() {
		ip addr flush dev eth0 &&
			ip link set eth0 arp off &&
			ip addr add "$(ip_of $VICTIM)/24" dev eth0 &&
			ip neigh replace "$(ip_of 0)" lladdr "$(mac_of 0)" \
				dev eth0 nud permanent
	}
	check "a second host with node$VICTIM's address, answering no ARP" spoofer
	host_says knock 300 || { nok "no knock from the host"; tap_exit; }
	# Until the host says stop, one attempt after the other.
	(host_says stop 600; touch /tmp/stop) &
	attempts=0
	while [ ! -e /tmp/stop ] && [ $attempts -lt 200 ]; do
		m=$([ $((attempts % 2)) -eq 0 ] && echo silent || echo wrongkey)
		$TESTS/ddsm-spoof-connect $m "$(ip_of 0)" 18515 "$VICTIM" "$N" 5 2>&1 |
			sed "s/^/$m: /" >>/tmp/spoofs
		attempts=$((attempts + 1))
	done
	marker "sp attempts $attempts"
	sort /tmp/spoofs | uniq -c | sed "s/^/# node$ME: spoof: /"
	check "no HELLO with a frame pool's rkey reached the second host" \
		test "$(grep -c 'hello flags [0-9]* rkey 0x' /tmp/spoofs)" -eq 0
	tap_exit
fi

printf 'ddsm-test-cluster-key-A-0123456789' >/tmp/key-a
auth_failures() {
	$CTL status | sed -nE "s/.*peer $1: node $1 .* auth_failures ([0-9]+).*/\1/p"
}
up_with() { $CTL status 2>/dev/null | grep -q "peer $1: node $1 state up"; }
pin() {
	local j
	for ((j = 0; j < N; j++)); do
		[ "$j" -eq "$ME" ] && continue
		ip neigh replace "$(ip_of $j)" lladdr "$(mac_of $j)" dev eth0 \
			nud permanent || return 1
	done
}
# attempts_said: the host's "attempts K" line (the spoofer's count).
attempts_said() {
	local line
	while read -r -t 300 line <&3; do
		line=${line%$'\r'}
		[[ $line == attempts\ * ]] && { echo "${line#attempts }"; return 0; }
	done
	return 1
}

check "every peer's neighbour entry pinned" pin
check "insmod with key A" insmod $DDSM/ddsm.ko node_id="$ME" nodes="$NODES" \
	auth_key=/tmp/key-a reconnect_ms=500
check "every peer authenticated and up" $CTL wait --timeout 120
mark=$(dmesg | wc -l)
before=$(auth_failures $VICTIM)
marker "sp up"
run "ddsm-test-counters (while the second host knocks)" 240 \
	$TESTS/ddsm-test-counters 3000
marker "sp data done"
k=$(attempts_said) || { nok "the host said how many attempts"; k=0; }
if [ "$ME" -eq 0 ]; then
	newcomers() {
		dmesg | tail -n +$((mark + 1)) |
			grep -c "node $VICTIM ([^)]*): a new connection request; the authenticated one stays"
	}
	counted() { [ $(($(auth_failures $VICTIM) - before)) -ge "$k" ]; }
	check "the second host's requests reached node0 as node$VICTIM's newcomers" \
		test "$(newcomers)" -ge 1
	check "each of its $k attempts refused and counted (auth_failures $before before)" \
		wait_for 120 counted
	echo "# node0: auth_failures for node$VICTIM: $before before, $(auth_failures $VICTIM) after; newcomer lines $(newcomers) (rate-limited)"
	dmesg | tail -n +$((mark + 1)) | grep "node $VICTIM " |
		sed -E 's/^\[[ 0-9.]*\] //' | sort | uniq -c | sort -rn | head -n 4 |
		sed "s/^/# node$ME: /"
	check "node$VICTIM's connection never replaced" \
		bash -c "! dmesg | tail -n +$((mark + 1)) | grep -q 'node $VICTIM .*down'"
	check "node$VICTIM up all along" up_with $VICTIM
fi
check "no peer went down here" \
	bash -c "! dmesg | tail -n +$((mark + 1)) | grep -qE 'ddsm: node [0-9]+ \([^)]*\) (down|dead)'"
check "nothing dropped as malformed" bash -c "$CTL status | grep -q '^msgs_dropped: 0$'"
[ $failed -ne 0 ] && diag
tap_exit

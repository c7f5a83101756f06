#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, all nodes together: load ddsm as a one-node DSM, join the
# cluster with `ddsmctl configure`, check the refusals (bad list, not
# root-equivalent is not testable as root, busy once something is mapped),
# then share data across nodes.  TAP-like output; exit 0 iff all ok.

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"

check "insmod ddsm.ko (one node)" insmod /ddsm/ddsm.ko
check "starts as one node" bash -c "$CTL status | grep -q '^nr nodes: 1$'"
check "configure with a bad list is refused" \
	bash -c "! $CTL configure $ME 10.77.0.1,not-an-ip 2>/dev/null"
check "configure with node id outside the list is refused" \
	bash -c "! $CTL configure $N $IPS 2>/dev/null"
# An address this node does not have: the transport cannot listen, the
# node falls back to one node; twice in a row, and it still works.
IFS=, read -ra ip <<<"$IPS"
ip[ME]=10.77.0.250
bad=$(IFS=,; echo "${ip[*]}")
for i in 1 2; do
	check "configure with an address not on this node fails ($i)" \
		bash -c "! $CTL configure $ME $bad 2>/dev/null"
	check "dmesg: why, and back to one node ($i)" \
		bash -c "[ \$(dmesg | grep -c 'reconfiguration failed') -ge $i ]"
	check "still one working node after failure $i" \
		bash -c "$CTL status | grep -q '^nr nodes: 1$'"
done
check "ddsmctl configure $ME $IPS" $CTL configure "$ME" "$IPS"
check "now node $ME of $N" bash -c "$CTL status | grep -q '^nr nodes: $N$'"
check "every peer comes up" wait_for 30 peers_up

# Each node writes one word of a unit homed elsewhere, then all read all.
check "cross-node data through the protocol" /ddsm/tests/ddsm-test-xnode "$ME" "$N"
check "configure refused once memory is touched (EBUSY)" \
	bash -c "$CTL configure $ME $IPS 2>&1 | grep -q 'busy'"
tap_exit

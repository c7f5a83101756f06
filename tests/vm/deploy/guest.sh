#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, all nodes together: bring the node into the cluster from
# its own cluster.conf the way ddsm.service does (modprobe-args at load,
# configure --config, wait --config), then share data.  Nodes 0 and 1 find
# their id from their addresses (node_id = auto), node 2 is given it.
# Refusals on the way: a broken file, a file whose load-time size differs
# from the loaded module's.  TAP-like output; exit 0 iff all ok.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"

CONF=/etc/ddsm/cluster.conf
mkdir -p /etc/ddsm /tmp/deploy
id=auto
[ "$ME" -eq 2 ] && id=$ME
cat >"$CONF" <<EOF
# written by tests/vm/deploy/guest.sh
nodes = ${IPS//,/, }
node_id = $id
size = 64M
home_policy = interleave
peer_timeout_ms = 3000
fault_timeout_ms = 8000    # run time: configure --config writes it
wait_timeout = 60
EOF

# conf_with KEY VALUE: $CONF with KEY set to VALUE, in /tmp/deploy/KEY.conf.
conf_with() {
	sed "s|^$1 = .*|$1 = $2|" "$CONF" >"/tmp/deploy/$1.conf"
	echo "/tmp/deploy/$1.conf"
}
param() { cat "/sys/module/ddsm/parameters/$1"; }

bad=$(conf_with size 5000)
check "a broken cluster.conf is refused with its line" \
	bash -c "! $CTL modprobe-args --config $bad 2>/tmp/deploy/err &&
		grep -q '^$bad:4: size: ' /tmp/deploy/err"

args=$($CTL modprobe-args --config "$CONF")
echo "# node$ME: modprobe-args: $args"
check "modprobe-args: the load-time parameters, not the membership" \
	test "$args" = "size=67108864 home_policy=interleave peer_timeout_ms=3000 fault_timeout_ms=8000"
# shellcheck disable=SC2086 # one word per parameter, as in ddsm.service
check "insmod ddsm.ko \$(ddsmctl modprobe-args)" insmod /ddsm/production/ddsm.ko $args
check "loaded as one node with size 64M" \
	bash -c "$CTL status | grep -q '^nr nodes: 1$' && [ \$(cat /sys/module/ddsm/parameters/size) = 67108864 ]"

other=$(conf_with size 128M)
check "configure --config refused when the module has another size" \
	bash -c "! $CTL configure --config $other 2>/tmp/deploy/err &&
		grep -q 'loaded with size=67108864' /tmp/deploy/err &&
		$CTL status | grep -q '^nr nodes: 1$'"

# A run-time parameter changed behind the file's back is set again.
echo 9999 >/sys/module/ddsm/parameters/fault_timeout_ms
out=$($CTL configure --config "$CONF")
check "configure --config: node $ME of $N ($out)" test "$out" = "node $ME of $N"
check "configure --config set fault_timeout_ms back to 8000" test "$(param fault_timeout_ms)" = 8000
check "status: node id $ME of $N" \
	bash -c "$CTL status | grep -q '^node id: $ME$' && $CTL status | grep -q '^nr nodes: $N$'"
t0=$SECONDS
if $CTL wait --config "$CONF"; then
	ok "ddsmctl wait --config: every peer up ($((SECONDS - t0)) s)"
else
	nok "ddsmctl wait --config: every peer up"
	diag
	exit 1
fi

run "cross-node data through the protocol" 120 /ddsm/tests/ddsm-test-xnode "$ME" "$N"
# Memory is touched now: a second configure must see it has nothing to do
# (DDSM_IOC_CONFIGURE would be refused with EBUSY).
out=$($CTL configure --config "$CONF" 2>&1)
check "configure --config again is a no-op ($out)" test "$out" = "node $ME of $N (already)"
check_no_sigbus
tap_exit

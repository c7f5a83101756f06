#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make demo's second and third pillars (qemu/demo.sh), on
# 3 nodes with an NVDIMM each, with the programs of README.md's quick
# start (built by qemu/demo.sh into /ddsm/demo/examples):
#   DEMO_PHASE=1  one cluster with pmem; money moved between accounts on
#                 every home in HADES transactions (./bank), the total
#                 audited; a record written with ddsm_write_durable()
#                 (./durable write); the record's home then tells the host
#                 to kill it ("demo crash-me") and waits; the others see it
#                 go and unload
#   DEMO_PHASE=2  the whole cluster again on the same NVDIMMs: the killed
#                 home's namespace is recovered, and every node reads the
#                 record back (./durable); the module stays loaded, for the
#                 host powers the nodes off together
# The programs run as an unprivileged user (nobody, in the device's group
# ddsm) on the regions the cluster.conf of README.md's quick start
# declares, by `ddsmctl cluster join --config` as ddsm.service runs it.
# TAP-like lines; exit 1 if a step failed.
ME=${DDSM_NODE_ID:?} N=${DDSM_NR_NODES:?} IPS=${DDSM_NODE_IPS:?}
PHASE=${DEMO_PHASE:?}
D=/ddsm
CTL=$D/bin/ddsmctl
EX=$D/demo/examples
PM=/dev/pmem0
RECORD=4M	# durable.c's RECORD
TAP_WHO=node$ME
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
step() { echo "# --- node$ME: $*"; }
wait_for() { local n=$(($1 * 10)); shift; until "$@"; do ((n-- > 0)) || return 1; sleep 0.1; done; }
USER_UID=65534 DDSM_GID=990
run() { # DESCRIPTION CMD...: its output shown, one line for its result, as the user
	local d=$1
	shift
	if (cd $EX && timeout 180 $D/tests/ddsm-test-privs as $USER_UID $DDSM_GID "$@"); then
		ok "$d"
	else
		nok "$d (exit $?)"
	fi
}

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
args="size=64M node_id=$ME nodes=$IPS pmem=$PM"
[ "$PHASE" = 1 ] && args+=" pmem_format=1"
step "one cluster of $N with a pmem namespace each ($args)"
# shellcheck disable=SC2086
if ! insmod $D/ddsm.ko $args; then
	nok "insmod ddsm.ko $args"
	exit 1
fi
$CTL pmem show | grep -E '^(device|mount):' | sed "s/^/  /"
if ! $CTL cluster wait --timeout 120 >/dev/null; then
	nok "every peer up"
	exit 1
fi
ok "cluster of $N with pmem: every peer up"
step "the service's part, as root: the cluster's regions from cluster.conf; /dev/ddsm for group ddsm"
mkdir -p /etc/ddsm
cat >/etc/ddsm/cluster.conf <<CONF
nodes = ${IPS//,/, }
node_id = $ME
size = 64M
pmem = $PM
tx_region = 8M 68K
region = 4M 4K sync
CONF
if $CTL cluster join --config /etc/ddsm/cluster.conf | sed "s/^/  /"; [ "${PIPESTATUS[0]}" = 0 ]; then
	ok "ddsmctl cluster join --config: tx_region 8M 68K, region 4M 4K sync"
else
	nok "ddsmctl cluster join --config: the regions"
fi
grep -q '^ddsm:' /etc/group || echo "ddsm:x:$DDSM_GID:" >>/etc/group
if chgrp $DDSM_GID /dev/ddsm && chmod 0660 /dev/ddsm; then
	ok "/dev/ddsm: group ddsm, mode 0660 (the udev rule's); the programs run as nobody"
else
	nok "/dev/ddsm: group ddsm, mode 0660"
fi
home=$($CTL unit show $RECORD | sed -n 's/^home: //p')

if [ "$PHASE" = 1 ]; then
	step "transactions: money moved between 16 accounts on all $N homes (HADES)"
	run "bank: transfers committed, the total audited in one transaction" ./bank 100
	$CTL tx stats | grep -E '^(begins|commits|aborts_squashed|home_validations):' |
		tr '\n' ' ' | sed 's/^/  tx stats: /; s/$/\n/'
	step "persistence: node 0 writes a record with ddsm_write_durable() (Synchronous)"
	run "durable write: the record is on the pmem of its home, node $home" ./durable write
	if [ "$ME" = "$home" ]; then
		if [ $failed -eq 0 ]; then
			step "node$ME homes the record: the host kills this VM now"
			echo "demo crash-me" >/dev/ttyS1
			sleep 600
		fi
		tap_exit
	fi
	if wait_for 60 bash -c "$CTL peer show $home | grep -qxE '    state: (down|dead)'"; then
		ok "node$home, the record's home, is gone (killed by the host)"
	else
		nok "node$home, the record's home, is gone"
	fi
	if rmmod ddsm; then ok "rmmod ddsm"; else nok "rmmod ddsm"; fi
else
	step "after the crash: node$home's namespace recovered, the record read on every node"
	run "durable: the record survived its home's crash" ./durable
	# No unload: the home must serve whoever reads last; the host powers
	# the nodes off together once all are done.
fi
tap_exit

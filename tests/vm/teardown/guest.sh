#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/teardown/host.sh (issue 34, item 5): rmmod in the
# middle of a backup's resync and of a takeover.  Three nodes with pmem and
# nr_backups=1: node 1 is node 0's backup, node 2 is node 1's.
#   every node  formats its NVDIMM, fills its units of the Scope region
#               with images made durable, "td filled"
#   part 1      node 0 waits for its next resync of node 1 ("td watch";
#               the host sends node 1 "bounce": it reloads, and node 0
#               resyncs it with every image) and unloads the module as
#               soon as the resync begins; then loads it again, "td back"
#   part 2      node 0 stores into every unit of node 1 and keeps them
#               dirty ("td dirty": the takeover has copies to wait for);
#               node 2 waits for its takeover of node 1
#               ("td watch2"; the host SIGKILLs node 1) and unloads the
#               module as soon as it has taken the units (it pauses there,
#               takeover_delay_ms, before it announces the takeover and
#               arms the bound of its wait for node 0's copies), "td done"
# Each unload must succeed; the host checks every console for splats
# (under make check-debug: KASAN and lockdep reports).

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
T=$TESTS/ddsm-test-teardown
PM=/dev/pmem0
# rejoin_ms: node 0's reload in part 1 comes back long before it, so
# node 1 never takes node 0 over; node 2 takes node 1 over in part 2.
# takeover_delay_ms (test only): node 2's takeover pauses 2 s between
# taking node 1's units and announcing it, so that the rmmod lands there.
PARAMS="size=16M node_id=$ME nodes=$IPS pmem=$PM nr_backups=1 heartbeat_ms=200 peer_timeout_ms=3000 rejoin_ms=15000 fault_timeout_ms=10000 takeover_delay_ms=2000"


# load [pmem_format=1]: insmod, every peer up, this node's backup in sync.
load() {
	# shellcheck disable=SC2086 # a list of parameters
	if ! insmod $DDSM/ddsm.ko $PARAMS "$@"; then
		nok "insmod ddsm.ko nr_backups=1 pmem=$PM $*"
		diag
		exit 1
	fi
	ok "insmod ddsm.ko nr_backups=1 pmem=$PM $*"
	check "all $((N - 1)) peers up" $CTL wait --timeout 120
	check "this node's backup (node$(((ME + 1) % N))) is in sync" \
		wait_for 120 bash -c "$CTL status | grep -q '^pmem_backup: synced'"
}

# unloaded_first DONE N: the module's last "unloading" line came before
# the kernel logged DONE for the (N + 1)-th time, or DONE never came.
unloaded_first() {
	dmesg | awk -v d="$1" -v e="$2" '
		index($0, d) { if (++c == e + 1) at = NR }
		/ddsm: unloading$/ { u = NR }
		END { exit !(u && (!at || u < at)) }'
}
module_gone() { ! module_loaded; }

# unload_when TEXT DONE WHAT MARKER: tell the host MARKER, then rmmod as
# soon as the kernel logs TEXT anew: the unload must begin before DONE
# (the end of WHAT) is logged anew, so that it runs into WHAT.
unload_when() {
	local text=$1 done=$2 what=$3 base ended
	base=$(count "$text")
	ended=$(count "$done")
	marker "$4"
	wait_log "$text" "$base" || { nok "$what began within 300 s"; return 1; }
	check "rmmod ddsm as soon as $what began" rmmod ddsm
	check "... the module is gone" module_gone
	check "... its unload began before '$done' was logged" \
		unloaded_first "$done" "$ended"
	dmesg | grep -E "unloading|$done" | tail -n 3 | sed "s/^/# node$ME: /"
}

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
load pmem_format=1
$CTL region set 0x0 0x1000000 scope || nok "ddsmctl region set 0x0 0x1000000 scope"
run "fill: this node's units, durable" 300 $T fill 0x0 0xc00000
check "this node's backup is in sync after the fill" \
	wait_for 120 bash -c "$CTL status | grep -q '^pmem_backup: synced'"
marker "td filled"

case $ME in
0)
	unload_when "resyncing the backup" "resync sent" "a resync of node 1" \
		"td watch"
	load
	marker "td back"
	# Part 2: node 1's units dirty here, for node 2 to wait for.
	host_says dirty 600 || { nok "no dirty from the host"; exit 1; }
	run "dirty: node 1's units, left here" 300 $T dirty 0x0 0x1000000 1
	marker "td dirty"
	;;
1)
	host_says bounce 600 || { nok "no bounce from the host"; exit 1; }
	check "rmmod ddsm (node 0's backup goes away)" rmmod ddsm
	load
	marker "td back"
	sleep 900	# until the host kills this VM
	;;
2)
	host_says watch 600 || { nok "no watch from the host"; exit 1; }
	unload_when "took its units over" "serving node 1's units" \
		"the takeover of node 1" "td watch2"
	# A work left armed would run here, in a module that is gone.
	sleep 12
	check "nothing of the module ran after it (12 s, past fault_timeout_ms)" \
		bash -c "! dmesg | grep -qE 'BUG|Oops|general protection|WARNING'"
	marker "td done"
	;;
esac
host_says end 600
dmesg | grep -E "took|handed|serving|dropped|resync" | tail -n 6 |
	sed "s/^/# node$ME: /"
tap_exit

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/backup/host.sh: backup homes (nr_backups=1) on
# the same NVDIMM files, node 1 the victim, node 2 its backup.
#   BK_PHASE 1  format, set the regions, wait until every pair is in sync,
#               then on "start" the writers (nodes 0 and 2) write node 1's
#               units for BK_SECS seconds while the host kills node 1;
#               on "read" read them back (from node 2, which took them
#               over), "bk read"; stay up for phase 2 ("read2": read
#               again, "bk read2")
#            2  node 1 alone, restarted: it must learn that node 2 took
#               its units over (no failback), and read them from node 2
#            3  the whole cluster restarted: node 2 serves node 1's units
#               from its pmem (the takeover is sticky), every node reads
# Reads and acks go to stdout as "BK ..." lines for the host.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
PHASE=${BK_PHASE:?} SECS=${BK_SECS:-40} AWAY=${BK_AWAY:-1} AGAIN=${BK_AGAIN:-}
VICTIM=1 BACKUP=2
PM=/dev/pmem0
T=$TESTS/ddsm-test-backup
pm() { $CTL status | sed -n "s/^pmem_$1: //p"; }
exec 4</dev/ttyS1
getline() {
	local line
	while read -r -t 600 line <&4; do
		[ "${line%$'\r'}" = "$1" ] && return 0
	done
	return 1
}
status() { $CTL status | grep -E '^pmem_(backup|replica|failovers)|^fault_errors|lost_retries|home_waits' | sed "s/^/# node$ME: /"; }
reads() {
	run "phase $PHASE: ddsm-test-backup read $VICTIM" 120 $T read $VICTIM
	$CTL home 0x1000 | grep -q "^home: $BACKUP$" &&
		ok "phase $PHASE: unit 1 (placed on node$VICTIM) is homed on node$BACKUP" ||
		nok "phase $PHASE: unit 1 is homed on node$BACKUP ($($CTL home 0x1000 | grep home:))"
}
echo "BK phase $PHASE ."

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
FMT=
[ "$PHASE" = 1 ] && FMT=pmem_format=1
if [ "$PHASE" = 1 ]; then
	check "phase 1: nr_backups=1 without pmem= is refused" \
		bash -c "! insmod $DDSM/ddsm.ko nr_backups=1 2>/dev/null"
	check "phase 1: ... with one log line" \
		bash -c "dmesg | grep -q 'nr_backups=1: must be 0, or 1 with pmem='"
fi
# The failover comes rejoin_ms after the death is declared (peer_timeout_ms);
# stores meanwhile wait for it, within fault_timeout_ms.
# shellcheck disable=SC2086
if ! insmod $DDSM/ddsm.ko size=16M node_id="$ME" nodes="$IPS" pmem=$PM $FMT \
	nr_backups=1 heartbeat_ms=200 peer_timeout_ms=3000 rejoin_ms=8000 \
	fault_timeout_ms=60000; then
	nok "phase $PHASE: insmod ddsm.ko nr_backups=1 pmem=$PM $FMT"
	diag
	exit 1
fi
ok "phase $PHASE: insmod ddsm.ko nr_backups=1 pmem=$PM $FMT"
check "phase $PHASE: all $((N - 1)) peers up" $CTL wait --timeout 60
for r in 0x0:0x60000:sync 0x80000:0x60000:scope 0x100000:0x60000:eventual; do
	IFS=: read -r a l m <<<"$r"
	[ "$PHASE" = 1 ] && { $CTL region "$a" "$l" "$m" || nok "ddsmctl region $a $l $m"; }
	[ "$($CTL region "$a")" = "$m" ] || nok "phase $PHASE: region at $a is $($CTL region "$a"), not $m"
done

case $PHASE in
1)
	check "phase 1: this node's backup (node$(((ME + 1) % N))) is in sync" \
		wait_for 60 bash -c "$CTL status | grep -q '^pmem_backup: synced'"
	marker "bk ready"
	getline start || { nok "no start from the host"; exit 1; }
	if [ "$ME" = "$VICTIM" ]; then
		marker "bk victim"
		sleep 900	# until the host kills this VM
		exit 1
	fi
	# Who homes unit 1 (placed on node 1), twice a second, for the host:
	# node 1 until it is killed (not while it is only frozen), then 2.
	while :; do
		echo "BK H $($CTL home 0x1000 | sed -n 's/^home: //p') ."
		sleep 0.5
	done &
	watch=$!
	run "phase 1: ddsm-test-backup write $VICTIM $SECS" $((SECS + 120)) \
		$T write $VICTIM "$SECS" $AGAIN
	kill $watch
	wait $watch 2>/dev/null
	status
	marker "bk written"
	getline read
	if [ "$ME" = "$BACKUP" ]; then
		check "phase 1: node$BACKUP took node$VICTIM's units over (failovers 1)" \
			test "$(pm failovers)" = 1
		check "phase 1: ddsmctl status says so" \
			bash -c "$CTL status | grep -q '^pmem_backup: .*serving the predecessor'"
		dmesg | grep -E 'took its units over|serving node|stayed away' | sed "s/^/# node$ME: /"
	else
		dmesg | grep -E 'took node [0-9]+.s units over' | sed "s/^/# node$ME: /"
		# Node 1 was this node's backup: home-only since, said once.
		check "phase 1: node$ME runs without its backup (pmem_backup: degraded)" \
			bash -c "$CTL status | grep -q '^pmem_backup: degraded'"
		check "phase 1: ... counted once each time node$VICTIM went away (pmem_replica_degraded $(pm replica_degraded), $AWAY expected)" \
			test "$(pm replica_degraded)" = "$AWAY"
		resyncs=$(pm replica_resyncs)
		dmesg | grep -E "backup node $VICTIM|resync" | sed "s/^/# node$ME: /"
	fi
	reads
	marker "bk read"
	getline read2
	if [ "$ME" != "$BACKUP" ]; then
		# Node 1 is back: this node's backup again, resynced.
		check "phase 2: node$ME's backup node$VICTIM is resynced after its restart" \
			wait_for 60 bash -c "$CTL status | grep -q '^pmem_backup: synced'"
		check "phase 2: ... one more resync (pmem_replica_resyncs $resyncs, then $(pm replica_resyncs))" \
			test "$(pm replica_resyncs)" = $((resyncs + 1))
	fi
	reads
	marker "bk read2"
	sleep 900
	exit 1
	;;
2)
	check "phase 2: node$VICTIM learns that node$BACKUP took its units over" \
		wait_for 60 bash -c "dmesg | grep -q 'took this node.s units over'"
	dmesg | grep -E 'took this node' | sed "s/^/# node$ME: /"
	reads
	status
	marker "bk read"
	sleep 900
	exit 1
	;;
3)
	if [ "$ME" = "$BACKUP" ]; then
		check "phase 3: node$BACKUP serves node$VICTIM's units again after a restart" \
			bash -c "dmesg | grep -q 'serving node $VICTIM.s units since a failover'"
	else
		check "phase 3: node$ME learns node$BACKUP serves node$VICTIM's units" \
			wait_for 60 bash -c "$CTL home 0x1000 | grep -q '^home: $BACKUP$'"
	fi
	reads
	status
	marker "bk read"
	sleep 900
	exit 1
	;;
esac

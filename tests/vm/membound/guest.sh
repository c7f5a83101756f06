#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/membound/host.sh (issue 16, "memory bound").  Two
# nodes with pmem and nr_backups=1: each is the other's backup.  For a
# 16 MiB and then a 64 MiB space (2,048 and 8,192 units homed on node 0):
#   both     format, fill their units of the space durably, "mb filled S"
#   node 0   samples its slab ("mb watching S") while node 1 reloads with
#            replica_delay_ms (test only: it persists each batch of
#            node 0's images 100 ms late), and node 0 resyncs it with
#            every image; then checks its send queue's peak towards
#            node 1 and the growth of its slab against the bound, and
#            that the window held it back at least once
#   node 1   samples its slab across the reload until node 0's images
#            are all in, then checks how many it held at once and the
#            growth of its slab against the bound
# The bound (docs/persistency.md, "Memory bounds"): DDSM_REPLICA_WINDOW
# (256) images out at once, so at most 256 + 64 messages queued at the
# home for the backup, at most 257 images (with the sync marker) held
# at the backup, and less than 8 MiB of slab above where it settles:
# the same for both sizes.  Without the window a resync queued every
# image (8 or 32 MiB of copies here).

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
T=$TESTS/ddsm-test-teardown
PM=/dev/pmem0
WINDOW=256
QUEUE_MAX=$((WINDOW + 64))
IN_MAX=$((WINDOW + 1))
SLAB_MAX_KB=$((8 * 1024))
PARAMS="node_id=$ME nodes=$IPS pmem=$PM nr_backups=1 heartbeat_ms=200 peer_timeout_ms=3000 rejoin_ms=15000 fault_timeout_ms=10000"

peer_counter() { $CTL peer show "$1" | sed -n "s/^ *$2: //p"; }
slab_kb() { sed -n 's/^Slab: *\([0-9]*\) kB/\1/p' /proc/meminfo; }

# load SIZE [PARAMS...]: insmod, every peer up.
load() {
	local size=$1
	shift
	# shellcheck disable=SC2086 # a list of parameters
	if ! insmod $DDSM/ddsm.ko size=$size $PARAMS "$@"; then
		nok "insmod ddsm.ko size=$size nr_backups=1 $*"
		diag
		exit 1
	fi
	ok "insmod ddsm.ko size=$size nr_backups=1 $*"
	check "the peer is up" $CTL wait --timeout 120
}

# sample FILE: this node's slab (KiB) every 50 ms into FILE until killed.
sample() { while :; do slab_kb; sleep 0.05; done >"$1"; }
# grown FILE: the highest sample above the slab now (KiB, at least 0).
grown() { awk -v now="$(slab_kb)" '$1 > m { m = $1 } END { d = m - now; print (d > 0 ? d : 0) }' "$1"; }
# le NAME VALUE MAX: VALUE <= MAX, as a check that prints both.
le() { check "$1: $2 <= $3" test "$2" -le "$3"; }

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
for size in 16M 64M; do
	bytes=$((${size%M} << 20))
	load "$size" pmem_format=1
	$CTL region set 0x0 "$bytes" scope || nok "ddsmctl region set 0x0 $bytes scope"
	run "fill ($size): this node's units, durable" 600 $T fill 0x0 "$bytes"
	check "this node's backup is in sync after the fill ($size)" \
		wait_for 120 bash -c "$CTL status | grep -q '^pmem_backup: synced'"
	marker "mb filled $size"
	case $ME in
	0)
		host_says watch 600 || { nok "no watch from the host"; exit 1; }
		resyncs=$(pm replica_resyncs)
		waits=$(pm replica_window_waits)
		sample /tmp/slab &
		sampler=$!
		marker "mb watching $size"
		check "node 1 back and resynced with every image ($size)" \
			wait_for 300 bash -c "[ \$($CTL status | sed -n 's/^pmem_replica_resyncs: //p') -gt $resyncs ] && $CTL status | grep -q '^pmem_backup: synced'"
		kill "$sampler"
		wait "$sampler" 2>/dev/null
		q=$(peer_counter 1 txq_peak)
		g=$(grown /tmp/slab)
		w=$(($(pm replica_window_waits) - waits))
		echo "# node0: $size: send queue peak $q messages, slab +$g KiB, window waits $w"
		le "($size) messages ever queued for node 1 at once" "$q" "$QUEUE_MAX"
		le "($size) slab growth during the resync (KiB)" "$g" "$SLAB_MAX_KB"
		check "($size) the slow backup held the resync back ($w window waits)" \
			test "$w" -gt 0
		;;
	1)
		host_says bounce 600 || { nok "no bounce from the host"; exit 1; }
		check "rmmod ddsm ($size)" rmmod ddsm
		base=$(count "replica of node 0's units in sync")
		sample /tmp/slab &
		sampler=$!
		load "$size" replica_delay_ms=100
		check "node 0's images all in ($size)" \
			wait_log "replica of node 0's units in sync" "$base"
		kill "$sampler"
		wait "$sampler" 2>/dev/null
		p=$(pm replica_in_peak)
		g=$(grown /tmp/slab)
		echo "# node1: $size: images held at once $p, slab +$g KiB"
		le "($size) node 0's images held in memory at once" "$p" "$IN_MAX"
		le "($size) slab growth during the resync (KiB)" "$g" "$SLAB_MAX_KB"
		;;
	esac
	marker "mb done $size"
	host_says next 600 || { nok "no next from the host"; exit 1; }
	check "rmmod ddsm ($size)" rmmod ddsm
done
tap_exit

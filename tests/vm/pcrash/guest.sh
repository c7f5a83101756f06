#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/pcrash/host.sh: one boot of its crash series on
# the same NVDIMM files.  Loads the module on pmem, sets (boot 1) or
# checks the regions of ddsm-test-pcrash, and runs it:
#   PC_BOOT   boot number (1..)
#   PC_STEPS  ddsm-test-pcrash steps (d dump, v verify the pattern,
#             p write the pattern, w write records)
#   PC_END    exit: the program's status ends the boot;
#             wait: once it ended, "pc idle" to the host, then wait for
#               the host's kill;
#             unload: as wait, but on the host's "unload" line, rmmod
#               and "pc unloaded";
#             crash: wait for the host's "crash N" line on ttyS1, then
#               the power fails at the N-th pmem fence, writers running
#               (debugfs ddsm/pmem_crash_arm, PC_KEEP% of unfenced words
#               kept), "pc crashed", wait for the kill
#   PC_ARGS   more module parameters (pmem_check=1)
#   PC_MOUNT  what the namespace must be at mount (formatted, recovered)
#   PC_CLEAN_BUT  node K: every other node must mount clean (it unloaded
#             in the boot before), K recovered (it was killed)
# Its stdout (ttyS2) carries the program's "PC ..." lines to the host.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
BOOT=${PC_BOOT:?} STEPS=${PC_STEPS:?} END=${PC_END:-exit} ARGS=${PC_ARGS:-}
MOUNT=${PC_MOUNT:-recovered} SECS=${PC_SECS:-6} KEEP=${PC_KEEP:-50}
PM=/dev/pmem0
if [ -n "${PC_CLEAN_BUT:-}" ]; then
	[ "$ME" = "$PC_CLEAN_BUT" ] && MOUNT=recovered || MOUNT=clean
fi
pm() { $CTL status | sed -n "s/^pmem_$1: //p"; }
echo "PC boot $BOOT ."

if [ "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" != 1 ]; then
	ndctl create-namespace -f -e namespace0.0 -m fsdax >/dev/null 2>&1
fi
check "pmem0 is a DAX namespace" test "$(cat /sys/block/pmem0/queue/dax 2>/dev/null)" = 1
# shellcheck disable=SC2086
if ! insmod $DDSM/ddsm.ko size=64M $ARGS node_id="$ME" nodes="$IPS" pmem=$PM; then
	nok "boot $BOOT: insmod ddsm.ko $ARGS pmem=$PM"
	diag
	exit 1
fi
ok "boot $BOOT: insmod ddsm.ko $ARGS pmem=$PM ($(dmesg | grep 'ddsm: pmem pmem0: [a-z]*,' | tail -n1 | sed 's/^\[[^]]*\] //'))"
check "boot $BOOT: all $((N - 1)) peers up" $CTL wait --timeout 60
check "boot $BOOT: the namespace is $MOUNT at mount" \
	bash -c "$CTL status | grep -q '^pmem: pmem0 .*, $MOUNT at mount'"
check "boot $BOOT: no torn unit (pmem_units_torn $(pm units_torn))" \
	test "$(pm units_torn)" = 0
# Every slot's timestamp after recovery, for the host: none may be older
# than at the boot before (pcrash/host.sh).
[ -d /sys/kernel/debug/ddsm ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if check "boot $BOOT: debugfs ddsm/pmem_slots readable" test -r /sys/kernel/debug/ddsm/pmem_slots; then
	awk '$2 ~ /^[0-9]+$/ { print "PC T ts " $1 " " $2 " ." }' /sys/kernel/debug/ddsm/pmem_slots
fi
[[ $ARGS == *pmem_check=1* ]] && check "boot $BOOT: the persist-domain checker is on" \
	bash -c "$CTL status | grep -q 'persist-domain checker on'"

# The pattern (1 MiB) and the five record regions of ddsm-test-pcrash.
REGIONS="0x0:0x100000:sync 0x100000:0x18000:sync 0x140000:0x18000:strict
	0x180000:0x18000:scope 0x1c0000:0x18000:read_enf 0x200000:0x18000:eventual"
for r in $REGIONS; do
	IFS=: read -r a l m <<<"$r"
	if [ "$BOOT" = 1 ]; then
		$CTL region "$a" "$l" "$m" || nok "boot $BOOT: ddsmctl region $a $l $m"
	fi
	[ "$($CTL region "$a")" = "$m" ] || nok "boot $BOOT: region at $a reads $($CTL region "$a"), not $m"
done
[ $failed = 0 ] && ok "boot $BOOT: the six regions are set (pattern, sync, strict, scope, read_enf, eventual)"

P=$TESTS/ddsm-test-pcrash
if [ "$END" = exit ]; then
	run "ddsm-test-pcrash $BOOT $STEPS" 300 $P "$BOOT" "$STEPS" "$SECS"
	check "boot $BOOT: no fault gave SIGBUS" bash -c "$CTL status | grep -q '^fault_errors: 0$'"
	tap_exit
fi

$P "$BOOT" "$STEPS" "$SECS" &
pid=$!
exec 4</dev/ttyS1
# getline WORD: wait for that line from the host on ttyS1.
getline() {
	local line
	while read -r -t 300 line <&4; do
		[ "${line%$'\r'}" = "$1" ] && return 0
	done
	return 1
}
if [ "$END" = wait ] || [ "$END" = unload ]; then
	wait $pid
	echo "# node$ME: ddsm-test-pcrash exit $?"
	marker "pc idle"
	# unload: the survivors of a home's death leave their namespaces
	# clean (the next boot checks they mount clean), once every writer
	# is done ("unload" from the host): a home that leaves while another
	# node still writes its units is another test.
	if [ "$END" = unload ] && getline unload; then
		$CTL status | grep -E '^pmem_|^fault_errors' | sed "s/^/# node$ME: /"
		check "boot $BOOT: rmmod ddsm after every writer ended" rmmod ddsm
		dmesg | grep 'ddsm' | grep -v 'region \[' | tail -n 8 | sed "s/^/# node$ME: /"
		marker "pc unloaded"
	fi
	sleep 900
	exit 1
fi

# crash: the host says when, with the writers running, as "crash N": the
# power fails at the N-th pmem fence from then, inside whatever the store
# is doing (a log append, an apply), each unfenced 8-byte word kept with
# PC_KEEP%.  From then on this node's media takes nothing and the node
# sends nothing that needed it, so an ack printed anywhere afterwards is
# for a version some other, still powered home made durable.  If no fence
# comes within 5 s (nothing left to persist here), the power fails at once.
line=
while read -r -t 300 line <&4; do
	line=${line%$'\r'}
	[ "${line%% *}" = crash ] && break
done
nth=${line#crash }
[[ $nth =~ ^[0-9]+$ ]] || nth=1
[ -d /sys/kernel/debug/ddsm ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
check "boot $BOOT: power failure armed at the ${nth}th fence from now ($KEEP% of unfenced words kept)" \
	bash -c "echo '$nth $KEEP' >/sys/kernel/debug/ddsm/pmem_crash_arm"
for _ in $(seq 50); do
	dmesg | grep -q 'simulated power failure at fence' && break
	sleep 0.1
done
if ! dmesg | grep -q 'simulated power failure at fence'; then
	echo "# node$ME: no fence within 5 s: the power fails now"
	check "boot $BOOT: simulated power failure (debugfs ddsm/pmem_crash)" \
		bash -c "echo $KEEP >/sys/kernel/debug/ddsm/pmem_crash"
fi
check "boot $BOOT: the kernel says so: $(dmesg | grep -o 'simulated power failure[^;]*' | tail -n1)" \
	bash -c "dmesg | grep -q 'ddsm: pmem pmem0: simulated power failure.*: [0-9]* unfenced pieces dropped'"
marker "pc crashed"
sleep 900
exit 1

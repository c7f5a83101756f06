#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One-node checks of ddsm, run as root inside the guest.  The payload sits
# in /ddsm (ddsm.ko, bin/ddsmctl, tests/ddsm-test-*); override with DDSM=.
#
# Output is TAP-like: "ok - ..." / "not ok - ..." lines, the test
# programs' own lines passed through, "#" comments.  Exit 0 iff nothing
# failed.  Every wait is bounded, so a hung module fails the run instead
# of stalling it.

set -u

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"
TAP_WHO=	# one node: its lines name none
BIN=$DDSM/bin
DEV=/dev/ddsm
SIZE_64M=67108864
hold_pid=

bail() { echo "Bail out! $*"; echo "# one_node: bailed out"; exit 1; }

gone() { ! kill -0 "$1" 2>/dev/null; }

# run_bounded SECONDS CMD...: CMD's exit status, 124 if it had to be killed.
run_bounded() {
	local secs=$1 pid
	shift
	"$@" &
	pid=$!
	if ! wait_for "$secs" gone "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid"
}

module_gone() { ! module_loaded; }
dev_gone() { [ ! -e "$DEV" ]; }
dev_mode() { stat -c %a "$DEV" 2>/dev/null; }

# run_tap SECONDS NAME CMD...: pass a test program's TAP through and count
# its failures; it must also exit 0 and report at least one check.
run_tap() {
	local secs=$1 name=$2 out rc bad good
	shift 2
	out=$work/$name.out
	run_bounded "$secs" "$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	bad=$(grep -c '^not ok' "$out")
	good=$(grep -c '^ok' "$out")
	failed=$((failed + bad))
	total=$((total + bad + good))
	if [ "$rc" -eq 124 ]; then
		nok "$name: killed after ${secs}s"
	elif [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ] || [ "$good" -eq 0 ]; then
		nok "$name: exit $rc, $good ok, $bad not ok"
	else
		ok "$name: exit 0, $good checks passed"
	fi
}

# Does process $1 have $DEV open (as a descriptor) / mapped?
has_fd() {
	local f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "$DEV" ] && return 0
	done
	return 1
}
has_map() { grep -q " $DEV\$" /proc/"$1"/maps 2>/dev/null; }
holder_fd_and_map() { has_fd "$hold_pid" && has_map "$hold_pid"; }
holder_map_only() { ! has_fd "$hold_pid" && has_map "$hold_pid"; }

stop_holder() {
	if [ -n "$hold_pid" ] && kill -0 "$hold_pid" 2>/dev/null; then
		kill -TERM "$hold_pid" 2>/dev/null
		wait_for 5 gone "$hold_pid" || kill -KILL "$hold_pid"
	fi
	hold_pid=
}

cleanup() {
	stop_holder
	exec 7>&-
	rm -rf "$work"
}

# rmmod must be refused while the holder pins the module.  $1 is a label,
# $2 "eof" or "term" (how to stop the holder), the rest holder options.
hold_test() {
	local label=$1 how=$2 ready=$work/ready fifo=$work/ctl rc err
	shift 2

	rm -f "$ready" "$ready.tmp" "$fifo"
	mkfifo "$fifo" || { nok "$label: mkfifo"; return; }
	# Our end is opened read-write so it never blocks; the holder must not
	# inherit it, or its own copy would keep stdin from reaching EOF.
	exec 7<>"$fifo"
	"$TESTS/ddsm-test-hold" "$@" "$ready" <"$fifo" 7>&- 2>"$work/hold.err" &
	hold_pid=$!

	if ! wait_for 10 test -f "$ready"; then
		nok "$label: holder ready within 10s ($(cat "$work/hold.err"))"
		stop_holder
		exec 7>&-
		return
	fi
	ok "$label: holder mapped $DEV and touched a unit"
	if [ "$how" = term ]; then
		check "$label: holder closed its fd but still maps $DEV" \
			holder_map_only
	else
		check "$label: holder has $DEV open and mapped" \
			holder_fd_and_map
	fi

	err=$(run_bounded 30 rmmod ddsm 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		nok "$label: rmmod ddsm refused while mapped (it succeeded)"
		# Keep going with a fresh module so the later checks still run.
		stop_holder
		run_bounded 30 insmod "$DDSM/ddsm.ko" ||
			bail "cannot reload ddsm.ko"
	else
		ok "$label: rmmod ddsm refused while mapped (${err//$'\n'/ })"
		check "$label: ddsm still in /proc/modules" module_loaded
		check "$label: $DEV still present" test -c "$DEV"
	fi

	if [ "$how" = term ]; then
		kill -TERM "$hold_pid" 2>/dev/null
	else
		exec 7>&-	# the holder sees end of file on stdin
	fi
	if wait_for 10 gone "$hold_pid"; then
		wait "$hold_pid"
		rc=$?
		check "$label: holder unmaps and exits 0 on $how (rc $rc)" \
			test "$rc" -eq 0
	else
		nok "$label: holder exits within 10s of $how"
	fi
	stop_holder
	exec 7>&-
	sed 's/^/# /' "$work/hold.err"
}

# ---- setup -----------------------------------------------------------

echo "# ddsm one-node tests, payload $DDSM, kernel $(uname -r)"
[ "$(id -u)" -eq 0 ] || bail "must run as root"
for f in "$DDSM/ddsm.ko" "$BIN/ddsmctl" "$TESTS/ddsm-test-share" \
	 "$TESTS/ddsm-test-badcalls" "$TESTS/ddsm-test-hold" \
	 "$TESTS/ddsm-test-unbuilt"; do
	[ -e "$f" ] || bail "missing $f"
done
mkdir -p /tmp
work=$(mktemp -d /tmp/ddsm-one-node.XXXXXX) || bail "mktemp"
trap cleanup EXIT

if module_loaded; then
	echo "# ddsm already loaded; removing it first"
	run_bounded 30 rmmod ddsm || bail "cannot remove a stale ddsm"
fi

# ---- default load ----------------------------------------------------

err=$(run_bounded 30 insmod "$DDSM/ddsm.ko" 2>&1) ||
	{ nok "insmod ddsm.ko: $err"; bail "module did not load"; }
ok "insmod ddsm.ko"
check "ddsm listed in /proc/modules" module_loaded
check "$DEV appears as a character device" wait_for 5 test -c "$DEV"
mode=$(dev_mode)
check "$DEV has mode 0600 (got ${mode:-nothing})" test "$mode" = 600

run_tap 180 ddsm-test-share "$TESTS/ddsm-test-share"
run_tap 60 ddsm-test-badcalls "$TESTS/ddsm-test-badcalls"
run_tap 60 ddsm-test-pfnlimits "$TESTS/ddsm-test-pfnlimits"

out=$(run_bounded 10 "$BIN/ddsmctl" status 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
check "ddsmctl status exits 0 (rc $rc)" test "$rc" -eq 0
check "ddsmctl status: node id 0" grep -qx 'node id: 0' <<<"$out"
check "ddsmctl status: 1 node" grep -qx 'nr nodes: 1' <<<"$out"
check "ddsmctl status: peer 0 is node 0, state self" \
	grep -q '^  peer 0: node 0 state self ' <<<"$out"
size=$(sed -n 's/^space size: \([0-9]*\) .*/\1/p' <<<"$out")

out=$(run_bounded 10 "$BIN/ddsmctl" home 0x1234 2>&1)
rc=$?
home_ok() {
	[ "$rc" -eq 0 ] && grep -qx 'home: 0' <<<"$out" &&
		grep -qx 'unit: 1' <<<"$out"
}
check "ddsmctl home 0x1234: home 0, unit 1 (rc $rc)" home_ok
if [ -n "$size" ]; then
	run_bounded 10 "$BIN/ddsmctl" home "$size" >/dev/null 2>&1
	rc=$?
	check "ddsmctl home <size> fails with exit 1 (rc $rc)" test "$rc" -eq 1
else
	nok "ddsmctl status reports the space size"
fi
run_bounded 10 "$BIN/ddsmctl" frobnicate >/dev/null 2>&1
rc=$?
check "ddsmctl with an unknown command exits 2 (rc $rc)" test "$rc" -eq 2

# ---- rmmod while in use ----------------------------------------------

hold_test "fd open" eof
hold_test "fd closed" term --close-fd --no-stdin

err=$(run_bounded 30 rmmod ddsm 2>&1)
rc=$?
check "rmmod ddsm succeeds once nothing holds it (rc $rc${err:+: $err})" \
	test "$rc" -eq 0
check "ddsm gone from /proc/modules" module_gone
check "$DEV removed" wait_for 5 dev_gone

# ---- module parameters -----------------------------------------------

if err=$(run_bounded 30 insmod "$DDSM/ddsm.ko" size=64M mode=0640 2>&1); then
	ok "insmod ddsm.ko size=64M mode=0640"
	wait_for 5 test -c "$DEV"
	mode=$(dev_mode)
	check "$DEV has mode 0640 (got ${mode:-nothing})" test "$mode" = 640
	out=$(run_bounded 10 "$BIN/ddsmctl" status 2>&1)
	check "ddsmctl status: space size $SIZE_64M" \
		grep -q "^space size: $SIZE_64M " <<<"$out"
	# The boundary checks follow the new size.
	run_tap 60 ddsm-test-badcalls-64M "$TESTS/ddsm-test-badcalls"
	err=$(run_bounded 30 rmmod ddsm 2>&1)
	rc=$?
	check "rmmod ddsm (64M) (rc $rc${err:+: $err})" test "$rc" -eq 0
	check "$DEV removed" wait_for 5 dev_gone
else
	nok "insmod ddsm.ko size=64M mode=0640: $err"
fi

# ---- parameters out of range -----------------------------------------
# Refused at load with EINVAL (insmod says "invalid"), never raised or
# clamped; ERANGE (port=65536 once) would say "out of range".

for args in heartbeat_ms=9 heartbeat_ms=1800001 peer_timeout_ms=19 \
	    peer_timeout_ms=3600001 reconnect_ms=9 reconnect_ms=3600001 \
	    rejoin_ms=3600001 port=0 port=65536 tx_validate_defer_us=100001 \
	    "heartbeat_ms=1000 peer_timeout_ms=1999"; do
	# shellcheck disable=SC2086 # two parameters in one case
	err=$(run_bounded 30 insmod "$DDSM/ddsm.ko" $args 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		nok "insmod ddsm.ko $args refused (it loaded)"
		run_bounded 30 rmmod ddsm
	else
		check "insmod ddsm.ko $args refused with EINVAL (${err//$'\n'/ })" \
			grep -qi 'invalid' <<<"$err"
	fi
done
check "nothing loaded after the refusals" module_gone

DEFER=/sys/module/ddsm/parameters/tx_validate_defer_us
args="heartbeat_ms=10 peer_timeout_ms=20 reconnect_ms=10 rejoin_ms=3600000"
args="$args port=65535 tx_validate_defer_us=100000"
# shellcheck disable=SC2086 # several parameters
if err=$(run_bounded 30 insmod "$DDSM/ddsm.ko" $args 2>&1); then
	ok "insmod ddsm.ko at the limits ($args)"
	check "tx_validate_defer_us=100001 refused on a sysfs write" \
		bash -c "! echo 100001 >$DEFER 2>/dev/null"
	check "tx_validate_defer_us still 100000" \
		test "$(cat $DEFER 2>/dev/null)" = 100000
	check "tx_validate_defer_us=0 accepted on a sysfs write" \
		bash -c "echo 0 >$DEFER"
	err=$(run_bounded 30 rmmod ddsm 2>&1)
	rc=$?
	check "rmmod ddsm (limits) (rc $rc${err:+: $err})" test "$rc" -eq 0
	check "$DEV removed" wait_for 5 dev_gone
else
	nok "insmod ddsm.ko at the limits ($args): $err"
fi

# ---- a CONFIGURE whose rebuild and fallback both fail ------------------
# test_fail_build (self-test build, kernel/selftest/knobs.c) fails the
# next N node builds: 2 fails the rebuild and the fallback to one node,
# which leaves the node unbuilt until a CONFIGURE succeeds.

KNOB=/sys/module/ddsm/parameters/test_fail_build
knob_is() { [ "$(cat "$KNOB" 2>/dev/null)" = "$1" ]; }

if err=$(run_bounded 30 insmod "$DDSM/ddsm.ko" 2>&1); then
	ok "insmod ddsm.ko (for the unbuilt node)"
	wait_for 5 test -c "$DEV"
	if [ -w "$KNOB" ] && echo 2 >"$KNOB"; then
		ok "test_fail_build set to 2"
		out=$(run_bounded 30 "$BIN/ddsmctl" configure 0 2>&1)
		rc=$?
		echo "# ${out//$'\n'/ }"
		check "configure fails when both builds fail (rc $rc)" \
			test "$rc" -ne 0 -a "$rc" -ne 124
		check "configure's error is ENOMEM" \
			grep -qi 'memory' <<<"$out"
		check "test_fail_build used up (reads 0)" knob_is 0
		run_tap 30 ddsm-test-unbuilt-broken \
			"$TESTS/ddsm-test-unbuilt" broken
		# ddsmctl status reads STATUS, then each PEER, which fails.
		out=$(run_bounded 10 "$BIN/ddsmctl" status 2>&1)
		rc=$?
		sed 's/^/# /' <<<"$out"
		check "ddsmctl status on the unbuilt node: STATUS read (node id 0)" \
			grep -qx 'node id: 0' <<<"$out"
		check "ddsmctl status on the unbuilt node: PEER fails with EIO (rc $rc)" \
			grep -q '^[^ ]*ddsmctl: peer .*: Input/output error' <<<"$out"
		echo 0 >"$KNOB"
		out=$(run_bounded 30 "$BIN/ddsmctl" configure 0 2>&1)
		rc=$?
		check "configure succeeds again with test_fail_build=0 (rc $rc${out:+: ${out//$'\n'/ }})" \
			test "$rc" -eq 0
		run_tap 30 ddsm-test-unbuilt-built \
			"$TESTS/ddsm-test-unbuilt" built
	else
		nok "test_fail_build writable in $KNOB (the self-test build)"
	fi
	err=$(run_bounded 30 rmmod ddsm 2>&1)
	rc=$?
	check "rmmod ddsm (after the unbuilt node) (rc $rc${err:+: $err})" \
		test "$rc" -eq 0
	check "$DEV removed" wait_for 5 dev_gone
else
	nok "insmod ddsm.ko (for the unbuilt node): $err"
fi

tap_summary one_node

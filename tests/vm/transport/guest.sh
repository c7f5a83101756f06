#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, on every node at once:
#   qemu/cluster.sh -n 3 -t 300 --name transport -- bash /ddsm/tests/transport/guest.sh
#
# The RDMA transport between every pair of nodes, through the debugfs
# self-test (kernel/net/rdma_test.c):
#   1. insmod with inject=1; every peer comes up; no drops yet
#   2. per peer: ping (64 and 128 bytes), rpc (8-byte request answered
#      with the peer's pattern frame 0, CRC checked), xfer (RDMA WRITE +
#      READ, CRC), check of the peer's load-time pattern frames 0..3
#   3. malformed commands are refused with EINVAL
#   4. garbage injected into the next node (5 protocol messages, 3 unknown
#      transport types); each node checks what *it* received from the
#      previous one: exact counter values, dmesg reasons, and that the
#      sender still answers pings
#   5. rmmod with live connections, highest id first: each node waits for
#      the next higher one to show "down" (a clean disconnect, not a
#      heartbeat death), then unloads itself
# Every wait is bounded.  TAP-like lines; exit 0 iff every check passed.

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"

NEXT=$(((ME + 1) % N)) PREV=$(((ME + N - 1) % N))
PINGS=200 XFERS=30
DONE_FRAME=15 DONE_SEED=$((900000 + ME))	# "my tests are over" flag
READY_FRAME=14 READY_SEED=$((800000 + ME))	# "4b is over here" flag

bail() { nok "$*"; echo "# transport_mesh: node$ME: bailed out"; exit 1; }
[ "$N" -ge 2 ] || bail "needs at least 2 nodes (got $N)"

# ---- 1. load, connect ------------------------------------------------

module_loaded && { rmmod ddsm || bail "a stale ddsm is loaded"; }
tp_load inject=1 || bail "insmod ddsm.ko node_id=$ME nodes=$DDSM_NODE_IPS inject=1"
ok "insmod ddsm.ko node_id=$ME inject=1"
check "debugfs has selftest and inject" test -w "$ST" -a -w "$INJ"
t0=$(now)
if wait_for 60 all_up; then
	ok "every peer up after $(ms_between "$t0" "$(now)") ms"
else
	status | sed 's/^/# /'
	bail "every peer up within 60 s"
fi
check "peer $ME is self" peer_is "$ME" self
d=$(status_counter msgs_dropped)
check "no protocol drops before injection (msgs_dropped ${d:-?})" test "$d" = 0
for ((p = 0; p < N; p++)); do
	[ "$p" -eq "$ME" ] && continue
	d=$(peer_drops "$p")
	check "no transport drops from node$p before injection (${d:-?})" \
		test "$d" = 0
done

# ---- 2. traffic to every peer ----------------------------------------

for ((p = 0; p < N; p++)); do
	[ "$p" -eq "$ME" ] && continue
	for size in 64 128; do
		st 60 "ping $p $PINGS $size"
		check "ping node$p x$PINGS ${size}B: $ST_OUT" ping_ok "$PINGS"
	done
	st 60 "rpc $p $XFERS"
	check "rpc node$p x$XFERS: $ST_OUT" ping_ok "$XFERS"
	st 90 "xfer $p $XFERS"
	check "xfer node$p x$XFERS: $ST_OUT" xfer_ok "$XFERS"
	for idx in 0 1 2 3; do
		st 20 "check $p $idx $((p * 1000 + idx))"
		check "node$p pattern frame $idx: $ST_OUT" check_ok
	done
	# The check must be able to fail: a wrong seed gives "bad".
	st 20 "check $p 0 $((p * 1000 + 7))"
	check "node$p frame 0 against a wrong seed is bad: $ST_OUT" \
		eval '[[ " $ST_OUT " == *" bad crc="* ]]'
done

# ---- 3. malformed commands -------------------------------------------

einval() { # CMD FILE: the write must fail with EINVAL
	local err
	err=$(bash -c 'echo "$1" >"$2"' _ "$1" "$2" 2>&1)
	[ $? -ne 0 ] && [[ $err == *"Invalid argument"* ]]
}
for c in "frob $NEXT 1" "ping $ME 1 64" "ping $N 1 64" "ping $NEXT 1 129" \
	"ping $NEXT 0 64" "xfer $NEXT" "bw $NEXT 10 0" "bw $NEXT 10 65" \
	"rpc $ME 1" "rpc $NEXT 0" "rpc $NEXT"; do
	check "selftest refuses '$c' with EINVAL" einval "$c" "$ST"
done
for c in "$NEXT msg" "$NEXT msg zz" "$NEXT type 256" \
	"$ME type 99" "$N msg 00" "$NEXT frob 1"; do
	check "inject refuses '$c' with EINVAL" einval "$c" "$INJ"
done

# ---- 4. garbage to the next node -------------------------------------

# A 40-byte wire message (kernel/proto/msg.h): MAGIC TYPE VERSION; src is
# this node, dst the next one, everything else zero.
wire() {
	printf '%02x%02x000000%02x%02x00%02x00%02x00' "$1" "$2" "$3" "$ME" "$NEXT" "$ME"
	printf '%0*d' 56 0
}
rnd() { # N random bytes as hex, the first one never the wire magic 0xd5
	local h
	h=$(od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n')
	echo "5a${h:2}"
}
# payload:verdict the receiver must log
garbage=("$(rnd 40):bad header" "$(rnd 23):bad length"
	"$(wire 0xd6 1 1):bad header" "$(wire 0xd5 99 1):bad type"
	"$(wire 0xd5 0 1):bad type")
bad_types=(99 0 8)		# RDMA_T_NR is 8 (7 is AUTH)
for g in "${garbage[@]}"; do
	err=$(bash -c 'echo "$1" >"$2"' _ "$NEXT msg ${g%%:*}" "$INJ" 2>&1)
	check "inject to node$NEXT: ${g#*:} (${g%%:*})${err:+: $err}" test -z "$err"
done
for t in "${bad_types[@]}"; do
	err=$(bash -c 'echo "$1" >"$2"' _ "$NEXT type $t" "$INJ" 2>&1)
	check "inject to node$NEXT: transport type $t${err:+: $err}" test -z "$err"
done
st 60 "ping $NEXT 50 64"
check "node$NEXT still answers pings after the injection: $ST_OUT" ping_ok 50

# What node PREV injected here.
want_proto=${#garbage[@]} want_tp=${#bad_types[@]}
got_all() {
	[ "$(status_counter msgs_dropped)" -ge "$want_proto" ] &&
		[ "$(peer_drops "$PREV")" -ge "$want_tp" ]
}
if wait_for 120 got_all; then
	sleep 1		# anything beyond the expected count arrives now
	ok "garbage from node$PREV arrived"
else
	nok "garbage from node$PREV arrived within 120 s"
fi
d=$(status_counter msgs_dropped)
check "msgs_dropped is exactly $want_proto (got ${d:-?})" test "$d" = "$want_proto"
d=$(peer_drops "$PREV")
check "transport drops from node$PREV exactly $want_tp (got ${d:-?})" \
	test "$d" = "$want_tp"
for ((p = 0; p < N; p++)); do
	[ "$p" -eq "$ME" ] || [ "$p" -eq "$PREV" ] && continue
	d=$(peer_drops "$p")
	check "no transport drops from node$p, which injected nothing (${d:-?})" \
		test "$d" = 0
done
log=$(dmesg)
count() { grep -c "$1" <<<"$log"; }
for v in "bad header:2" "bad length:1" "bad type:2"; do
	c=$(count "dropped message from node $PREV: ${v%:*}\$")
	check "dmesg: ${v#*:} x 'dropped message from node $PREV: ${v%:*}' (got $c)" \
		test "$c" = "${v#*:}"
done
c=$(count "dropped message from node")
check "dmesg: no other dropped protocol message (got $c)" test "$c" = "$want_proto"
c=$(count "node $PREV: dropped malformed transport message")
check "dmesg: $want_tp malformed transport messages from node$PREV (got $c)" \
	test "$c" = "$want_tp"
check "node$PREV still up after sending garbage" peer_is "$PREV" up
st 60 "ping $PREV 50 128"
check "ping node$PREV after its garbage: $ST_OUT" ping_ok 50
st 60 "xfer $PREV 5"
check "xfer node$PREV after its garbage: $ST_OUT" xfer_ok 5

# ---- 4b. only configured peers may connect ---------------------------

# rping is a stranger to ddsm's connection protocol: its request must be
# refused (and logged) by the next node's listener, never accepted.
IFS=, read -ra IPS <<<"$DDSM_NODE_IPS"
if timeout 20 rping -c -a "${IPS[NEXT]}" -p 18515 -C 1 -S 64 >/dev/null 2>&1; then
	nok "a non-ddsm client's connection to node$NEXT's ddsm port is refused"
else
	ok "a non-ddsm client's connection to node$NEXT's ddsm port is refused"
fi
refused() { dmesg | grep -q "refused connection from ${IPS[PREV]}"; }
check "dmesg: node$PREV's stranger connection refused and logged" \
	wait_for 30 refused
check "node$PREV still up after the refused stranger" peer_is "$PREV" up

# ---- 4c. the RDMA device goes away and comes back ----------------------

# `rdma link delete` must not hang on ddsm's listener (the CM can only
# finish once every id on the device is gone); with the device back,
# ddsm listens again and the peers reconnect.
LAST=$((N - 1))
ready_set() { st 20 "check $1 $READY_FRAME $((800000 + $1))" && check_ok; }
all_ready() {
	local p
	for ((p = 0; p < LAST; p++)); do
		ready_set "$p" || { sleep 0.5; return 1; }
	done
}
if [ "$ME" -eq "$LAST" ]; then
	# Only once the others are past 4b, which needs this node up.
	check "every other node past its stranger checks (flags read over RDMA)" \
		wait_for 240 all_ready
	t0=$(now)
	if timeout 60 rdma link delete rxe0; then
		ok "rdma link delete rxe0 with ddsm loaded ($(ms_between "$t0" "$(now)") ms)"
	else
		nok "rdma link delete rxe0 with ddsm loaded (timed out or failed)"
	fi
	check "dmesg: the listener's device removal logged" \
		eval 'dmesg | grep -q "RDMA device of the listener removed"'
	check "rdma link add rxe0 again" rdma link add rxe0 type rxe netdev eth0
	check "dmesg: listening again" \
		wait_for 60 eval 'dmesg | grep -q "listening again"'
	check "every peer up again after the device came back" \
		wait_for 120 all_up
else
	st 10 "fill $READY_FRAME $READY_SEED"
	check "ready flag set in frame $READY_FRAME" \
		test "$(kv "$ST_OUT" seed)" = "$READY_SEED"
	wait_for 240 eval 'dmesg | grep -q "node $LAST (.*) down"'
	check "node$LAST back up after its device came back" \
		wait_for 180 peer_is "$LAST" up
fi
st 60 "ping $NEXT 20 64"
check "ping node$NEXT after the device came back: $ST_OUT" ping_ok 20

# ---- 5. rmmod with live connections, highest id first ----------------

st 10 "fill $DONE_FRAME $DONE_SEED"
check "done flag set in frame $DONE_FRAME" test "$(kv "$ST_OUT" seed)" = "$DONE_SEED"
flag_set() { st 20 "check $1 $DONE_FRAME $((900000 + $1))" && check_ok; }
all_done() {
	local p
	for ((p = 0; p < N; p++)); do
		[ "$p" -eq "$ME" ] || flag_set "$p" || { sleep 0.5; return 1; }
	done
}
if [ "$ME" -eq $((N - 1)) ]; then
	# The others finished their tests: no one needs this node any more.
	check "every node's tests finished (done flags read over RDMA)" \
		wait_for 240 all_done
else
	t0=$(now)
	wait_for 240 eval '! peer_is $((ME + 1)) up'
	s=$(peer_state $((ME + 1)))
	check "node$((ME + 1)) unloaded: its state here went up -> down (got $s after $(ms_between "$t0" "$(now)") ms)" \
		test "$s" = down
fi
live=0
for ((p = 0; p < N; p++)); do peer_is "$p" up && live=$((live + 1)); done
status | grep ' peer ' | sed "s/^ */# node$ME: /"
t0=$(now)
if timeout 60 rmmod ddsm; then
	ok "rmmod ddsm with $live live connection(s) ($(ms_between "$t0" "$(now)") ms)"
else
	nok "rmmod ddsm with $live live connection(s)"
fi
check "ddsm gone from /proc/modules" wait_for 5 eval '! module_loaded'
check "/dev/ddsm and debugfs ddsm/ removed" eval '[ ! -e /dev/ddsm ] && [ ! -e $DBG ]'

# ---- 6. a frame pool too small for the self-test's slices -------------

# rdma_frames=1 leaves no frame to spare: xfer, bw and check must refuse
# (EINVAL), not index past the pool.  Lower ids are still checking that
# this node went down (step 5): come back only once they have seen it.
sleep 8
if tp_load rdma_frames=1; then
	ok "insmod ddsm.ko rdma_frames=1"
	check "every peer up with rdma_frames=1" wait_for 120 all_up
	for c in "xfer $NEXT 3" "bw $NEXT 3 1" "check $NEXT 0 1"; do
		st 20 "$c"
		check "'$c' with one frame refused: $ST_OUT" \
			eval '[[ $ST_OUT == *"Invalid argument"* ]]'
	done
	# The others may still be asking this node; then leave together.
	sleep 8
	check "rmmod ddsm (rdma_frames=1)" timeout 60 rmmod ddsm
else
	nok "insmod ddsm.ko rdma_frames=1"
fi

tap_summary "transport_mesh: node$ME"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/peer_death/host.sh (host), which runs this on every
# node.  The last node is the victim; the host SIGKILLs its VM mid-traffic
# and later boots it again with PD_ROLE=rejoin.
#
#   survivors  load, keep pinging/xfer-ing every peer until the victim is
#              no longer up, then check how it died, that self-tests against
#              it fail fast, that survivors still talk, wait for the victim
#              to come back and talk to it again
#   victim     load, keep traffic running until killed
#   rejoin     (the victim's second boot) load, every peer up, traffic ok
#
# Progress goes to the host as control lines (marker): "pd up",
# "pd round K", "pd gone STATE", "pd alone-done", "pd rejoined".
# Environment: PD_ROLE (first|rejoin), PD_HB_MS, PD_TIMEOUT_MS, PD_RECONNECT_MS.

. "$(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"

ROLE=${PD_ROLE:-first}
HB=${PD_HB_MS:-200} TMO=${PD_TIMEOUT_MS:-3000} RECON=${PD_RECONNECT_MS:-1000}
VICTIM=$((N - 1))
# A self-test against a dead peer must give up within this (seconds).
FAIL_FAST=$((TMO / 1000 + 6))

finish() {
	tap_summary "peer_death: node$ME ($ROLE)"
	exit
}
bail() { nok "$*"; finish; }

peers() { local p; for ((p = 0; p < N; p++)); do [ "$p" -eq "$ME" ] || echo "$p"; done; }

# traffic P PINGS XFERS: a round with node P; 0 iff every op passed.
traffic() {
	st 30 "ping $1 $2 64" && ping_ok "$2" || { LAST_FAIL="$ST_OUT (${ST_SECS}s)"; return 1; }
	st 30 "xfer $1 $3" && xfer_ok "$3" || { LAST_FAIL="$ST_OUT (${ST_SECS}s)"; return 1; }
}

# Bounded checks of one peer: traffic, then its pattern frames.
talk_to() { # P LABEL
	local idx
	if traffic "$1" 50 10; then
		ok "$2: ping x50 and xfer x10 with node$1"
	else
		nok "$2: ping x50 and xfer x10 with node$1: $LAST_FAIL"
	fi
	for idx in 0 1; do
		st 20 "check $1 $idx $(($1 * 1000 + idx))"
		check "$2: node$1 pattern frame $idx: $ST_OUT" check_ok
	done
}

tp_load heartbeat_ms="$HB" peer_timeout_ms="$TMO" reconnect_ms="$RECON" ||
	bail "insmod ddsm.ko node_id=$ME ($ROLE)"
ok "insmod ddsm.ko ($ROLE, heartbeat ${HB} ms, timeout ${TMO} ms, reconnect ${RECON} ms)"
t0=$(now)
wait_for 90 all_up || { status | sed 's/^/# /'; bail "every peer up within 90 s"; }
ok "every peer up after $(ms_between "$t0" "$(now)") ms"
marker "pd up"

if [ "$ROLE" = rejoin ]; then
	for p in $(peers); do talk_to "$p" "after restart"; done
	finish
fi

# ---- traffic until the victim goes ------------------------------------

round=0 last_alive=
end=$((SECONDS + 150))
while [ "$SECONDS" -lt "$end" ]; do
	for p in $(peers); do
		if traffic "$p" 20 3; then
			[ "$p" -eq "$VICTIM" ] && last_alive=$(now)
		elif [ "$p" -eq "$VICTIM" ]; then
			note "op against node$p failed: $LAST_FAIL"
			inflight=$LAST_FAIL
		else
			nok "traffic with node$p during the run: $LAST_FAIL"
		fi
	done
	[ "$ME" -ne "$VICTIM" ] && ! peer_is "$VICTIM" up && break
	round=$((round + 1))
	marker "pd round $round $(now)"
done
[ "$ME" -eq "$VICTIM" ] && bail "still running after 150 s: the host never killed this node"
gone_at=$(now)
state=$(peer_state "$VICTIM")
line=$(dmesg | grep -m1 "node $VICTIM (.*) dead: no heartbeat")
ts=$(sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' <<<"$line")
# The host turns the dmesg time into its own clock with the round markers.
marker "pd gone $state ${ts:-none}"
ok "node$VICTIM left state up after $round full rounds (now: $state)"

# ---- how it died --------------------------------------------------------

check "node$VICTIM declared dead, not merely down (state $state)" test "$state" = dead
check "dmesg: ${line:-no 'node $VICTIM (...) dead: no heartbeat' line}" test -n "$line"
note "last full round with node$VICTIM ended at ${last_alive:-?}s, dead at ${ts:-?}s (dmesg), seen by this script at ${gone_at}s"
# The op that was running when the VM was killed ended with an error.
if [ -n "${inflight:-}" ]; then
	check "the op in flight against node$VICTIM failed instead of hanging: $inflight" \
		eval '[[ $inflight != "(no answer"* ]]'
fi

# Self-tests against the dead node fail with an error, and fast.
fails_fast() { # CMD
	st "$FAIL_FAST" "$1"
	case $? in
	124) return 1 ;;
	1) return 0 ;;		# write(2) failed: ENOTCONN and the like
	esac
	[ "$(kv "$ST_OUT" error)" != 0 ] && [ -n "$(kv "$ST_OUT" error)" ] &&
		[ "$(kv "$ST_OUT" ok)" != "$(kv "$ST_OUT" count)" ]
}
for c in "ping $VICTIM 10 64" "xfer $VICTIM 5" "bw $VICTIM 50 8" \
	"check $VICTIM 0 $((VICTIM * 1000))"; do
	if fails_fast "$c"; then
		ok "'$c' against the dead node fails in ${ST_SECS}s: $ST_OUT"
	else
		nok "'$c' against the dead node fails within ${FAIL_FAST}s: $ST_OUT"
	fi
done

# The survivors keep talking.
for p in $(peers); do
	[ "$p" -eq "$VICTIM" ] && continue
	check "node$p still up" peer_is "$p" up
	talk_to "$p" "while node$VICTIM is dead"
done
marker "pd alone-done"

# ---- the victim comes back ---------------------------------------------

t0=$(now)
if wait_for 120 peer_is "$VICTIM" up; then
	ok "node$VICTIM up again $(ms_between "$t0" "$(now)") ms after the survivors' checks"
	talk_to "$VICTIM" "after node$VICTIM's restart"
	line=$(dmesg | grep -c "node $VICTIM (.*) up")
	check "dmesg: node$VICTIM came up twice (got $line)" test "$line" = 2
else
	status | sed 's/^/# /'
	nok "node$VICTIM up again within 120 s (state $(peer_state "$VICTIM"))"
fi
for p in $(peers); do
	[ "$p" -eq "$VICTIM" ] && continue
	talk_to "$p" "at the end"
done
marker "pd rejoined"
finish

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The guest-side library: every script that runs inside the VMs sources it
# (". $(dirname "${BASH_SOURCE[0]}")/../lib/guest.sh"), not runs it.
# Options stay the caller's (no set -u here): a script keeps the ones it
# had.  From qemu/guest/init's environment: DDSM_NODE_ID, DDSM_NR_NODES,
# DDSM_NODE_IPS.
#
# Variables: ME, N, IPS (the comma-separated list), DDSM (/ddsm), CTL
# (ddsmctl), TESTS (the test programs), failed/total (tap.sh), t_start.
#
#   ok/nok/check/result/note    TAP lines as "node$ME: ..." (tap.sh)
#   wait_for SECS CMD...        poll CMD every 0.1 s, bounded; 1 on timeout
#   peers_up                    ddsmctl status shows every peer up
#   diag                        this node's ddsm counters and kernel messages
#   load_cluster                insmod as node $ME of $IPS, wait for every peer
#                               (ddsmctl wait, 60 s), exit 1 with diag on failure
#   run NAME TIMEOUT CMD...     a test program, bounded; its TAP lines pass
#                               through, then one line for its exit status
#   run_bench NAME TIMEOUT CMD...  the same, its "bench" lines as comments
#   check_no_sigbus             no fault ended in SIGBUS (fault_errors 0)
#   marker LINE                 a control line to the host (qemu/lib.sh's
#                               cl_marker and cl_wait_ctl see it)
#
# The RDMA transport's debugfs self-test (docs/transport.md), for the
# transport, peer_death and txdeath components and the benchmarks:
#   tp_load [PARAMS...]        insmod ddsm.ko for this node, mount debugfs
#   st SECS "CMD"              one self-test command, bounded; result in $ST_OUT
#   kv "LINE" KEY              value of KEY=... in a result line
#   peer_state P / peer_drops P / status_counter NAME   from ddsmctl status
#   peer_is P STATE / all_up   a peer's state / every peer up
#   now / ms_between A B       uptime stamps and the ms between two
#   trace_setup KB EVENT...    ftrace events on, recording off
#   stage_summary TAG          median/p90 per key of "KEY US" lines
#   read_lat PORT              ib_read_lat -s 4096, node 0 serving, node 1
#                              printing "bench read_lat T_TYPICAL T_AVG"

# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# shellcheck disable=SC2034 # for the scripts that source this
ME=${DDSM_NODE_ID:?} N=${DDSM_NR_NODES:?} IPS=${DDSM_NODE_IPS:?}
TAP_WHO=node$ME
DDSM=${DDSM:-/ddsm}
CTL=$DDSM/bin/ddsmctl
# shellcheck disable=SC2034 # for the scripts that source this
TESTS=$DDSM/tests
t_start=$SECONDS

peers_up() { [ "$($CTL status 2>/dev/null | grep -c 'state up')" -ge $((N - 1)) ]; }
wait_for() {
	local n=$(($1 * 10)); shift
	until "$@"; do ((n-- > 0)) || return 1; sleep 0.1; done
}
gone() { ! kill -0 "$1" 2>/dev/null; }
module_loaded() { grep -q '^ddsm ' /proc/modules; }

diag() {
	echo "# node$ME: --- ddsmctl status ---"
	$CTL status 2>&1 | sed "s/^/# node$ME: /"
	echo "# node$ME: --- dmesg | grep ddsm ---"
	dmesg | grep -i ddsm | tail -n 60 | sed "s/^/# node$ME: /"
}

load_cluster() {
	if ! insmod "$DDSM/ddsm.ko" node_id="$ME" nodes="$IPS"; then
		nok "insmod ddsm.ko node_id=$ME nodes=$IPS"
		diag
		exit 1
	fi
	ok "insmod ddsm.ko node_id=$ME nodes=$IPS"
	if ! $CTL wait --timeout 60; then
		nok "all $((N - 1)) peers up within 60 s (ddsmctl wait)"
		diag
		exit 1
	fi
	ok "all $((N - 1)) peers up ($((SECONDS - t_start)) s)"
}

run() {
	local name=$1 limit=$2 t0=$SECONDS rc
	shift 2
	timeout "$limit" "$@"
	rc=$?
	echo "# node$ME: $name exit $rc after $((SECONDS - t0)) s"
	if [ $rc -ne 0 ]; then
		nok "$name (exit $rc$([ $rc -eq 124 ] && echo ', killed by timeout'))"
		diag
	else
		ok "$name"
	fi
}

# run_bench NAME LIMIT CMD...: run as run(), the program's "bench" lines
# (timings, not checks) printed as comments.
run_bench() {
	local name=$1 limit=$2
	shift 2
	# shellcheck disable=SC2016 # expanded by that bash
	run "$name" "$limit" bash -c '"$@" | sed "s/^bench /# bench /"; exit ${PIPESTATUS[0]}' _ "$@"
}

check_no_sigbus() {
	check "no fault gave SIGBUS (fault_errors 0)" \
		bash -c "$CTL status | grep -q '^fault_errors: 0$'"
}

# Control line to the host (qemu/lib.sh's cl_marker sees it).
marker() { echo "$*" >/dev/ttyS1; }

# host_says WORD SECS: wait for a control line WORD from the host (fd 3,
# qemu/guest/init's ttyS1; qemu/lib.sh's cl_send); 1 if it does not come.
host_says() {
	local line end=$((SECONDS + $2))
	while [ "$SECONDS" -lt "$end" ]; do
		read -r -t "$((end - SECONDS))" line <&3 || continue
		[ "${line%$'\r'}" = "$1" ] && return 0
	done
	return 1
}

# pm NAME: this node's pmem_NAME counter (ddsmctl status).
pm() { $CTL status | sed -n "s/^pmem_$1: //p"; }
# count TEXT: how many lines of the kernel log hold TEXT.
count() { dmesg | grep -c "$1"; }
# wait_log TEXT N: until the kernel has logged TEXT more than N times,
# within 300 s.  It reads /dev/kmsg, so it wakes within a few ms.
wait_log() {
	local line seen=0
	while read -r -t 300 line; do
		[[ $line == *"$1"* ]] && ((++seen > $2)) && return 0
	done </dev/kmsg
	return 1
}

# ---- the transport's self-test ----------------------------------------

DBG=/sys/kernel/debug/ddsm
ST=$DBG/selftest
# shellcheck disable=SC2034 # for the scripts that source this
INJ=$DBG/inject

# Seconds since boot with centiseconds (same base as dmesg, near enough).
now() { local u; read -r u _ </proc/uptime; echo "$u"; }
# Milliseconds between two now() values.
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }

tp_load() {
	mountpoint -q /sys/kernel/debug 2>/dev/null ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	insmod /ddsm/ddsm.ko node_id="$ME" nodes="$DDSM_NODE_IPS" "$@" &&
		wait_for 5 test -w "$ST"
}

# st SECS CMD: write CMD to the selftest file and read the result, in a
# child that is abandoned (not waited for) if it overruns SECS.  Sets
# ST_OUT (the result line, or the write's error) and ST_SECS (elapsed).
# Returns 0 if the write succeeded, 1 if it failed, 124 if it overran.
st() {
	local secs=$1 cmd=$2 f pid t0 rc
	f=$(mktemp /tmp/st.XXXXXX)
	t0=$(now)
	bash -c 'echo "$1" >"$2" && cat "$2"' _ "$cmd" "$ST" >"$f" 2>&1 &
	pid=$!
	if wait_for "$secs" gone "$pid"; then
		wait "$pid" && rc=0 || rc=1
	else
		kill -KILL "$pid" 2>/dev/null
		disown "$pid" 2>/dev/null
		rc=124
	fi
	# shellcheck disable=SC2034 # for the caller
	ST_SECS=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
	ST_OUT=$(tr '\n' ' ' <"$f")
	ST_OUT=${ST_OUT% }
	[ $rc -eq 124 ] && ST_OUT="(no answer after ${secs}s) $ST_OUT"
	rm -f "$f"
	return $rc
}

kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }

# Result checks on $ST_OUT.
ping_ok() { # COUNT
	[ "$(kv "$ST_OUT" ok)" = "$1" ] && [ "$(kv "$ST_OUT" bad)" = 0 ] &&
		[ "$(kv "$ST_OUT" error)" = 0 ]
}
xfer_ok() { ping_ok "$1"; }
check_ok() { [[ " $ST_OUT " == *" ok crc="* ]]; }

status() { ddsmctl status 2>/dev/null; }
peer_line() { status | grep -E "^ *peer $1: "; }
peer_state() { peer_line "$1" | sed -n 's/.* state \([a-z]*\) .*/\1/p'; }
peer_drops() { peer_line "$1" | sed -n 's/.* drops \([0-9]*\).*/\1/p'; }
status_counter() { status | sed -n "s/^$1: //p"; }
peer_is() { [ "$(peer_state "$1")" = "$2" ]; }

all_up() {
	local p
	for ((p = 0; p < N; p++)); do
		[ "$p" -eq "$ME" ] && continue
		peer_is "$p" up || return 1
	done
}

# read_lat PORT: perftest's 4 KiB RDMA READ latency, the reference of the
# latency benchmarks.  Node 0 serves, node 1 measures (retrying until the
# server listens) and prints "bench read_lat T_TYPICAL_US T_AVG_US"; other
# nodes skip it.  Data line: #bytes #iterations t_min t_max t_typical ...
read_lat() {
	local cmd=(ib_read_lat -d rxe0 -s 4096 -n "${ITERS:-1000}" -F -p "$1")
	local out try line

	[ "$ME" -le 1 ] || return 0
	out=$(mktemp)
	if [ "$ME" -eq 0 ]; then
		timeout 180 "${cmd[@]}" >"$out" 2>&1 || nok "ib_read_lat server"
		rm -f "$out"
		return
	fi
	for ((try = 1; try <= 60; try++)); do
		timeout 180 "${cmd[@]}" "${IPS[0]}" >"$out" 2>&1
		grep -q "Couldn't connect" "$out" || break
		sleep 1
	done
	line=$(awk '/#bytes/ { getline; print; exit }' "$out")
	if [[ $line =~ ^\ *4096\ + ]]; then
		echo "# ib_read_lat -s 4096: $line"
		awk '{ print "bench read_lat", $5, $6 }' <<<"$line"
	else
		nok "ib_read_lat client"
		sed 's/^/# /' "$out"
	fi
	rm -f "$out"
}

# trace_setup KB EVENT...: tracefs mounted, a KB-kilobyte buffer per CPU,
# emptied, the given events (e.g. ddsm/ddsm_fault) enabled and recording
# off; the caller switches $TR/tracing_on around what it measures.
TR=/sys/kernel/tracing
trace_setup() {
	local kb=$1 e

	shift
	mountpoint -q $TR || mount -t tracefs nodev $TR || return 1
	echo 0 >$TR/tracing_on
	echo "$kb" >$TR/buffer_size_kb || return 1
	echo >$TR/trace
	for e in "$@"; do
		echo 1 >"$TR/events/$e/enable" || return 1
	done
}

# stage_summary TAG: "KEY VALUE" lines on stdin (a trace analysis's
# intervals in us) -> one "bench TAG $ME KEY N MEDIAN P90" line per key.
stage_summary() {
	sort -k1,1 -k2,2n | awk -v tag="$1" -v me="$ME" '
	function flush() {
		if (m)
			printf "bench %s %d %s %d %.1f %.1f\n", tag, me, k, m,
				a[int((m + 1) / 2)], a[int((9 * m + 9) / 10)]
	}
	$1 != k { flush(); k = $1; m = 0 }
	{ a[++m] = $2 }
	END { flush() }'
}

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Reusable pieces of the QEMU cluster harness; sourced by qemu/cluster.sh and
# by tests that need finer control (e.g. kill one node mid-run and start it
# again with the same id: cl_stop_node 1 KILL; cl_start_node 1).
#
# State lives in CL_* globals.  Set CL_NAME, CL_N, CL_CMD (and optionally
# CL_MEM, CL_PMEM, CL_TIMEOUT), call cl_setup, then cl_start_node per node.
# Always arrange for cl_teardown to run (trap ... EXIT).
#
# Per node i, in $CL_LOG:  node<i>.console  kernel console (ttyS0)
#                          node<i>.out      command output (ttyS2)
#                          node<i>.ctl      control lines sent by the guest
#                          node<i>.qemu     QEMU's own stderr

CL_QEMU_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CL_REPO=$(cd "$CL_QEMU_DIR/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$CL_REPO/build}
STAGE=${STAGE:-$BUILD_DIR/stage}
KVER=${KVER:-$("$CL_REPO/tools/kver.sh")}
export BUILD_DIR STAGE KVER

CL_MEM=${CL_MEM:-512}
CL_PMEM=${CL_PMEM:-0}
CL_TIMEOUT=${CL_TIMEOUT:-300}
declare -a CL_QPID=() CL_SPID=() CL_CTLPID=() CL_CTLOFF=()

cl_msg() { echo "[cluster] $*" >&2; }

# cl_setup: build/refresh the image layers, make run and log directories.
cl_setup() {
	local q=$BUILD_DIR/qemu
	CL_RUN=$(mktemp -d "${TMPDIR:-/tmp}/ddsm-$CL_NAME.XXXXXX")
	CL_LOG=$q/logs/$CL_NAME-$(date +%Y%m%d-%H%M%S)-$$
	mkdir -p "$CL_LOG"
	ln -sfn "$(basename "$CL_LOG")" "$q/logs/$CL_NAME-latest"
	bash "$CL_QEMU_DIR/build-initramfs.sh" "$CL_RUN/project.cpio.gz" || return 1
	CL_BASE=$q/base-$KVER.cpio.gz
	CL_KERNEL=$q/vmlinux-$KVER
	[ -s "$CL_KERNEL" ] || CL_KERNEL=/boot/vmlinuz-$KVER
	# One L2 segment per run: the PID (< pid_max, 32768 here) picks the port.
	CL_PORT=${DDSM_MCAST_PORT:-$((10000 + $$ % 50000))}
	CL_IPS=
	local i
	for ((i = 0; i < CL_N; i++)); do
		CL_IPS+=${CL_IPS:+,}10.77.0.$((i + 1))
	done
	CL_DEADLINE=$((SECONDS + CL_TIMEOUT))
}

# cl_initrd I: base + project + a tiny per-node layer, concatenated.
cl_initrd() {
	local i=$1 d=$CL_RUN/node$1.d
	rm -rf "$d"
	mkdir -p "$d/etc/ddsm"
	{
		echo "DDSM_NODE_ID=$i"
		echo "DDSM_NR_NODES=$CL_N"
		echo "DDSM_NODE_IPS=$CL_IPS"
		# The host enforces the wall clock; this only stops a guest from
		# waiting forever if the host went away.
		echo "DDSM_CTL_TIMEOUT=$((CL_TIMEOUT + 60))"
	} >"$d/etc/ddsm/node.env"
	printf '%s\n' "$CL_CMD" >"$d/etc/ddsm/cmd"
	(cd "$d" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet) |
		gzip >"$CL_RUN/node$i.cpio.gz"
	cat "$CL_BASE" "$CL_RUN/project.cpio.gz" "$CL_RUN/node$i.cpio.gz" \
		>"$CL_RUN/node$i.initrd"
}

# cl_start_node I: boot node I in the background (also used for a restart).
cl_start_node() {
	local i=$1 accel=(-accel tcg -cpu max) mach=pc mem=${CL_MEM}M pm=()
	local fifo=$CL_RUN/node$i.ctl
	[ "${DDSM_ACCEL:-tcg}" = kvm ] && accel=(-accel kvm -cpu host)
	if [ "$CL_PMEM" -gt 0 ]; then
		# File-backed NVDIMM that outlives the VM (crash-recovery tests).
		mkdir -p "$BUILD_DIR/qemu/pmem"
		mach=pc,nvdimm=on
		mem=${CL_MEM}M,slots=2,maxmem=$((CL_MEM + CL_PMEM + 1024))M
		pm=(-object "memory-backend-file,id=pm0,share=on,size=${CL_PMEM}M,mem-path=$BUILD_DIR/qemu/pmem/$CL_NAME-node$i.img"
			-device nvdimm,id=nv0,memdev=pm0)
	fi
	cl_initrd "$i"
	rm -f "$fifo.in" "$fifo.out"
	mkfifo "$fifo.in" "$fifo.out"
	touch "$CL_LOG/node$i.ctl" "$CL_LOG/node$i.out" "$CL_LOG/node$i.console"
	CL_CTLOFF[i]=$(stat -c %s "$CL_LOG/node$i.ctl")
	local outoff
	outoff=$(stat -c %s "$CL_LOG/node$i.out")

	qemu-system-x86_64 -name "ddsm-$CL_NAME-node$i" \
		-machine "$mach" "${accel[@]}" -smp 1 -m "$mem" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$CL_KERNEL" -initrd "$CL_RUN/node$i.initrd" \
		-append "console=ttyS0 panic=-1 quiet no_timer_check ${DDSM_KERNEL_ARGS:-}" \
		-chardev "file,id=con,path=$CL_LOG/node$i.console,append=on" -serial chardev:con \
		-chardev "pipe,id=ctl,path=$fifo" -serial chardev:ctl \
		-chardev "file,id=out,path=$CL_LOG/node$i.out,append=on" -serial chardev:out \
		-netdev "socket,id=n0,mcast=230.0.0.1:$CL_PORT,localaddr=127.0.0.1" \
		-device "virtio-net-pci,id=nic0,netdev=n0,mac=52:54:00:77:00:$(printf %02x $((i + 1))),romfile=" \
		-monitor "unix:$CL_RUN/node$i.mon,server=on,wait=off" \
		"${pm[@]}" ${DDSM_QEMU_EXTRA:-} \
		</dev/null 2>>"$CL_LOG/node$i.qemu" &
	CL_QPID[i]=$!
	# QEMU holds both FIFOs open read-write, so this reader sees EOF (and
	# exits) exactly when that QEMU is gone.
	cat "$fifo.out" >>"$CL_LOG/node$i.ctl" &
	CL_CTLPID[i]=$!
	# Stream new command output with a node prefix; own session so that
	# cl_stop_node can kill the whole pipeline.  CL_STREAM=0: not, for a
	# script that prints the guests' lines itself once they are done
	# (each line must reach tests/run.sh's count once).
	[ "${CL_STREAM:-1}" = 0 ] && return 0
	setsid bash -c 'tail -c +"$1" -f --pid="$2" "$3" | sed -u "s/^/[n$4] /"' \
		_ "$((outoff + 1))" "${CL_QPID[i]}" "$CL_LOG/node$i.out" "$i" &
	CL_SPID[i]=$!
}

# cl_monitor I COMMAND...: QEMU monitor commands to node I (stop, cont,
# info ...) over one connection; prints each answer.  Pseudo-commands time
# a freeze without Python's start-up in it: "@sleep MS" waits, "@mark"
# notes the time, "@elapsed" prints the ms since the mark (at once, so that
# a caller reading the output knows the commands before it were done).
# Python, because the monitor is a Unix socket and the host has no socat.
cl_monitor() {
	local i=$1
	shift
	python3 - "$CL_RUN/node$i.mon" "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
def prompt():
    out = b""
    while not out.endswith(b"(qemu) "):
        d = s.recv(4096)
        if not d:
            break
        out += d
    return out.decode(errors="replace")
prompt()
t = time.monotonic()
for cmd in sys.argv[2:]:
    if cmd.startswith("@sleep "):
        time.sleep(int(cmd.split()[1]) / 1000)
    elif cmd == "@mark":
        t = time.monotonic()
    elif cmd == "@elapsed":
        print(int((time.monotonic() - t) * 1000), flush=True)
    else:
        s.sendall(cmd.encode() + b"\n")
        lines = prompt().splitlines()[1:]
        out = "\n".join(l for l in lines if not l.startswith("(qemu)"))
        if out:
            print(out)
PY
}

# cl_freeze I MS: stop node I whole, resume it MS ms later, print how long
# it was stopped (ms, from the monitor's answers).
cl_freeze() { cl_monitor "$1" stop @mark "@sleep $2" cont @elapsed | tail -n 1; }

# cl_starve I MS: stop node I's QEMU process (SIGSTOP) for MS ms, print how
# long (ms).  Unlike cl_freeze, the guest's clocks run on meanwhile, so it
# resumes as a guest whose host took its CPU: every timer late at once.
cl_starve() {
	local pid t0
	pid=$(pgrep -f -- "unix:$CL_RUN/node$1.mon,") || {
		echo "no QEMU for node$1"
		return 1
	}
	t0=$(date +%s%N)
	kill -STOP "$pid" && sleep "$(printf '%d.%03d' $(($2 / 1000)) $(($2 % 1000)))"
	kill -CONT "$pid"
	echo $((($(date +%s%N) - t0) / 1000000))
}

# cl_ctl_has I REGEX: node I sent a control line matching ^REGEX.
cl_ctl_has() { tr -d '\r' <"$CL_LOG/node$1.ctl" | grep -qE "^$2"; }

# cl_wait_ctl SECS REGEX: every node sent such a line; false on timeout.
cl_wait_ctl() {
	local end=$((SECONDS + $1)) i
	for ((i = 0; i < CL_N; i++)); do
		until cl_ctl_has "$i" "$2"; do
			[ "$SECONDS" -ge "$end" ] && return 1
			sleep 0.2
		done
	done
}

cl_alive() { [ -n "${CL_QPID[$1]:-}" ] && kill -0 "${CL_QPID[$1]}" 2>/dev/null; }

# cl_send I LINE: one control line to node I (O_RDWR open never blocks).
cl_send() { cl_alive "$1" && echo "$2" 1<>"$CL_RUN/node$1.ctl.in"; }

# cl_marker I REGEX: print the last control line from node I matching
# ^REGEX since its last start; false if none.
cl_marker() {
	local m
	m=$(tail -c +"$((CL_CTLOFF[$1] + 1))" "$CL_LOG/node$1.ctl" | tr -d '\r' |
		grep -E "^$2" | tail -n 1)
	[ -n "$m" ] && echo "$m"
}

# cl_wait_marker I REGEX [TIMEOUT]: 0 seen, 1 QEMU died, 2 timed out
# (TIMEOUT defaults to the run's remaining wall-clock time).
cl_wait_marker() {
	local end=$((SECONDS + ${3:-$((CL_DEADLINE - SECONDS))}))
	while :; do
		cl_marker "$1" "$2" >/dev/null && return 0
		cl_alive "$1" || { cl_marker "$1" "$2" >/dev/null && return 0; return 1; }
		[ "$SECONDS" -ge "$end" ] && return 2
		sleep 0.2
	done
}

# cl_stop_node I [SIG]: stop node I's QEMU (TERM, then KILL after 3 s) and
# its helpers.  SIG=KILL simulates a crash of the machine.
cl_stop_node() {
	local i=$1 sig=${2:-TERM} p=${CL_QPID[$1]:-} t
	if [ -n "$p" ]; then
		kill -"$sig" "$p" 2>/dev/null
		for t in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		{ wait "$p"; } 2>/dev/null # no "Killed" job notice
	fi
	[ -n "${CL_CTLPID[i]:-}" ] && kill "${CL_CTLPID[i]}" 2>/dev/null
	# Give the streamer a moment to print the last lines, then kill it.
	if [ -n "${CL_SPID[i]:-}" ]; then
		for t in $(seq 15); do kill -0 "${CL_SPID[i]}" 2>/dev/null || break; sleep 0.1; done
		kill -- -"${CL_SPID[i]}" 2>/dev/null
	fi
	CL_QPID[i]='' CL_CTLPID[i]='' CL_SPID[i]=''
	return 0
}

# cl_teardown: stop every node this shell started; remove the run directory.
cl_teardown() {
	local i
	for i in "${!CL_QPID[@]}"; do
		[ -n "${CL_QPID[i]}" ] && kill -TERM "${CL_QPID[i]}" 2>/dev/null
	done
	for i in "${!CL_QPID[@]}"; do cl_stop_node "$i"; done
	[ -n "${CL_RUN:-}" ] && rm -rf "$CL_RUN"
	return 0
}

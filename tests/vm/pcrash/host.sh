#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: crashes at random points, per persistency model (issue 12).
# Writers on all 3 nodes (tests/vm/src/ddsm-test-pcrash.c) write
# checksummed records in a sync, a strict, a scope, a read_enf and an
# eventual region and log every write the model acknowledged; four boots
# of the same NVDIMM files ($BUILD_DIR/qemu/pmem/pcrash-node<i>.img):
#   boot 1  a 1 MiB pattern with ddsm_write_durable (Synchronous); then
#           series A: the writers run, and at a random point one home VM
#           (random too) is SIGKILLed; the others carry on without its
#           units until their writers end; then they unload (clean)
#   boot 2  every node dumps the slots (checked here against series A's
#           acks) and reads the pattern back; series B: the writers run
#           and the whole cluster is SIGKILLed at a random point
#   boot 3  checks series B; with the persist-domain checker
#           (pmem_check=1), series C: at a random point, writers running,
#           every node's power fails at a random pmem fence 1-8 from
#           then (inside a log append or an apply), keeping PC_KEEP% (50)
#           of the unfenced 8-byte words; all VMs killed
#   boot 4  checks series C and reads the pattern back, which survived
#           three kills of the whole cluster
# After each series, on every node: every acknowledged record is there
# (that version or a newer one of its slot), no slot is torn (hash), no
# slot went back below what the last check found, no unit's timestamp on
# the media went back (debugfs ddsm/pmem_slots), and all nodes read the
# same; Eventual may lose what it never promised (the count is printed).
# The random points wait until every model acked something on every node
# ("pc warm"), so the series are never empty, whatever the host's load.
#
#   BUILD_DIR=... bash tests/vm/pcrash/host.sh      (after make stage)
#   PC_SEED=N replays a run's choices (the seed is printed first).
set -uo pipefail

CL_NAME=${PC_NAME:-pcrash} CL_N=3 CL_TIMEOUT=${PC_LIMIT:-900} CL_PMEM=64
CL_CMD=
SECS=${PC_SECS:-6} KEEP=${PC_KEEP:-50}
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

SEED=${PC_SEED:-$RANDOM}
RANDOM=$SEED
echo "# pcrash: seed $SEED (PC_SEED=$SEED replays the kill points)"

declare -a OFF=()

# boot B ENV...: start the 3 nodes with the guest script, wait until they
# are ready and send go.  Their output is not streamed (the acks are many):
# show() prints this boot's lines but the "PC" ones.
boot() {
	local b=$1 i
	shift
	CL_CMD="PC_BOOT=$b PC_SECS=$SECS PC_KEEP=$KEEP $* bash /ddsm/tests/pcrash/guest.sh"
	for i in 0 1 2; do
		# A kill can cut the last line short: end it, so that this
		# boot's first line starts a line of its own.
		[ -s "$CL_LOG/node$i.out" ] &&
			[ "$(tail -c 1 "$CL_LOG/node$i.out" | od -An -c | tr -d ' ')" != '\n' ] &&
			echo >>"$CL_LOG/node$i.out"
		OFF[i]=$(stat -c %s "$CL_LOG/node$i.out" 2>/dev/null || echo 0)
		cl_start_node "$i" >/dev/null
	done
	cl_msg "boot $b: $CL_CMD"
	wait_all 180 ready 0 1 2 || return 1
	for i in 0 1 2; do cl_send "$i" go; done
}
show() {
	local i out
	for i in 0 1 2; do
		out=$(tail -c +"$((OFF[i] + 1))" "$CL_LOG/node$i.out" | tr -d '\r' |
			grep -v '^PC ')
		grep -q '^not ok' <<<"$out" && failed=$((failed + 1))
		sed "s/^/[n$i] /" <<<"$out"
	done
}
splats() { local i; for i in 0 1 2; do console_clean "$i"; done; }
# A random moment in the writers' last SECS seconds: after every node is
# warm, 0 .. SECS/2 s.
pause_random() {
	local ms=$((RANDOM % (SECS * 500)))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	echo $ms
}

# check_series B SERIES: the dumps of boot B against every ack of the boots
# before.
check_series() {
	python3 - "$CL_LOG" "$1" "$2" <<'PY'
import re, sys
log, boot, series = sys.argv[1], int(sys.argv[2]), sys.argv[3]
MODELS = ["sync", "strict", "scope", "read_enf", "eventual"]
acked = {}      # (model, slot) -> highest acked seq, boots before this
written = {}    # eventual: (slot) -> last seq stored in the last boot
dumps = {}      # (boot, node) -> {(model, slot): (seq, state)}
nacks = {m: 0 for m in MODELS}
stamps = {}     # (boot, node) -> {unit: slot ts after recovery}
# A node killed in mid-line leaves a partial line that the next boot's
# first line continues ("PPC boot 2 ."): a record starts anywhere on it.
line_re = re.compile(r"PC (boot \d+|[AWST] \S+ \d+ \d+( \S+)?) \.$")
for node in range(3):
    b = 0
    for raw in open(f"{log}/node{node}.out", errors="replace"):
        mt = line_re.search(raw.strip("\r\n"))
        if not mt:
            continue
        line = mt.group(0)
        f = line.split()
        if f[1] == "boot":
            b = int(f[2])
            continue
        if f[1] == "T":
            if b <= boot:
                stamps.setdefault((b, node), {})[int(f[3])] = int(f[4])
            continue
        if b >= boot:
            if f[1] == "S" and b == boot:
                dumps.setdefault((b, node), {})[(f[2], int(f[3]))] = (int(f[4]), f[5])
            continue
        if f[1] == "S":
            dumps.setdefault((b, node), {})[(f[2], int(f[3]))] = (int(f[4]), f[5])
            continue
        key, seq = (f[2], int(f[3])), int(f[4])
        if f[1] == "A":
            acked[key] = max(acked.get(key, 0), seq)
            if b == boot - 1:
                nacks[f[2]] += 1
        elif b == boot - 1:
            written[key] = max(written.get(key, 0), seq)
bad = 0
def res(good, msg):
    global bad
    if not good:
        bad = 1
    print(("ok" if good else "not ok") + f" - host: series {series}: " + msg)
for m in MODELS:
    if m != "eventual":
        res(nacks[m] > 0, f"{m}: {nacks[m]} acks logged by the writers before the crash")
prev = {}
for node in range(3):
    d = dumps.get((boot - 1, node), {})
    for k, (seq, st) in d.items():
        prev[k] = max(prev.get(k, 0), seq)
for node in range(3):
    d = dumps.get((boot, node))
    if d is None or len(d) != 24 * len(MODELS):
        res(False, f"node{node} dumped {0 if d is None else len(d)} of {24 * len(MODELS)} slots")
        continue
    for m in MODELS:
        slots = sorted(s for (mm, s) in d if mm == m)
        torn = [s for s in slots if d[(m, s)][1] == "torn"]
        res(not torn, f"node{node}: {m}: no torn slot" + (f" (torn: {torn})" if torn else ""))
        back = [(s, d[(m, s)][0], prev[(m, s)]) for s in slots
                if (m, s) in prev and d[(m, s)][0] < prev[(m, s)]]
        res(not back, f"node{node}: {m}: no slot went back below the last check" +
            (f" (slot, now, before: {back[:5]})" if back else ""))
        if m == "eventual":
            lost = [s for s in slots if written.get((m, s), 0) > d[(m, s)][0]]
            print(f"# node{node}: eventual: {len(lost)} of {len(slots)} slots lost their last store (allowed: never promised)")
            continue
        keys = [(m, s) for s in slots if (m, s) in acked]
        miss = [(s, d[(m, s)][0], acked[(m, s)]) for (mm, s) in keys
                if d[(m, s)][0] < acked[(m, s)] or d[(m, s)][1] != "ok"]
        res(not miss, f"node{node}: {m}: every acked record is there ({len(keys)} slots acked, highest acks checked)" +
            (f"; {len(miss)} missing (slot, found seq, acked seq): {miss[:6]}" if miss else ""))
# MINOS's timestamps: each home's slot ts after this recovery against the
# one after the boot before's (a unit that had an image must keep one).
for node in range(3):
    cur, old = stamps.get((boot, node)), stamps.get((boot - 1, node), {})
    if not cur:
        res(False, f"node{node}: slot timestamps dumped after recovery")
        continue
    back = [(u, cur.get(u, 0), t) for u, t in old.items() if cur.get(u, 0) < t]
    newer = sum(1 for u, t in cur.items() if t > old.get(u, 0))
    res(not back, f"node{node}: no slot timestamp went back across the crash ({len(cur)} slots, {newer} newer than after boot {boot - 1})" +
        (f" (unit, now, before: {back[:5]})" if back else ""))
ref = dumps.get((boot, 0), {})
same = all(dumps.get((boot, n)) == ref for n in (1, 2))
res(same, "all three nodes read the same slots")
sys.exit(bad)
PY
	[ $? -eq 0 ] || failed=$((failed + 1))
}

rm -f "$BUILD_DIR/qemu/pmem/$CL_NAME"-node*.img
open_cluster

# Boot 1: pattern, then series A: one home killed.
VICTIM=$((RANDOM % 3))
if boot 1 PC_STEPS=pw PC_END=unload PC_MOUNT=formatted &&
	wait_all 240 "pc warm" 0 1 2; then
	ms=$(pause_random)
	cl_stop_node "$VICTIM" KILL 2>/dev/null
	cl_alive "$VICTIM" && nok "series A: node$VICTIM killed" ||
		ok "series A: node$VICTIM (a home) SIGKILLed ${ms} ms after every writer was warm"
	SURV=$(for i in 0 1 2; do [ "$i" = "$VICTIM" ] || echo "$i"; done)
	# shellcheck disable=SC2086
	if wait_all 180 "pc idle" $SURV; then
		for i in $SURV; do cl_send "$i" unload; done
		wait_all 120 "pc unloaded" $SURV
	fi
fi
kill_all
show
splats

# Boot 2: check A, the pattern; series B: the whole cluster killed.
if boot 2 PC_STEPS=dvw PC_END=wait PC_CLEAN_BUT=$VICTIM && wait_all 240 "pc warm" 0 1 2; then
	ms=$(pause_random)
	kill_all
	ok "series B: the whole cluster SIGKILLed ${ms} ms after every writer was warm"
fi
kill_all
show
splats
check_series 2 A

# Boot 3: check B; series C under the persist-domain checker.
if boot 3 PC_STEPS=dw PC_END=crash PC_ARGS=pmem_check=1 &&
	wait_all 240 "pc warm" 0 1 2; then
	ms=$(pause_random)
	fences=""
	for i in 0 1 2; do
		f=$((1 + RANDOM % 8))
		fences="$fences $f"
		cl_send "$i" "crash $f"
	done
	wait_all 60 "pc crashed" 0 1 2 &&
		ok "series C: ${ms} ms after every writer was warm, each node's power failed at a random pmem fence from then (nodes 0, 1, 2: fence${fences}), ${KEEP}% of unfenced words kept, writers running; all killed"
fi
kill_all
show
splats
check_series 3 B

# Boot 4: check C and the pattern; a clean end.
if boot 4 PC_STEPS=dv PC_END=exit; then
	for i in 0 1 2; do
		wait_all 300 'exit [0-9]+' "$i" || continue
		m=$(cl_marker "$i" 'exit [0-9]+')
		[ "$m" = "exit 0" ] && ok "boot 4: node$i's checks passed" ||
			nok "boot 4: node$i's guest script $m"
	done
	for i in 0 1 2; do cl_send "$i" release; done
	sleep 1
fi
kill_all
show
splats
check_series 4 C

rm -f "$BUILD_DIR/qemu/pmem/$CL_NAME"-node*.img
echo "# pcrash: seed $SEED; logs in $CL_LOG"
tap_exit

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: backup homes (issue 12, nr_backups=1).  Three nodes with
# pmem, node 1 the victim, node 2 its backup (tests/vm/backup/guest.sh):
#   phase 1  the writers (nodes 0, 2) store into node 1's units of an
#            Eventual region and keep them dirty (again 12 s in, after
#            node 1's false death: it is frozen for BK_FREEZE_MS, 5 s,
#            first, and must not be taken over); meanwhile they write
#            node 1's units under Synchronous (ddsm_write_durable) and
#            Scope (+ barrier) and log each acknowledged image; at a
#            random point node 1's VM is
#            SIGKILLed; the writers carry on (their stores wait for the
#            failover) until BK_SECS are over; then nodes 0 and 2 read
#            every unit back, now served by node 2
#   phase 2  node 1 restarted on its NVDIMM: it learns it was taken over
#            (no failback) and reads the units from node 2; the others
#            read again
#   phase 3  the whole cluster killed and restarted: node 2 serves node
#            1's units from its pmem (sticky), every node reads them
# Every read: each unit holds a whole image (never torn), at least as new
# as the newest one acknowledged and no newer than the newest written,
# and every node reads the same in every phase; the units left dirty at a
# writer hold what it stored (handed over to the backup, not lost).
#
#   BUILD_DIR=... bash tests/vm/backup/host.sh      (after make stage)
#   BK_SEED=N replays the kill point (the seed is printed first).
set -uo pipefail

CL_NAME=${BK_NAME:-backup} CL_N=3 CL_TIMEOUT=${BK_LIMIT:-900} CL_PMEM=64
CL_CMD=
SECS=${BK_SECS:-40} FREEZE_MS=${BK_FREEZE_MS:-5000}
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

SEED=${BK_SEED:-$RANDOM}
RANDOM=$SEED
echo "# backup: seed $SEED (BK_SEED=$SEED replays the kill point)"

declare -a OFF=()
start() {
	local p=$1 i
	shift
	# Node 0's backup (node 1) goes away once more if it is frozen first.
	# The dirty units are stored again 12 s in: after the false death
	# (which took the first round home with the orphans), before the kill.
	CL_CMD="BK_PHASE=$p BK_SECS=$SECS BK_AWAY=$((FREEZE_MS ? 2 : 1)) BK_AGAIN=$((FREEZE_MS ? 12 : 0)) bash /ddsm/tests/backup/guest.sh"
	for i in "$@"; do
		OFF[i]=$(stat -c %s "$CL_LOG/node$i.out" 2>/dev/null || echo 0)
		cl_start_node "$i" >/dev/null
	done
	cl_msg "phase $p: nodes $*: $CL_CMD"
	wait_all 180 ready "$@" || return 1
	for i in "$@"; do cl_send "$i" go; done
}
# show I...: what those nodes printed since the last show, but the BK lines
# (up to the size taken first: what comes after is for the next show).
show() {
	local i out end
	for i in "$@"; do
		end=$(stat -c %s "$CL_LOG/node$i.out")
		out=$(head -c "$end" "$CL_LOG/node$i.out" |
			tail -c +"$((OFF[i] + 1))" | tr -d '\r' | grep -v '^BK ')
		grep -q '^not ok' <<<"$out" && failed=$((failed + 1))
		sed "s/^/[n$i] /" <<<"$out"
		OFF[i]=$end
	done
}
splats() { local i; for i in 0 1 2; do console_clean "$i"; done; }

# check_reads: every read against the acks and the writes (all phases so
# far).
check_reads() {
	python3 - "$CL_LOG" <<'PY'
import re, sys
log = sys.argv[1]
acked, written, reads = {}, {}, {}
import os
kill_at = [int(x) for x in os.environ.get("BK_KILL_AT", "0 0").split()]
for node, off in zip((0, 2), kill_at):
    with open(f"{log}/node{node}.out", "rb") as f:
        early = f.read(off).decode(errors="replace").splitlines()
        rest = f.read().decode(errors="replace").splitlines()
    late = sum(1 for l in rest if l.startswith("BK A "))
    # The false death took nothing over: node 1 homed its units until killed.
    homes = [l.split()[2] for l in early if l.startswith("BK H ")]
    print(("ok" if homes and set(homes) == {"1"} else "not ok") +
          f" - host: node{node}: unit 1 homed on node1 in all {len(homes)} "
          f"samples before the kill, the freeze included ({sorted(set(homes))})")
    after = [l.split()[2] for l in rest if l.startswith("BK H ")]
    print(("ok" if after and after[-1] == "2" else "not ok") +
          f" - host: node{node}: ... and on node2 after it ({after[-1:]})")
    if not homes or set(homes) != {"1"} or not after or after[-1] != "2":
        bad_late = True
    print(("ok" if late else "not ok") + f" - host: node{node}: {late} images "
          "acknowledged durable after node1's death (by node2, which took over)")
    if not late:
        bad_late = True
line_re = re.compile(r"^BK (phase \d+|[AWR] \S+ \d+ \d+( \S+)?) \.$")
for node in range(3):
    phase, nread = 0, {}
    for raw in open(f"{log}/node{node}.out", errors="replace"):
        line = raw.strip("\r\n")
        if not line_re.match(line):
            continue
        f = line.split()
        if f[1] == "phase":
            phase = int(f[2])
            continue
        key, r = (f[2], int(f[3])), int(f[4])
        if f[1] == "A":
            acked[key] = max(acked.get(key, 0), r)
        elif f[1] == "W":
            written[key] = max(written.get(key, 0), r)
        else:
            # A node reads once per phase but phase 1's nodes read twice.
            nread[phase] = nread.get(phase, 0) + (1 if key == ("sync", 1) else 0)
            reads.setdefault((phase, node, nread[phase]), {})[key] = (r, f[5])
bad = 1 if "bad_late" in globals() else 0
def res(good, msg):
    global bad
    bad |= not good
    print(("ok" if good else "not ok") + " - host: " + msg)
res(len(acked) > 0, f"{len(acked)} units had an image acknowledged durable "
    f"({sum(1 for k in acked if k[0] == 'sync')} sync, "
    f"{sum(1 for k in acked if k[0] == 'scope')} scope)")
ref = {}
for (phase, node, n), got in sorted(reads.items()):
    who = f"phase {phase} node{node} read {n}"
    torn = [k for k, v in got.items() if v[1] == "torn"]
    stale = [(k, v[0], acked[k]) for k, v in got.items()
             if k in acked and v[0] < acked[k]]
    future = [(k, v[0]) for k, v in got.items() if v[0] > written.get(k, 0)]
    res(not torn, f"{who}: {len(got)} units, none torn {torn[:3]}")
    res(not stale, f"{who}: every acknowledged image or a newer one "
        f"(stale: {len(stale)} {stale[:3]})")
    res(not future, f"{who}: nothing never written {future[:3]}")
    # Written once before the death, dirty in a writer's cache only: the
    # hand-over to the backup is the only way they survive.
    dirty = [k for k in got if k[0] == "dirty"]
    lost = [k for k in dirty if got[k][0] != written.get(k, 0)]
    res(dirty and not lost, f"{who}: {len(dirty)} units dirty at a writer "
        f"when node1 died hold their data ({len(lost)} lost {lost[:3]})")
    # Phase 2 is the same boot of node 2 (the home now) as phase 1.
    first = ref.get(1 if phase == 2 else phase)
    if first is None:
        ref[phase] = got
    else:
        diff = [k for k in first if first[k] != got.get(k)]
        res(not diff, f"{who}: the same as phase {1 if phase == 2 else phase}'s "
            f"first read ({len(diff)} differ {diff[:3]})")
    if phase == 3 and 1 in ref:
        # After the whole cluster's kill: a version written but never
        # acknowledged may be lost (Scope: it was only in home memory), but
        # nothing is newer than what phase 1 read.
        newer = [k for k in got if got[k][0] > ref[1][k][0]]
        res(not newer, f"{who}: nothing newer than phase 1 read {newer[:3]}")
        lost = [k for k in got if got[k][0] < ref[1][k][0]]
        print(f"# backup: {who}: {len(lost)} units older than phase 1 read, "
              f"none below its last ack: {lost[:3]}")
newer = sum(1 for k, v in ref.get(1, {}).items() if k in acked and v[0] > acked[k])
print(f"# backup: phase 1: {newer} units read newer than their last ack (written, not acked)")
sys.exit(bad)
PY
	[ $? = 0 ] || failed=$((failed + 1))
}

open_cluster
# Fresh NVDIMM files: phase 1 formats them anyway (pmem_format=1).
if start 1 0 1 2 && wait_all 180 "bk ready" 0 1 2; then
	for i in 0 1 2; do cl_send "$i" start; done
	# First a false death: node 1 frozen longer than peer_timeout_ms
	# (3 s) but back well within rejoin_ms (8 s): nobody takes over.
	sleep 2
	if [ "$FREEZE_MS" -gt 0 ]; then
		t=$(cl_freeze 1 "$FREEZE_MS")
		[[ $t =~ ^[0-9]+$ ]] && [ "$t" -ge "$FREEZE_MS" ] &&
			ok "node1 frozen for $t ms (declared dead, back within rejoin_ms)" ||
			nok "node1 frozen and resumed: ${t//$'\n'/ }"
	fi
	# The kill: 8 .. 14 s after it is back (its resync done).
	ms=$((8000 + RANDOM % 6000))
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	{ cl_stop_node 1 KILL; } 2>/dev/null
	cl_alive 1 && nok "node1 killed" ||
		ok "node1 (the victim, a home) SIGKILLed $((ms + 2000 + FREEZE_MS)) ms after go"
	# What the writers printed by then: the acks after it came from node 2.
	export BK_KILL_AT="$(stat -c %s "$CL_LOG/node0.out") $(stat -c %s "$CL_LOG/node2.out")"
	if wait_all $((SECS + 180)) "bk written" 0 2; then
		for i in 0 2; do cl_send "$i" read; done
		wait_all 180 "bk read" 0 2
	fi
fi
show 0 1 2

# Phase 2: node 1 back on its NVDIMM.
if start 2 1 && wait_all 180 "bk read" 1; then
	for i in 0 2; do cl_send "$i" read2; done
	wait_all 180 "bk read2" 0 2
fi
show 0 1 2
kill_all

# Phase 3: the whole cluster restarted.
start 3 0 1 2 && wait_all 240 "bk read" 0 1 2
show 0 1 2
kill_all
check_reads
splats
echo "# backup: logs in $CL_LOG"
tap_exit

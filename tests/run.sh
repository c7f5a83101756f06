#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole test suite: the components of tests/components.md, in its
# order, each by running its FOLDER/host.sh.  Every component prints
# TAP-like lines ("ok - ..." / "not ok - ..."), possibly behind a "[nI] "
# node prefix; this script counts them and ends with one "N passed, N
# failed" line.  A component that dies without saying why counts as one
# failure, as does one that reports no test at all.
#
# Expects `make stage` to have run (the Makefile's `check` target does).
# `tests/run.sh --list` prints the table's rows ("NAME FOLDER") and exits.
# Variables: BUILD_DIR (default ./build), DDSM_TESTS (space-separated
# names from the table, run in the order given; default all),
# DDSM_HOST_LANE (default 1: the host-only components, those whose folder
# is not under tests/vm/, run one after the other in the background
# beside the VM components at the lowest CPU priority, and their output is
# printed when they are done; 0: everything in order, in the foreground).  The
# variables each component reads (LOAD_SECONDS, COUNTER_ROUNDS, TX_OPS,
# FUZZ_OPS, LITMUS_ITERS, EVICT_UNITS, LOSSY_NETEM, MODEL_CHECK, ...) are
# listed above the table and pass through the environment.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
RESULTS=$BUILD_DIR/results
TABLE=$ROOT/tests/components.md
export BUILD_DIR
mkdir -p "$RESULTS"

# The table's rows: | `name` | `folder` | what it checks |
declare -A folder=()
order=()
while IFS='|' read -r _ name dir _; do
	name=${name//[\` ]/} dir=${dir//[\` ]/}
	[[ $name =~ ^[a-z_]+$ && $dir == tests/* ]] || continue
	folder[$name]=$dir
	order+=("$name")
done <"$TABLE"
# --list: the table's rows as "NAME FOLDER", for scripts that pick some.
if [ "${1:-}" = --list ]; then
	for name in "${order[@]}"; do
		echo "$name ${folder[$name]}"
	done
	exit 0
fi
DDSM_TESTS=${DDSM_TESTS:-${order[*]}}

passed=0
failed=0
failures=()

# count_component NAME RC SECS: add NAME's log lines to the totals.
count_component() {
	local name=$1 rc=$2 log=$RESULTS/$1.log ok nok
	ok=$(grep -cE '^(\[n[0-9]+\] )?ok ' "$log")
	nok=$(grep -cE '^(\[n[0-9]+\] )?not ok ' "$log")
	passed=$((passed + ok))
	failed=$((failed + nok))
	while IFS= read -r line; do
		failures+=("$name: $line")
	done < <(grep -E '^(\[n[0-9]+\] )?not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$name: exited with status $rc without naming a failed test")
	elif [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$name: ran no test")
	fi
	echo "=== $name: $ok passed, $nok failed, exit $rc, $3 s"
}

# run_component NAME COMMAND...: run it, stream its output, count its lines.
run_component() {
	local name=$1 rc t0=$SECONDS
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$RESULTS/$name.log"
	rc=${PIPESTATUS[0]}
	count_component "$name" "$rc" $((SECONDS - t0))
}

# The host lane: each component's log, then "NAME RC SECS" in lane.done.
host_lane() {
	local t rc t0
	for t in "$@"; do
		t0=$SECONDS
		bash "$ROOT/${folder[$t]}/host.sh" >"$RESULTS/$t.log" 2>&1
		rc=$?
		echo "$t $rc $((SECONDS - t0))" >>"$RESULTS/lane.done"
	done
}

host=() vm=()
for t in $DDSM_TESTS; do
	if [ -z "${folder[$t]:-}" ]; then
		echo "unknown test component: $t" >&2
		failed=$((failed + 1))
		failures+=("$t: unknown test component")
	elif [ "${DDSM_HOST_LANE:-1}" != 0 ] && [[ ${folder[$t]} != tests/vm/* ]]; then
		host+=("$t")
	else
		vm+=("$t")
	fi
done
# Alone, the host components gain nothing from a lane.
if [ ${#vm[@]} -eq 0 ]; then
	vm=("${host[@]}") host=()
fi

lane=
if [ ${#host[@]} -gt 0 ]; then
	rm -f "$RESULTS/lane.done"
	echo "=== host lane (in the background): ${host[*]}"
	# nice 19: the guests' timing is what the VM components test, a
	# compile's is not.  The lane takes the CPU the guests leave idle, and
	# keeps its two make jobs for whatever is left once they are done
	# (with one job each and normal priority, 2026-11-28: kunit 697 s,
	# model 615 s, and pmem 259 s against 164 s without the lane).
	(renice -n 19 -p "$BASHPID" >/dev/null; host_lane "${host[@]}") &
	lane=$!
fi
for t in "${vm[@]}"; do
	run_component "$t" bash "$ROOT/${folder[$t]}/host.sh"
done
if [ -n "$lane" ]; then
	# The guests are gone: what is left of the lane runs at normal
	# priority, or a busy host (make check beside a CPU hog) would starve
	# it.  Top down, so that a child forked meanwhile inherits the new
	# value.  Lowering a nice value takes root; without it the lane just
	# keeps 19.
	unnice() {
		local c
		renice -n 0 -p "$1" >/dev/null 2>&1 || return 0
		for c in $(pgrep -P "$1"); do unnice "$c"; done
	}
	unnice "$lane"
	wait "$lane"
	for t in "${host[@]}"; do
		echo "=== $t (host lane): ${folder[$t]}/host.sh"
		cat "$RESULTS/$t.log"
		read -r _ rc secs < <(grep "^$t " "$RESULTS/lane.done" ||
			echo "$t 1 0")
		count_component "$t" "$rc" "$secs"
	done
fi

if [ ${#failures[@]} -gt 0 ]; then
	echo "=== failures:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

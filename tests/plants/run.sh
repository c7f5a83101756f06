#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-plants: each row of tests/plants/plants.md puts one old
# defect back into a copy of the committed tree and runs the component
# that must catch it (tests/plants/plants.md says how and why).
#
# Env: BUILD_DIR (default ./build; copies go to $BUILD_DIR/plants/NAME),
# DDSM_PLANTS (space-separated names; default every row).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
HERE=$ROOT/tests/plants
skipped=0
TAP_WHO=plant
# shellcheck source=../vm/lib/tap.sh
source "$ROOT/tests/vm/lib/tap.sh"

declare -A comp=() want=()
order=()
while IFS='|' read -r _ name c _ pat _; do
	name=${name//[\` ]/} c=${c//[\` ]/}
	pat=${pat#*\`} pat=${pat%\`*}
	[[ $name =~ ^[a-z-]+$ && -f $HERE/$name.patch ]] || continue
	comp[$name]=$c want[$name]=$pat
	order+=("$name")
done <"$HERE/plants.md"

# plant NAME: copy, patch, stage, run the component, judge.
plant() {
	local name=$1 c=${comp[$1]} pat=${want[$1]}
	local dir=$BUILD_DIR/plants/$1 log hit
	rm -rf "$dir"
	mkdir -p "$dir/tree"
	git -C "$ROOT" archive HEAD | tar -x -C "$dir/tree"
	if ! patch -s -d "$dir/tree" -p1 <"$HERE/$name.patch" >"$dir/patch.log" 2>&1; then
		nok "$name: $name.patch applies to HEAD ($(head -1 "$dir/patch.log"))"
		return
	fi
	if ! make -s -C "$dir/tree" stage BUILD_DIR="$dir/build" >"$dir/stage.log" 2>&1; then
		nok "$name: the planted tree builds (see $dir/stage.log)"
		return
	fi
	log=$dir/run.log
	DDSM_TESTS=$c DDSM_HOST_LANE=0 BUILD_DIR="$dir/build" \
		bash "$dir/tree/tests/run.sh" >"$log" 2>&1
	hit=$(grep -E '^(\[n[0-9]+\] )?not ok ' "$log" | grep -E -m1 -- "$pat")
	if [ -n "$hit" ]; then
		ok "$name caught by $c: ${hit#*not ok - }"
	elif [ "$name" = drop-early-sends ]; then
		skipped=$((skipped + 1))
		echo "ok - plant: $name # SKIP the race was not met in this run ($(tail -1 "$log"))"
	else
		nok "$name not caught by $c (want a failure matching '$pat'; $(tail -1 "$log"); $log)"
	fi
}

for p in ${DDSM_PLANTS:-${order[*]}}; do
	if [ -z "${comp[$p]:-}" ]; then
		nok "$p: no such row in tests/plants/plants.md"
		continue
	fi
	echo "# plant $p: component ${comp[$p]}, $(date -u +%T)"
	plant "$p"
done
echo "$((total - failed)) passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

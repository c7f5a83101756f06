#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the VM suites on a debug guest kernel (lockdep, KASAN,
# might-sleep, hung tasks; qemu/build-debug-kernel.sh) with ddsm.ko built
# against it.  cluster.sh already fails a run whose console shows a BUG,
# WARNING (every lockdep report starts with one), Oops or a blocked task;
# here the console also gets warnings (loglevel=5: lockdep reports are
# KERN_WARNING, which the suite's "quiet" hides) and the consoles are
# searched once more at the end for every kind of report, listed by name.
#
# Env: DDSM_CACHE (see build-debug-kernel.sh), DDSM_TESTS (default: every
# VM component of tests/run.sh but litmus, whose 1,000-iteration runs
# take hours under KASAN), BUILD_DIR (default build/debug).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${DDSM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ddsm}/debug-kernel
export BUILD_DIR=${BUILD_DIR:-$ROOT/build/debug}

KDIR=$(bash "$ROOT/qemu/build-debug-kernel.sh" | tail -1) || {
	echo "not ok - debug kernel built"
	echo "0 passed, 1 failed"
	exit 1
}
DKVER=$(cat "$CACHE/release")

# The self-test module (the knobs and debugfs faults the VM tests use, the
# one make check loads), from a copy of its sources, so the tree's own
# objects (built against the installed kernel for `make check`) are left
# alone.
MOD=$BUILD_DIR/module
rm -rf "$MOD"
mkdir -p "$MOD"
cp -r "$ROOT/Kbuild" "$ROOT/kernel" "$ROOT/include" "$MOD/"
find "$MOD" -name '*.o' -o -name '.*.cmd' -o -name '*.ko' -o -name '*.mod*' |
	xargs rm -f
make -s -C "$KDIR" M="$MOD" DDSM_SELFTEST=y modules || {
	echo "not ok - ddsm.ko built against $DKVER"
	echo "0 passed, 1 failed"
	exit 1
}
# Everything but the module as for make check (host kernel headers).
make -s -C "$ROOT" stage BUILD_DIR="$BUILD_DIR" || exit 1
cp "$MOD/ddsm.ko" "$BUILD_DIR/stage/ddsm/ddsm.ko"
echo "check-debug: $DKVER, ddsm.ko from $MOD"

export KVER=$DKVER MODROOT=$CACHE/mods VMLINUX=$KDIR/arch/x86/boot/bzImage
# no5lvl: with TCG's 5-level paging, an interrupt taken before KASAN is set
# up touches a direct-map address its early shadow does not cover, and
# KASAN reports a wild access in handle_edge_irq at ~0.004 s of a boot
# (2 of about 25 boots on 2026-11-26), before any module is loaded.
export DDSM_KERNEL_ARGS="loglevel=5 no5lvl ${DDSM_KERNEL_ARGS:-}"

# Every VM row of tests/components.md but litmus, so that a component
# added to make check is checked here too without a second list to keep.
DDSM_TESTS=${DDSM_TESTS:-$(bash "$ROOT/tests/run.sh" --list |
	awk '$2 ~ /^tests\/vm\// && $1 != "litmus" { printf "%s ", $1 }')}
export DDSM_TESTS
bash "$ROOT/tests/run.sh" | tee "$BUILD_DIR/check-debug.log"
rc=${PIPESTATUS[0]}

# Every report of the checkers, wherever it happened.
echo "=== debug reports in the guests' consoles"
pat='WARNING: possible|WARNING: inconsistent|BUG: KASAN|BUG: sleeping function|INFO: task .* blocked|BUG: workqueue lockup|BUG: soft lockup|WARNING: CPU|BUG: unable|general protection'
n=0
while IFS= read -r f; do
	if grep -qE "$pat" "$f"; then
		n=$((n + 1))
		echo "# ${f#"$BUILD_DIR"/}:"
		grep -E "$pat" "$f" | sort | uniq -c | sed 's/^/#   /'
	fi
done < <(find "$BUILD_DIR" -name 'node*.console' -newer "$MOD/ddsm.ko" | sort)
echo "=== $n console(s) with a debug report"
exit "$rc"

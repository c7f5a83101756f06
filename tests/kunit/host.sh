#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run ddsm's KUnit suites in a UML kernel built from Debian's linux-source.
#
# The pure sources (kernel/lib/*.[ch], kernel/proto/*.[ch],
# kernel/pmem/*.[ch] but dax.[ch],
# kernel/node/ioctl_check.[ch], the UAPI header) and the suites
# (tests/kunit/*_test.c) are copied into drivers/misc/ddsm_kunit/ of an
# extracted kernel tree, which gets a Kconfig and a Makefile that pick every
# file up by wildcard; kunit.py then builds and boots a UML kernel.
# Everything is cached under $BUILD_DIR/kunit, so a second run only
# recompiles what changed.
#
# Output: kunit.py's own output, then one line per test case,
#   ok - kunit <suite>.<case>          (or "not ok - ...")
# and "not ok - kunit build" when configuring or building failed.  Exit
# status: 0 iff the kernel built and every case passed; 1 when a case
# failed or did not run; 2 when the kernel could not be configured or built.
#
# Environment (all optional):
#   BUILD_DIR             cache and build directory (default: <repo>/build)
#   KUNIT_JOBS            parallel make jobs (default: 2)
#   KUNIT_TIMEOUT         seconds allowed for the test run (default: 300)
#   LINUX_SOURCE_TARBALL  kernel source tarball (default: the newest
#                         /usr/src/linux-source-*.tar.xz)
#
# Extra arguments are passed to "kunit.py run", e.g. a filter glob:
#   tests/kunit/host.sh 'ddsm_space.*'

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
KUNIT_JOBS=${KUNIT_JOBS:-2}
KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-300}

# The UML build must not depend on who calls us: "make kunit W=1" would
# pass W=1 (and a jobserver) down through MAKEFLAGS, and a changed compiler
# command line recompiles the whole kernel.  Variables Kbuild reads from the
# environment go too.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL MAKEFILES GNUMAKEFLAGS \
	ARCH SUBARCH CROSS_COMPILE LLVM CC LD HOSTCC O M W C V \
	KBUILD_OUTPUT KBUILD_EXTMOD KBUILD_KCONFIG KBUILD_EXTRA_SYMBOLS \
	KCFLAGS KCPPFLAGS KAFLAGS KRUSTFLAGS KBUILD_CFLAGS KBUILD_AFLAGS \
	KBUILD_LDFLAGS KCONFIG_CONFIG INSTALL_MOD_PATH 2>/dev/null || true

log() { printf '# kunit: %s\n' "$*"; }
die() {
	printf '# kunit: error: %s\n' "$*" >&2
	echo 'not ok - kunit build'
	exit 2
}

# --- locate the kernel source tarball ---------------------------------------
if [[ -z ${LINUX_SOURCE_TARBALL:-} ]]; then
	shopt -s nullglob
	tarballs=(/usr/src/linux-source-*.tar.xz)
	shopt -u nullglob
	((${#tarballs[@]})) ||
		die "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source-6.1, or set LINUX_SOURCE_TARBALL)"
	LINUX_SOURCE_TARBALL=$(printf '%s\n' "${tarballs[@]}" | sort -V | tail -n 1)
fi
[[ -r $LINUX_SOURCE_TARBALL ]] || die "cannot read $LINUX_SOURCE_TARBALL"
ksver=$(basename "$LINUX_SOURCE_TARBALL")
ksver=${ksver#linux-source-}
ksver=${ksver%%.tar*}

mkdir -p "$BUILD_DIR/kunit"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
KDIR=$BUILD_DIR/kunit

# One run at a time per build directory.
exec 9>"$KDIR/.lock"
if ! flock -n 9; then
	log "waiting for another run using $KDIR"
	flock 9
fi
SRC=$KDIR/src-$ksver
UML=$KDIR/uml
DEST=$SRC/drivers/misc/ddsm_kunit

# --- extract once; again only when the tarball changed ----------------------
tar_id="$(readlink -f "$LINUX_SOURCE_TARBALL") $(stat -L -c '%s %Y' "$LINUX_SOURCE_TARBALL")"
if [[ ! -f $SRC/.ddsm-tarball || $(cat "$SRC/.ddsm-tarball") != "$tar_id" ]]; then
	log "extracting $LINUX_SOURCE_TARBALL into $SRC (once, ~10 s)"
	t0=$SECONDS
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "$LINUX_SOURCE_TARBALL" -C "$SRC.tmp" --strip-components=1 ||
		die "extracting $LINUX_SOURCE_TARBALL failed"
	printf '%s\n' "$tar_id" >"$SRC.tmp/.ddsm-tarball"
	mv "$SRC.tmp" "$SRC"
	log "extracted in $((SECONDS - t0)) s"
fi

# A UML build tree belongs to one extracted source tree.
if [[ -d $UML && $(cat "$UML/.ddsm-src" 2>/dev/null) != "$SRC $tar_id" ]]; then
	log "source tree changed: discarding the old UML build"
	rm -rf "$UML"
fi
mkdir -p "$UML"
printf '%s\n' "$SRC $tar_id" >"$UML/.ddsm-src"

# --- copy the sources into the tree (only what changed) ---------------------
# write_if_changed DEST: stdin becomes DEST unless DEST already has it.
write_if_changed() {
	local tmp
	tmp=$(mktemp "$1.XXXXXX")
	cat >"$tmp"
	if cmp -s "$tmp" "$1"; then
		rm -f "$tmp"
	else
		chmod 644 "$tmp"
		mv "$tmp" "$1"
	fi
}

declare -A wanted=()
copy_file() {
	local rel=$1
	wanted[$rel]=1
	mkdir -p "$(dirname "$DEST/$rel")"
	cmp -s "$REPO/$rel" "$DEST/$rel" || cp "$REPO/$rel" "$DEST/$rel"
}

shopt -s nullglob
cd "$REPO"
for f in kernel/lib/*.c kernel/lib/*.h \
	 kernel/proto/*.c kernel/proto/*.h \
	 kernel/pmem/*.c kernel/pmem/*.h \
	 kernel/node/ioctl_check.c kernel/node/ioctl_check.h \
	 kernel/net/wire.c kernel/net/wire.h kernel/net/rdma_credit.h \
	 include/uapi/linux/ddsm.h \
	 tests/kunit/*_test.c tests/kunit/*.h; do
	# The DAX glue calls into a real pmem device: not pure, not here.
	[[ $f == kernel/pmem/dax.[ch] ]] && continue
	copy_file "$f"
done
shopt -u nullglob
[[ -n ${wanted[kernel/node/ioctl_check.c]:-} ]] || die "kernel/node/ioctl_check.c missing"

# Drop copies whose original is gone (a removed or renamed suite).
mkdir -p "$DEST"
while IFS= read -r -d '' f; do
	rel=${f#"$DEST"/}
	[[ -n ${wanted[$rel]:-} ]] || rm -f "$f"
done < <(find "$DEST/kernel" "$DEST/include" "$DEST/tests" -type f \
	      \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null)

write_if_changed "$DEST/Kconfig" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
# Generated by ddsm's tests/kunit/host.sh; do not edit.
config DDSM_KUNIT_TEST
	tristate "KUnit tests for ddsm's pure logic" if !KUNIT_ALL_TESTS
	depends on KUNIT
	default KUNIT_ALL_TESTS
	help
	  KUnit suites for the parts of ddsm that need neither ib_core nor
	  mm: address space geometry, ioctl and mmap argument checks, and
	  whatever else lives in kernel/proto/.
EOF

write_if_changed "$DEST/Makefile" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
# Generated by ddsm's tests/kunit/host.sh; do not edit.
# Every kernel/lib/*.c, kernel/proto/*.c, kernel/pmem/*.c and
# tests/kunit/*_test.c is picked up by wildcard.
ddsm_dir := $(if $(filter /%,$(src)),$(src),$(srctree)/$(src))
ccflags-y += -I$(ddsm_dir)/include

ddsm_srcs := $(sort $(wildcard $(ddsm_dir)/kernel/lib/*.c)) \
	     $(sort $(wildcard $(ddsm_dir)/kernel/proto/*.c)) \
	     $(sort $(wildcard $(ddsm_dir)/kernel/pmem/*.c)) \
	     $(ddsm_dir)/kernel/node/ioctl_check.c \
	     $(ddsm_dir)/kernel/net/wire.c \
	     $(sort $(wildcard $(ddsm_dir)/tests/kunit/*_test.c))

obj-$(CONFIG_DDSM_KUNIT_TEST) += ddsm_kunit_test.o
ddsm_kunit_test-y := $(patsubst $(ddsm_dir)/%.c,%.o,$(ddsm_srcs))
EOF

# Hook the directory into drivers/misc (idempotent).
kconf=$SRC/drivers/misc/Kconfig
kline='source "drivers/misc/ddsm_kunit/Kconfig"'
if ! grep -qxF "$kline" "$kconf"; then
	n=$(grep -n '^endmenu' "$kconf" | tail -n 1 | cut -d: -f1)
	[[ -n $n ]] || die "no endmenu in $kconf"
	sed -i "${n}i $kline" "$kconf"
fi
# shellcheck disable=SC2016 # a make variable, not a shell one
mline='obj-$(CONFIG_DDSM_KUNIT_TEST)	+= ddsm_kunit/'
mk=$SRC/drivers/misc/Makefile
grep -qxF "$mline" "$mk" || printf '%s\n' "$mline" >>"$mk"

write_if_changed "$KDIR/kunitconfig" <<'EOF'
CONFIG_KUNIT=y
CONFIG_DDSM_KUNIT_TEST=y
EOF

# --- configure, build, boot --------------------------------------------------
json=$KDIR/results.json
out=$KDIR/kunit.log
rm -f "$json"
if [[ -f $UML/vmlinux ]]; then
	log "building (incremental) and running in $UML"
else
	log "building the UML kernel in $UML (first build: 2-4 min on 2 cores)"
fi
t0=$SECONDS
set +e
(cd "$SRC" && PYTHONUNBUFFERED=1 python3 tools/testing/kunit/kunit.py run \
	--kunitconfig="$KDIR/kunitconfig" --arch=um --jobs="$KUNIT_JOBS" \
	--build_dir="$UML" --timeout="$KUNIT_TIMEOUT" --json="$json" "$@" \
	</dev/null) 2>&1 | grep --line-buffered -v "^stty: 'standard input'" |
	tee "$out"
rc=${PIPESTATUS[0]}
set -e
log "kunit.py exited $rc after $((SECONDS - t0)) s (log: $out)"

if [[ ! -s $json ]] && grep -q 'Starting KUnit Kernel' "$out"; then
	echo "not ok - kunit run (kunit.py exited $rc without results)"
	exit 1
fi
if [[ ! -s $json ]]; then
	# kunit.py writes the JSON only once the kernel ran: configuring or
	# building failed.  Repeat the compiler's diagnostics for the reader.
	# Paths point back into the repository (the copy keeps its layout).
	if grep -qE '(error|warning):' "$out"; then
		echo '# kunit: compiler diagnostics:'
		grep -E '(error|warning):' "$out" |
			sed -e "s|$DEST/|$REPO/|g" -e 's/^/#   /'
	fi
	echo 'not ok - kunit build'
	exit 2
fi

# --- one line per case --------------------------------------------------------
# The copied test sources name the suites and their cases: every declared
# suite must have run (unless a filter was given), and a case the kernel
# never reported (it crashed) is named after its KUNIT_CASE() entry.
check_suites=check
(($# == 0)) || check_suites=nocheck
shopt -s nullglob
srcs=("$DEST"/tests/kunit/*_test.c)
shopt -u nullglob

set +e
python3 - "$json" "$check_suites" "${srcs[@]}" <<'EOF'
import json
import re
import sys

ok_status = ("PASS", "SKIP")
suite_re = re.compile(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\};', re.S)
array_re = r'struct\s+kunit_case\s+%s\s*\[\s*\]\s*=\s*\{(.*?)\};'


def declared(paths):
    """{suite name: [case names in order]} from the test sources."""
    suites = {}
    for path in paths:
        with open(path) as f:
            text = f.read()
        for body in suite_re.findall(text):
            name = re.search(r'\.name\s*=\s*"([^"]+)"', body)
            arr = re.search(r'\.test_cases\s*=\s*(\w+)', body)
            if not name:
                continue
            cases = []
            if arr:
                m = re.search(array_re % re.escape(arr.group(1)), text, re.S)
                if m:
                    cases = re.findall(r'KUNIT_CASE\w*\(\s*(\w+)', m.group(1))
            suites[name.group(1)] = cases
    return suites


def leaves(group):
    """Status of every leaf case under a group (parameterised cases nest)."""
    for c in group.get("test_cases", []):
        yield c["status"]
    for g in group.get("sub_groups", []):
        yield from leaves(g)


with open(sys.argv[1]) as f:
    top = json.load(f)
decl = declared(sys.argv[3:])

failed = 0
total = 0
seen = set()
for suite in top.get("sub_groups", []):
    sname = suite["name"]
    seen.add(sname)
    cases = [(c["name"], [c["status"]]) for c in suite.get("test_cases", [])]
    cases += [(g["name"], list(leaves(g))) for g in suite.get("sub_groups", [])]
    if not cases:
        cases = [("", ["FAIL"])]
    names = decl.get(sname, [])
    for i, (cname, statuses) in enumerate(cases):
        total += 1
        good = bool(statuses) and all(s in ok_status for s in statuses)
        note = " # SKIP" if good and all(s == "SKIP" for s in statuses) else ""
        if not cname:
            cname = names[i] if i < len(names) else "#%d" % (i + 1)
            note = " (no result: the kernel crashed or hung?)"
        if not good:
            failed += 1
        print("%s - kunit %s.%s%s" % ("ok" if good else "not ok", sname,
                                        cname, note))

if sys.argv[2] == "check":
    for name in sorted(set(decl) - seen):
        failed += 1
        total += 1
        print("not ok - kunit %s (suite did not run)" % name)

if total == 0:
    print("not ok - kunit (no test results)")
    sys.exit(1)
print("# kunit: %d cases, %d failed" % (total, failed))
sys.exit(1 if failed else 0)
EOF
prc=$?
set -e

((prc == 0 && rc == 0)) ||
	log "raw kernel log: $UML/test.log"
if ((rc != 0 && prc == 0)); then
	echo "not ok - kunit run (kunit.py exited $rc)"
	exit 1
fi
((prc == 0 && rc == 0)) && exit 0
exit 1

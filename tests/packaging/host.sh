#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of issue 14 (deployment): `make deb`, the packages' contents,
# lintian, a DKMS build into a private tree, the systemd unit, the udev
# rule, the man pages against the code, the cluster.conf parser,
# `make install` into a DESTDIR, and kernel/'s layout (make layout-check).
# Writes only under $BUILD_DIR (the DKMS tree, its signing key and its
# temporary files included).  TAP-like lines; exit 0 iff all ok.
#
# Variables: BUILD_DIR (default ./build), KVER/KDIR (tools/kver.sh).
#
# No `set -e`: a failed check is reported and the next one runs, as in
# tests/run.sh.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
W=$BUILD_DIR/packaging-test
VERSION=$(cat "$ROOT/tools/packaging/VERSION")
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
DEB=$BUILD_DIR/deb
. "$ROOT/tests/vm/lib/tap.sh"
TAP_WHO=packaging
# Quote a command's output as TAP comments (diagnostics).
quote() { sed 's/^/#   /'; }

rm -rf "$W"
mkdir -p "$W/tmp"
export TMPDIR=$W/tmp

# --- make deb -------------------------------------------------------------
# Files of the checkout changed since STAMP, build/ and .git aside.
touch "$W/stamp"
changed() {
	find "$ROOT" \( -path "$BUILD_DIR" -o -path "$ROOT/build" -o -path "$ROOT/.git" \) -prune \
		-o -newer "$W/stamp" -print
}
if make -s -C "$ROOT" deb BUILD_DIR="$BUILD_DIR" >"$W/deb.log" 2>&1; then
	ok "make deb builds"
else
	nok "make deb builds"
	quote <"$W/deb.log"
	exit 1
fi
left=$(changed)
check "make deb wrote nothing outside $BUILD_DIR${left:+ (wrote: $left)}" test -z "$left"

# --- contents ---------------------------------------------------------------
# libddsm.h's functions: libddsm(3) documents each, a link page per name.
funcs=$(sed -n 's/^[a-z][^(]*[ *]\(ddsm_[a-z_]*\)(.*/\1/p' "$ROOT/userlib/ddsm/libddsm.h" | sort -u)
pkgfile() { echo "$DEB/${1}_${VERSION}_$2.deb"; }
# files PACKAGE ARCH: the regular files and links it holds, one a line.
files() { dpkg-deb -c "$(pkgfile "$1" "$2")" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||' | sort; }

doc() { printf 'usr/share/doc/%s/changelog.gz\nusr/share/doc/%s/copyright\n' "$1" "$1"; }
want_lib() { { echo "usr/lib/$MA/libddsm.so.1"; doc libddsm1; } | sort; }
want_dev() {
	{
		printf '%s\n' usr/include/ddsm/libddsm.h usr/include/ddsm/linux/ddsm.h \
			"usr/lib/$MA/libddsm.a" "usr/lib/$MA/libddsm.so" \
			"usr/lib/$MA/pkgconfig/libddsm.pc" usr/share/man/man3/libddsm.3.gz
		for f in $funcs; do echo "usr/share/man/man3/$f.3.gz"; done
		doc libddsm-dev
	} | sort
}
want_tools() {
	{
		printf '%s\n' usr/sbin/ddsmctl usr/share/man/man8/ddsmctl.8.gz \
			usr/share/man/man4/ddsm.4.gz usr/share/man/man5/ddsm-cluster.conf.5.gz \
			lib/udev/rules.d/60-ddsm.rules lib/systemd/system/ddsm.service \
			usr/lib/sysusers.d/ddsm.conf usr/share/bash-completion/completions/ddsmctl \
			usr/share/doc/ddsm-tools/examples/cluster.conf \
			usr/share/doc/ddsm-tools/examples/modprobe-ddsm.conf
		doc ddsm-tools
	} | sort
}
# The module's source as Kbuild needs it: every .c/.h of kernel/ and
# include/ in the tree, Kbuild, dkms.conf; nothing built.
want_dkms() {
	{
		(cd "$ROOT" && find kernel include -type f -name '*.[ch]') |
			sed "s|^|usr/src/ddsm-$VERSION/|"
		printf '%s\n' "usr/src/ddsm-$VERSION/Kbuild" "usr/src/ddsm-$VERSION/dkms.conf"
		doc ddsm-dkms
	} | sort
}
same_list() {
	local name=$1 want=$2 have
	have=$(files "$name" "$3")
	if [ "$want" = "$have" ]; then
		ok "$name: file list"
	else
		nok "$name: file list (< missing, > unexpected)"
		diff <(echo "$want") <(echo "$have") | grep '^[<>]' | quote
	fi
}
same_list ddsm-dkms "$(want_dkms)" all
same_list libddsm1 "$(want_lib)" "$ARCH"
same_list libddsm-dev "$(want_dev)" "$ARCH"
same_list ddsm-tools "$(want_tools)" "$ARCH"

field() { dpkg-deb -f "$(pkgfile "$1" "$2")" "$3"; }
export -f field pkgfile
export DEB VERSION
check "every package has version $VERSION (tools/packaging/VERSION)" \
	test "$(for p in libddsm1 libddsm-dev ddsm-tools; do field $p "$ARCH" Version; done; field ddsm-dkms all Version)" = \
	"$(printf '%s\n' "$VERSION" "$VERSION" "$VERSION" "$VERSION")"
x=$W/x
for p in ddsm-dkms:all libddsm1:$ARCH libddsm-dev:$ARCH ddsm-tools:$ARCH; do
	dpkg-deb -x "$(pkgfile "${p%%:*}" "${p#*:}")" "$x"
done
check "dkms.conf: PACKAGE_VERSION=$VERSION" \
	grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$x/usr/src/ddsm-$VERSION/dkms.conf"
check "libddsm.pc: Version $VERSION, libdir /usr/lib/$MA, headers in includedir/ddsm" \
	bash -c "grep -qx 'Version: $VERSION' '$x/usr/lib/$MA/pkgconfig/libddsm.pc' &&
		grep -qx 'libdir=/usr/lib/$MA' '$x/usr/lib/$MA/pkgconfig/libddsm.pc' &&
		grep -qx 'Cflags: -I\${includedir}/ddsm' '$x/usr/lib/$MA/pkgconfig/libddsm.pc'"
check "libddsm.so.1 has SONAME libddsm.so.1" \
	bash -c "objdump -p '$x/usr/lib/$MA/libddsm.so.1' | grep -q 'SONAME *libddsm.so.1$'"
# A program as the manual writes it, built both ways a user would.
printf '#include <%s>\nint main(void){struct ddsm *h = ddsm_open("/nonexistent"); return h ? 1 : 0;}\n' \
	ddsm/libddsm.h >"$W/t1.c"
sed 's|ddsm/libddsm.h|libddsm.h|' "$W/t1.c" >"$W/t2.c"
check "libddsm-dev: #include <ddsm/libddsm.h> builds and runs against libddsm" \
	bash -c "gcc -Wall -Werror -I'$x/usr/include' -o '$W/t1' '$W/t1.c' -L'$x/usr/lib/$MA' -lddsm &&
		LD_LIBRARY_PATH='$x/usr/lib/$MA' '$W/t1'"
check "libddsm-dev: #include <libddsm.h> with libddsm.pc's Cflags builds" \
	bash -c "gcc -Wall -Werror -I'$x/usr/include/ddsm' -o '$W/t2' '$W/t2.c' -L'$x/usr/lib/$MA' -lddsm"
check "libddsm-dev: nothing in linux-libc-dev's /usr/include/linux" \
	test ! -e "$x/usr/include/linux"
# Versioned symbols: the ones of the symbols file, no unversioned export.
syms=$(readelf --dyn-syms -W "$x/usr/lib/$MA/libddsm.so.1" | awk '$7 != "UND" && $8 ~ /^ddsm_/ {print $8}' | sed 's/@@*/@/' | sort)
want=$(sed -n 's/^ \(ddsm_[a-z_]*@LIBDDSM_[0-9]*\) .*/\1/p' "$ROOT/tools/packaging/deb/libddsm1.symbols" | sort)
check "libddsm.so.1 exports exactly libddsm1.symbols's $(wc -l <<<"$want") versioned symbols" \
	test "$syms" = "$want"
check "libddsm1 ships a symbols file (LIBDDSM_1 and LIBDDSM_2)" \
	bash -c "dpkg-deb -I '$(pkgfile libddsm1 "$ARCH")' symbols | grep -q 'ddsm_open@LIBDDSM_1' &&
		dpkg-deb -I '$(pkgfile libddsm1 "$ARCH")' symbols | grep -q 'ddsm_open@LIBDDSM_2'"
check "ddsm-tools and libddsm-dev pin libddsm1 $VERSION; both break an older ddsm-dkms" \
	bash -c "field ddsm-tools '$ARCH' Depends | grep -q 'libddsm1 (= $VERSION)' &&
		field libddsm-dev '$ARCH' Depends | grep -q 'libddsm1 (= $VERSION)' &&
		field ddsm-tools '$ARCH' Breaks | grep -q 'ddsm-dkms (<<' &&
		field libddsm1 '$ARCH' Breaks | grep -q 'ddsm-dkms (<<'"

# --- lintian ----------------------------------------------------------------
if lintian --no-cfg --fail-on error "$DEB"/*_"$VERSION"_*.deb >"$W/lintian.log" 2>&1; then
	ok "lintian: no error"
else
	nok "lintian: no error"
fi
grep -E '^[EW]: ' "$W/lintian.log" | quote || true

# --- DKMS -------------------------------------------------------------------
# A private tree: --dkmstree/--sourcetree, and the key dkms signs with
# (it would create one in /var/lib/dkms otherwise).
KVER=${KVER:-$("$ROOT/tools/kver.sh")}
KDIR=${KDIR:-/usr/src/linux-headers-$KVER}
mkdir -p "$W/dkms/src" "$W/dkms/tree"
cp -a "$x/usr/src/ddsm-$VERSION" "$W/dkms/src/"
if mok_signing_key=$W/dkms/mok.key mok_certificate=$W/dkms/mok.pub \
	dkms build -m ddsm -v "$VERSION" -k "$KVER" --kernelsourcedir "$KDIR" \
		--dkmstree "$W/dkms/tree" --sourcetree "$W/dkms/src" \
		>"$W/dkms.log" 2>&1; then
	ok "dkms build of ddsm-dkms's source against $KVER"
else
	nok "dkms build of ddsm-dkms's source against $KVER"
	tail -n 30 "$W/dkms.log" | quote
	cat "$W/dkms/tree/ddsm/$VERSION/build/make.log" 2>/dev/null | tail -n 30 | quote
fi
ko=$W/dkms/tree/ddsm/$VERSION/$KVER/$(uname -m)/module/ddsm.ko
check "the DKMS ddsm.ko is for $KVER (vermagic)" \
	bash -c "modinfo -F vermagic '$ko' | grep -q '^$KVER '"

# --- systemd unit, udev rule ----------------------------------------------
# The unit as shipped, ddsmctl's path pointed at the packaged binary and
# man at the packaged pages, so that verify's checks of ExecStart= and
# Documentation= test what the package holds.
unit=$W/ddsm.service
sed "s|/usr/sbin/ddsmctl|$x/usr/sbin/ddsmctl|g" \
	"$x/lib/systemd/system/ddsm.service" >"$unit"
if out=$(MANPATH=$x/usr/share/man systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify ddsm.service"
else
	nok "systemd-analyze verify ddsm.service"
	echo "$out" | quote
fi
if udevadm verify --help >/dev/null 2>&1; then
	if out=$(udevadm verify "$x/lib/udev/rules.d/60-ddsm.rules" 2>&1); then
		ok "udevadm verify 60-ddsm.rules"
	else
		nok "udevadm verify 60-ddsm.rules"
		echo "$out" | quote
	fi
else
	echo "# skip - udevadm verify 60-ddsm.rules: udevadm $(udevadm --version) has no verify command (systemd 254 added it)"
fi
check "60-ddsm.rules gives /dev/ddsm to group ddsm, mode 0660" \
	grep -qE '^KERNEL=="ddsm",.*GROUP="ddsm", MODE="0660"$' "$x/lib/udev/rules.d/60-ddsm.rules"

# --- man pages --------------------------------------------------------------
for m in "$x"/usr/share/man/man3/libddsm.3.gz "$x"/usr/share/man/man4/ddsm.4.gz \
	"$x"/usr/share/man/man5/ddsm-cluster.conf.5.gz "$x"/usr/share/man/man8/ddsmctl.8.gz; do
	n=$(basename "$m" .gz)
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null) || out="man exited $?: $out"
	if [ -z "$out" ]; then ok "man -l $n: no warning"; else nok "man -l $n: no warning"; echo "$out" | quote; fi
done

CTL=$x/usr/sbin/ddsmctl
export LD_LIBRARY_PATH=$x/usr/lib/$MA	# the packaged ddsmctl and its libddsm
render() { LC_ALL=C MANWIDTH=300 man -l "$x/usr/share/man/$1.gz" 2>/dev/null || true; }
# The words of a man page's tag lines in SECTION: "peer show", "status".
man_cmds() {
	render man8/ddsmctl.8 | awk -v s="$1" '$0 == s {f=1; next} /^[A-Z]/ {f=0}
		f && /^       [a-z]/ {o=$1; if ($2 ~ /^[a-z][a-z-]*$/ && $2 != "Old") o=o" "$2; print o}' | sort -u
}
check "ddsmctl(8) COMMANDS are exactly ddsmctl help --list" \
	test "$("$CTL" help --list | sort -u)" = "$(man_cmds COMMANDS)"
check "ddsmctl(8) OLD COMMANDS are exactly ddsmctl help --aliases" \
	test "$("$CTL" help --aliases | sort -u)" = "$(man_cmds 'OLD COMMANDS')"
bad=
page=$(render man8/ddsmctl.8)
while IFS= read -r c; do
	# Each synopsis of `help OBJECT [COMMAND]` is a tag line of the page.
	while IFS= read -r syn; do
		grep -qxF "       $syn" <<<"$page" || grep -qF "       $syn " <<<"$page" || bad+=" '$syn'"
	done < <(read -ra w <<<"$c"; "$CTL" help "${w[@]}" | sed -n 's/^  \([a-z].*\)$/\1/p')
done < <("$CTL" help --list; "$CTL" help --aliases)
check "every synopsis of ddsmctl help OBJECT COMMAND is in ddsmctl(8)${bad:+ (missing:$bad)}" test -z "$bad"
check "ddsmctl help nosuchcommand exits 2" bash -c "'$CTL' help nosuchcommand 2>/dev/null; [ \$? -eq 2 ]"
check "ddsmctl --version names ddsmctl and libddsm $VERSION" \
	bash -c "'$CTL' --version | grep -qx 'ddsmctl $VERSION' && '$CTL' --version | grep -q '^libddsm $VERSION, ABI '"

lib3=$(render man3/libddsm.3)
missing=
for f in $funcs; do grep -q "$f(" <<<"$lib3" || missing+=" $f"; done
check "man ddsm_open (a link page) shows libddsm(3)" \
	bash -c "LC_ALL=C MANWIDTH=80 man -M '$x/usr/share/man' 3 ddsm_open 2>/dev/null | grep -q '^LIBDDSM(3)'"
check "libddsm(3) has all $(wc -w <<<"$funcs") functions of libddsm.h${missing:+ (missing:$missing)}" test -z "$missing"

# The production module's parameters: those of the sources outside
# kernel/selftest/ (the self-test build's knobs are not offered to users),
# exactly what modinfo lists for the module DKMS built; the config parser
# refuses the knobs.
param_re='s/^module_param\(_cb\|_named\)\?(\([a-z_]*\),.*/\2/p'
params=$(find "$ROOT/kernel" -path "$ROOT/kernel/selftest" -prune -o -name '*.c' -print0 |
	xargs -0 sed -n "$param_re" | sort -u)
knobs=$(sed -n "$param_re" "$ROOT"/kernel/selftest/*.c | sort -u)
modparams=$(modinfo -F parm "$ko" 2>/dev/null | sed -n 's/^\([a-z_]*\):.*/\1/p' | sort -u)
accepted=
for p in $knobs; do
	printf '%s = 0\n' "$p" >"$W/one.conf"
	"$CTL" modprobe-args --config "$W/one.conf" >/dev/null 2>&1 && accepted+=" $p"
done
check "modinfo of the production ddsm.ko: the $(wc -w <<<"$params") user parameters, none of the $(wc -w <<<"$knobs") test knobs (cluster.conf refuses them${accepted:+; accepts:$accepted})" \
	bash -c "[ -n '$params' ] && [ '$(echo $params)' = '$(echo $modparams)' ] &&
		! modinfo -F parm '$ko' | grep -qi 'test only' && [ -z '$accepted' ]"
# Their defaults and limits against the docs and the parser: tests/api_host.
ex=$x/usr/share/doc/ddsm-tools/examples

# --- cluster.conf -----------------------------------------------------------
conf() { printf '%s\n' "$@" >"$W/c.conf"; }
args() { "$CTL" modprobe-args --config "$W/c.conf" 2>"$W/c.err"; }
conf "# a comment" "nodes = 10.9.9.1, 127.0.0.1 ,10.9.9.3  # trailing" \
	"node_id = auto" "size = 1G" "home_policy = range" "mode = 0660" \
	"migratory = off" "fault_timeout_ms = 5000" "wait_timeout = 5"
check "modprobe-args: load-time parameters only, normalised" \
	test "$(args)" = "size=1073741824 home_policy=range mode=0660 fault_timeout_ms=5000 migratory=N"
echo "pmem = /dev/pmem0" >>"$W/c.conf"
check "modprobe-args with pmem: node_id from auto (127.0.0.1 is entry 1) and nodes at load" \
	test "$(args)" = "nodes=10.9.9.1,127.0.0.1,10.9.9.3 node_id=1 size=1073741824 home_policy=range mode=0660 fault_timeout_ms=5000 migratory=N pmem=/dev/pmem0"
sed 's/^node_id = auto/node_id = 0/' "$ex/cluster.conf" >"$W/example.conf"
check "the example cluster.conf parses (node_id 0 for auto: not this host's addresses)" \
	bash -c "grep -q '^node_id = 0' '$W/example.conf' && '$CTL' modprobe-args --config '$W/example.conf' >/dev/null"
# refused CONTENT... WHY: exit 1 and FILE[:LINE]: WHY on stderr.
refused() {
	local why=$1
	shift
	conf "$@"
	if args >/dev/null; then return 1; fi
	grep -qF "$why" "$W/c.err"
}
check "refused: unknown key, with its line" refused "c.conf:2: bogus: unknown key" "size = 1G" "bogus = 1"
check "refused: a key given twice" refused "c.conf:2: size: given twice" "size = 1G" "size = 2G"
check "refused: size not a 4K multiple" refused "c.conf:1: size: not a non-zero multiple of 4K" "size = 5000"
check "refused: a bad address" refused "c.conf:1: nodes: not a list of IPv4 addresses" "nodes = 10.0.0.1,10.0.0" "node_id = 0"
check "refused: node_id outside nodes" refused "node_id is not an index of nodes" "nodes = 10.0.0.1,10.0.0.2" "node_id = 2"
check "refused: auto with no address of this host" refused "no entry of nodes is an address of this host" "nodes = 10.9.9.1,10.9.9.2" "node_id = auto"
check "refused: nodes without node_id" refused "nodes and node_id go together" "nodes = 10.9.9.1"
check "refused: port out of range" refused "c.conf:1: port: not a decimal number in 1..65535" "port = 70000"
check "refused: home_policy not a policy" refused "c.conf:1: home_policy: not one of" "home_policy = random"
check "refused: a line without =" refused "c.conf:1: size 1G: expected key = value" "size 1G"
check "refused: a file that is not there" bash -c "! '$CTL' modprobe-args --config '$W/nonexistent' 2>/dev/null"
check "refused: heartbeat_ms below the module's 10" refused "c.conf:1: heartbeat_ms: not a decimal number in 10..1800000" "heartbeat_ms = 5"
check "refused: peer_timeout_ms below twice heartbeat_ms" refused "peer_timeout_ms must be at least twice heartbeat_ms" "heartbeat_ms = 500" "peer_timeout_ms = 900"
check "refused: tx_validate_defer_us past 100000" refused "c.conf:1: tx_validate_defer_us: not a decimal number in 0..100000" "tx_validate_defer_us = 100001"
conf "tx_validate_defer_us = 500" "grace_us = 0"
check "tx_validate_defer_us and grace_us accepted (run-time parameters, also at load)" \
	test "$(args)" = "grace_us=0 tx_validate_defer_us=500"
check "config check prints the file's keys (-j: JSON)" \
	bash -c "'$CTL' -j config check --config '$W/c.conf' | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"keys\"][\"tx_validate_defer_us\"] == \"500\"'"
# The cluster's regions (region =, tx_region =: repeatable, declared by
# cluster join --config; not module parameters).
conf "size = 64M" "pmem = /dev/pmem0" "region = 4M 4K sync" "tx_region = 8M 68K" \
	"region = 0x1000000 16K strict" "tx_region = 0x1C00000 16K"
check "regions: accepted, none in modprobe-args" test "$(args)" = "size=67108864 pmem=/dev/pmem0"
check "regions: config check -j lists them in order, with their lines" \
	bash -c "'$CTL' -j config check --config '$W/c.conf' | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"regions\"]; assert [(x[\"kind\"], x[\"start\"], x[\"size\"], x.get(\"model\"), x[\"line\"]) for x in r] == [(\"region\", 4<<20, 4096, \"sync\", 3), (\"tx_region\", 8<<20, 69632, None, 4), (\"region\", 16<<20, 16384, \"strict\", 5), (\"tx_region\", 28<<20, 16384, None, 6)], r'"
check "refused: region without a model" refused "c.conf:2: region: expected START SIZE MODEL" "pmem = /dev/pmem0" "region = 4M 4K"
check "refused: region with a word too many" refused "c.conf:2: region: expected START SIZE MODEL" "pmem = /dev/pmem0" "region = 4M 4K sync now"
check "refused: region not a model" refused "c.conf:2: region: MODEL not one of" "pmem = /dev/pmem0" "region = 4M 4K fast"
check "refused: region START not 4K aligned" refused "c.conf:2: region: START not a multiple of 4K" "pmem = /dev/pmem0" "region = 4097 4K sync"
check "refused: region SIZE 0" refused "c.conf:2: region: SIZE not a non-zero multiple of 4K" "pmem = /dev/pmem0" "region = 4M 0 sync"
check "refused: regions that overlap" refused "c.conf:3: region: overlaps the region of line 2" \
	"pmem = /dev/pmem0" "region = 4M 8K sync" "region = 0x401000 4K eventual"
check "refused: region past the space (default size 256M)" refused "c.conf:2: region: not inside the space" \
	"pmem = /dev/pmem0" "region = 256M 4K sync"
check "refused: region without pmem" refused "c.conf:1: region: needs pmem" "region = 4M 4K sync"
check "refused: tx_region with a model" refused "c.conf:1: tx_region: expected START SIZE" "tx_region = 8M 4K sync"
check "refused: tx_region empty" refused "c.conf:1: tx_region: empty value" "tx_region ="
check "refused: tx_region past the space" refused "c.conf:2: tx_region: not inside the space" "size = 64M" "tx_region = 64M 4K"
tx17=()
for i in $(seq 0 16); do tx17+=("tx_region = $((i * 2))M 4K"); done
check "refused: a 17th tx_region" refused "c.conf:17: tx_region: more than 16 of them" "${tx17[@]}"

# --- make install ---------------------------------------------------------
# From make deb's copy of the tree, so that this test builds nothing in
# the checkout either.
d=$W/destdir
if make -s -C "$DEB/src" install DESTDIR="$d" PREFIX=/opt/ddsm BUILD_DIR="$W/install-build" >"$W/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/opt/ddsm"
else
	nok "make install DESTDIR=... PREFIX=/opt/ddsm"
	quote <"$W/install.log"
fi
check "make install: man pages, ddsmctl, libddsm, headers, unit, rule, group, completion under DESTDIR/PREFIX" \
	bash -c "cd '$d/opt/ddsm' && test -f share/man/man8/ddsmctl.8 -a -f share/man/man3/libddsm.3 \
		-a -f share/man/man4/ddsm.4 -a -f share/man/man5/ddsm-cluster.conf.5 -a -x sbin/ddsmctl \
		-a -f lib/libddsm.so.1 -a -f include/ddsm/libddsm.h -a -f include/ddsm/linux/ddsm.h \
		-a -f lib/pkgconfig/libddsm.pc -a -f lib/systemd/system/ddsm.service \
		-a -f lib/udev/rules.d/60-ddsm.rules -a -f lib/sysusers.d/ddsm.conf \
		-a -f share/bash-completion/completions/ddsmctl"
check "make install: nothing outside DESTDIR/PREFIX (the config stays in /etc, not installed)" \
	test "$(find "$d" -mindepth 1 -maxdepth 2 | sort | tr '\n' ' ')" = "$d/opt $d/opt/ddsm "
check "make install: the unit runs PREFIX's ddsmctl on /etc/ddsm/cluster.conf, as the package's" \
	grep -q '^ExecStart=/opt/ddsm/sbin/ddsmctl cluster join --config /etc/ddsm/cluster.conf$' \
	"$d/opt/ddsm/lib/systemd/system/ddsm.service"
check "make install: the unit's condition is /etc/ddsm/cluster.conf, as the package's" \
	bash -c "grep -qx 'ConditionPathExists=/etc/ddsm/cluster.conf' '$d/opt/ddsm/lib/systemd/system/ddsm.service' &&
		grep -qx 'ConditionPathExists=/etc/ddsm/cluster.conf' '$x/lib/systemd/system/ddsm.service'"
check "make install: the group ddsm the udev rule names is declared (sysusers.d), as the package's" \
	bash -c "grep -qx 'g ddsm -' '$d/opt/ddsm/lib/sysusers.d/ddsm.conf' &&
		cmp -s '$d/opt/ddsm/lib/sysusers.d/ddsm.conf' '$x/usr/lib/sysusers.d/ddsm.conf' &&
		grep -q 'GROUP=\"ddsm\"' '$d/opt/ddsm/lib/udev/rules.d/60-ddsm.rules'"
check "make install: libddsm.pc's Cflags point at PREFIX/include/ddsm" \
	bash -c "grep -qx 'includedir=/opt/ddsm/include' '$d/opt/ddsm/lib/pkgconfig/libddsm.pc' &&
		grep -qx 'Cflags: -I\${includedir}/ddsm' '$d/opt/ddsm/lib/pkgconfig/libddsm.pc'"
# With PREFIX=/usr, the paths that matter are the package's.
d2=$W/destdir-usr
make -s -C "$DEB/src" install DESTDIR="$d2" PREFIX=/usr BUILD_DIR="$W/install-build2" >"$W/install2.log" 2>&1
same=
for f in usr/include/ddsm/libddsm.h usr/include/ddsm/linux/ddsm.h usr/lib/sysusers.d/ddsm.conf \
	usr/share/bash-completion/completions/ddsmctl usr/sbin/ddsmctl; do
	{ test -e "$d2/$f" && test -e "$x/$f"; } || same+=" $f"
done
check "make install PREFIX=/usr: header, group, completion, ddsmctl at the package's paths${same:+ (differ:$same)}" \
	test -z "$same"
check "make install: ddsmctl's default configuration file is /etc/ddsm/cluster.conf" \
	bash -c "'$d/opt/ddsm/sbin/ddsmctl' config check 2>&1 | grep -q '^/etc/ddsm/cluster.conf'"
# --- kernel/'s layout -------------------------------------------------------
# docs/design.md, "Layers": tools/layout-check.py over both module builds
# of make deb's copy of the tree (nothing is built in the checkout), its
# lines counted as this test's.
make -s -j"$(nproc)" -C "$DEB/src" layout-check BUILD_DIR="$W/layout-build" \
	>"$W/layout.log" 2>&1
n=0
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }"; n=$((n + 1)) ;;
	"not ok - "*) nok "${line#not ok - }"; n=$((n + 1)) ;;
	"#"*) echo "$line" ;;
	esac
done <"$W/layout.log"
[ "$n" -gt 0 ] || { nok "make layout-check"; tail -n 30 "$W/layout.log" | quote; }

left=$(changed)
check "this test wrote nothing in the checkout${left:+ (wrote: $left)}" test -z "$left"

tap_exit

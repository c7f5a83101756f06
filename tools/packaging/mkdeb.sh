#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: ddsm-dkms, libddsm1, libddsm-dev and ddsm-tools from this
# source tree, with dpkg-deb, into $BUILD_DIR/deb.  Nothing is written
# outside $BUILD_DIR: the sources are exported to $BUILD_DIR/deb/src and
# built there with Debian's compiler flags, installed into a staging root
# with the top-level `make install`, and that root is split into packages.
# Every installed file must land in exactly one package (checked).
#
# Variables: BUILD_DIR (default ./build), DEB_MAINTAINER (default: the
# author of the last commit), SOURCE_DATE_EPOCH (default: its date).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
PKG=$ROOT/tools/packaging
OUT=$BUILD_DIR/deb
VERSION=$(cat "$PKG/VERSION")
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
DEB_MAINTAINER=${DEB_MAINTAINER:-$(git -C "$ROOT" log -1 --format='%an <%ae>' 2>/dev/null || echo 'ddsm developers <ddsm@localhost>')}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

say() { echo "mkdeb: $*"; }

rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/root" "$OUT/pkg"

# 1. The sources as git sees them (tracked and new, not ignored): no build
#    product of the tree is packaged, and the build writes only here.
say "exporting the source tree"
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "mkdeb: $ROOT is not a git checkout: the export needs git ls-files" >&2; exit 1; }
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard) |
	(cd "$ROOT" && xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh) |
	(cd "$ROOT" && tar --null -T - -cf -) | tar -xf - -C "$OUT/src"

# 2. Build and install with Debian's hardening flags; ddsmctl links libc
#    dynamically here (the guests' copy is static).
say "building with dpkg-buildflags"
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
CFLAGS=$(dpkg-buildflags --get CFLAGS)
CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS)
LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
export CFLAGS CPPFLAGS LDFLAGS
make -s -C "$OUT/src" install DESTDIR="$OUT/root" BUILD_DIR="$OUT/build" \
	PREFIX=/usr LIBDIR="/usr/lib/$MA" INCDIR=/usr/include SBINDIR=/usr/sbin \
	SYSCONFDIR=/etc UDEVRULESDIR=/lib/udev/rules.d \
	SYSTEMDUNITDIR=/lib/systemd/system SYSUSERSDIR=/usr/lib/sysusers.d \
	COMPLETIONDIR=/usr/share/bash-completion/completions \
	EXAMPLESDIR=/usr/share/doc/ddsm-tools/examples STATIC= >/dev/null
make -s -C "$OUT/src/tools/packaging" dkms-source DESTDIR="$OUT/root" \
	BUILD_DIR="$OUT/build" >/dev/null

# 3. Split.  take PACKAGE PATH...: move PATHs (relative to the root) in.
take() {
	local p=$1 f
	shift
	for f in "$@"; do
		[ -e "$OUT/root/$f" ] || [ -L "$OUT/root/$f" ] ||
			{ echo "mkdeb: $f was not installed" >&2; exit 1; }
		mkdir -p "$OUT/pkg/$p/$(dirname "$f")"
		mv "$OUT/root/$f" "$OUT/pkg/$p/$f"
	done
}
take ddsm-dkms "usr/src/ddsm-$VERSION"
take libddsm1 "usr/lib/$MA/libddsm.so.1"
take libddsm-dev usr/include/ddsm \
	"usr/lib/$MA/libddsm.so" "usr/lib/$MA/libddsm.a" \
	"usr/lib/$MA/pkgconfig/libddsm.pc" usr/share/man/man3
take ddsm-tools usr/sbin/ddsmctl usr/share/man/man8/ddsmctl.8 \
	usr/share/man/man4/ddsm.4 usr/share/man/man5/ddsm-cluster.conf.5 \
	lib/udev/rules.d/60-ddsm.rules lib/systemd/system/ddsm.service \
	usr/lib/sysusers.d/ddsm.conf \
	usr/share/bash-completion/completions/ddsmctl \
	usr/share/doc/ddsm-tools/examples
left=$(find "$OUT/root" ! -type d)
if [ -n "$left" ]; then
	echo "mkdeb: installed but in no package:" >&2
	echo "$left" >&2
	exit 1
fi

# Debian's rules for what is inside: stripped objects, compressed manual
# pages, a copyright file and a changelog per package, sane modes.
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	"$OUT/pkg/libddsm1/usr/lib/$MA/libddsm.so.1"
strip --remove-section=.comment --remove-section=.note \
	"$OUT/pkg/ddsm-tools/usr/sbin/ddsmctl"
strip --strip-debug --remove-section=.comment \
	"$OUT/pkg/libddsm-dev/usr/lib/$MA/libddsm.a"
find "$OUT/pkg" -path '*/share/man/*' -type f -exec gzip -9n {} +
sed -e "s|@VERSION@|$VERSION|g" -e "s|@MAINTAINER@|$DEB_MAINTAINER|" \
	-e "s|@DATE@|$(date -R -u -d "@$SOURCE_DATE_EPOCH")|" \
	"$PKG/deb/changelog.in" >"$OUT/changelog"
for p in ddsm-dkms libddsm1 libddsm-dev ddsm-tools; do
	d=$OUT/pkg/$p/usr/share/doc/$p
	mkdir -p "$d"
	install -m 0644 "$PKG/deb/copyright" "$d/copyright"
	gzip -9n -c "$OUT/changelog" >"$d/changelog.gz"
done
find "$OUT/pkg" -type d -exec chmod 0755 {} +
find "$OUT/pkg" -type f -exec chmod 0644 {} +
chmod 0755 "$OUT/pkg/ddsm-tools/usr/sbin/ddsmctl"

# Library dependencies as dpkg-shlibdeps computes them (it wants a
# debian/control and the object in a package root: a scratch directory).
shlibdeps() {
	local s=$OUT/shlibdeps
	rm -rf "$s"
	mkdir -p "$s/debian/x/DEBIAN"
	printf 'Source: ddsm\n\nPackage: x\nArchitecture: any\n' >"$s/debian/control"
	cp "$1" "$s/debian/x/"
	(cd "$s" && dpkg-shlibdeps "${@:2}" -O "debian/x/$(basename "$1")") |
		sed -n 's/^shlibs:Depends=//p'
}
DEPS_LIB=$(shlibdeps "$OUT/pkg/libddsm1/usr/lib/$MA/libddsm.so.1")
# ddsmctl's libddsm is this build's: pinned below, not looked up.
DEPS_TOOLS=$(shlibdeps "$OUT/pkg/ddsm-tools/usr/sbin/ddsmctl" \
	-l"$OUT/pkg/libddsm1/usr/lib/$MA" --ignore-missing-info)

# libddsm1's symbols file must list exactly the library's versioned
# symbols: dpkg-gensymbols fails the build on any difference (-c4), so a
# symbol added, dropped or moved between versions is seen here.
symbols() {
	local s=$OUT/gensymbols
	rm -rf "$s"
	mkdir -p "$s/debian"
	printf 'Source: ddsm\n\nPackage: libddsm1\nArchitecture: any\n' >"$s/debian/control"
	cp "$OUT/changelog" "$s/debian/changelog"
	(cd "$s" && dpkg-gensymbols -plibddsm1 -P"$OUT/pkg/libddsm1" \
		-e"$OUT/pkg/libddsm1/usr/lib/$MA/libddsm.so.1" \
		-I"$PKG/deb/libddsm1.symbols" -O"$OUT/symbols" -c4 -q) ||
		{ echo "mkdeb: libddsm.so.1 and $PKG/deb/libddsm1.symbols differ" >&2; exit 1; }
}
symbols


# control PACKAGE ARCH SECTION SUMMARY [FIELD...]: DEBIAN/control, the long
# description on stdin (an empty line becomes a paragraph break).
control() {
	local p=$1 arch=$2 section=$3 summary=$4 size
	shift 4
	size=$(du -k -s --apparent-size "$OUT/pkg/$p" | cut -f1)
	mkdir -p "$OUT/pkg/$p/DEBIAN"
	{
		echo "Package: $p"
		echo "Version: $VERSION"
		echo "Architecture: $arch"
		echo "Maintainer: $DEB_MAINTAINER"
		echo "Installed-Size: $size"
		printf '%s\n' "$@"
		echo "Section: $section"
		echo "Priority: optional"
		echo "Description: $summary"
		sed 's/^$/./; s/^/ /'
	} >"$OUT/pkg/$p/DEBIAN/control"
}

control ddsm-dkms all kernel "distributed shared memory over RDMA (DKMS module source)" \
	"Depends: dkms (>= 3.0), make" \
	"Recommends: ddsm-tools" <<'EOF'
ddsm is a kernel module that gives a cluster of machines one coherent,
globally addressed memory: processes map /dev/ddsm and the mmap offset is
the global address.  Page faults drive a directory protocol; the cluster
transport is kernel RDMA verbs (InfiniBand or RoCE).

This package holds the module's source; DKMS builds ddsm.ko for every
installed kernel with headers (Linux 6.x; built and tested on 6.1).
EOF

# The oldest ddsm-dkms whose module libddsm drives (ddsm_abi_min(), ABI
# 11: ddsm 1.0.0): with an older one installed, every call would fail
# with EPROTO, so the packages say so to apt.
MIN_MODULE=1.0.0
control libddsm1 "$ARCH" libs "distributed shared memory over RDMA (shared library)" \
	"Multi-Arch: same" "Depends: $DEPS_LIB" \
	"Breaks: ddsm-dkms (<< $MIN_MODULE)" <<'EOF'
libddsm is a thin C wrapper around /dev/ddsm, the device of the ddsm
distributed shared memory module: open, map windows of the global space,
read the node's state and counters, configure the cluster, run HADES
transactions and make writes durable on pmem.  Its symbols are versioned:
programs built against an earlier interface keep working.
EOF

control libddsm-dev "$ARCH" libdevel "distributed shared memory over RDMA (development files)" \
	"Multi-Arch: same" "Depends: libddsm1 (= $VERSION), linux-libc-dev" <<'EOF'
Headers in /usr/include/ddsm (libddsm.h and the module's user-space ABI,
linux/ddsm.h), the static library, the pkg-config file and libddsm(3) for
programs that use the ddsm distributed shared memory device.
EOF

control ddsm-tools "$ARCH" admin "distributed shared memory over RDMA (ddsmctl and service)" \
	"Depends: $DEPS_TOOLS, libddsm1 (= $VERSION), adduser, kmod" \
	"Recommends: ddsm-dkms (= $VERSION), rdma-core" \
	"Breaks: ddsm-dkms (<< $MIN_MODULE)" <<'EOF'
ddsmctl shows and configures a ddsm node (ddsmctl peer show, ddsmctl tx
stats, -j for JSON, bash completion).  ddsm.service loads the module,
joins the cluster described by /etc/ddsm/cluster.conf (ddsm-cluster.conf(5))
and waits for the peers; a udev rule gives /dev/ddsm to the group ddsm.
Examples of cluster.conf and of a modprobe.d file are in
/usr/share/doc/ddsm-tools/examples.
EOF

# Maintainer scripts and control metadata.
script() {
	sed "s|@VERSION@|$VERSION|g" "$PKG/deb/$1.$2" >"$OUT/pkg/$1/DEBIAN/$2"
	chmod 0755 "$OUT/pkg/$1/DEBIAN/$2"
}
script ddsm-dkms postinst
script ddsm-dkms prerm
script ddsm-tools postinst
script ddsm-tools prerm
script ddsm-tools postrm
echo "libddsm 1 libddsm1 (>= $VERSION)" >"$OUT/pkg/libddsm1/DEBIAN/shlibs"
install -m 0644 "$OUT/symbols" "$OUT/pkg/libddsm1/DEBIAN/symbols"
echo "activate-noawait ldconfig" >"$OUT/pkg/libddsm1/DEBIAN/triggers"
chmod 0644 "$OUT/pkg/libddsm1/DEBIAN/shlibs" "$OUT/pkg/libddsm1/DEBIAN/triggers"

for p in ddsm-dkms libddsm1 libddsm-dev ddsm-tools; do
	(cd "$OUT/pkg/$p" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
		LC_ALL=C sort -z | xargs -0 -r md5sum) >"$OUT/pkg/$p/DEBIAN/md5sums"
	chmod 0644 "$OUT/pkg/$p/DEBIAN/md5sums"
	a=$(sed -n 's/^Architecture: //p' "$OUT/pkg/$p/DEBIAN/control")
	dpkg-deb --root-owner-group -Zxz --build "$OUT/pkg/$p" \
		"$OUT/${p}_${VERSION}_$a.deb" >/dev/null
	say "$OUT/${p}_${VERSION}_$a.deb"
done

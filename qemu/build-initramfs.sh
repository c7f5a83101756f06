#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest boot artefacts under $BUILD_DIR/qemu/, from the host's
# Debian packages only (nothing is downloaded):
#   base-$KVER.cpio.gz  busybox, bash, guest modules, RDMA/pmem tools, init.
#                       Cached: rebuilt only when missing or when this script,
#                       qemu/guest/* or KVER changed (see base-$KVER.stamp).
#   vmlinux-$KVER       ELF kernel extracted once from /boot/vmlinuz-$KVER
#                       (booting it under TCG skips the self-decompression).
#   PROJECT_OUT         $STAGE/ddsm packed as /ddsm; rebuilt on every call.
#
# Usage: qemu/build-initramfs.sh [PROJECT_OUT]
#   PROJECT_OUT defaults to $BUILD_DIR/qemu/project.cpio.gz; cluster.sh passes
#   a per-run path so parallel runs never race on the same file.
# Env: BUILD_DIR (default <repo>/build), STAGE (default $BUILD_DIR/stage),
#      KVER (default: tools/kver.sh); for a kernel that is not installed
#      (tests/run-debug.sh): MODROOT, the root its modules were installed
#      under (default /), and VMLINUX, the image to boot (the debug
#      kernel's bzImage; default: the ELF extracted from
#      /boot/vmlinuz-$KVER).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
STAGE=${STAGE:-$BUILD_DIR/stage}
KVER=${KVER:-$("$REPO/tools/kver.sh")}
QDIR=$BUILD_DIR/qemu
PROJECT_OUT=${1:-$QDIR/project.cpio.gz}
MODROOT=${MODROOT:-}
MODDIR=$MODROOT/lib/modules/$KVER
MULTIARCH=/usr/lib/x86_64-linux-gnu

# Guest modules we ask for; their dependencies are added by deps_of.
MODULES="crc32_generic virtio_pci virtio_net rdma_rxe ib_uverbs rdma_ucm
	nfit nd_pmem nd_e820 nd_btt libnvdimm dax_pmem device_dax sch_netem"
# Real userspace tools (they must not be shadowed by busybox applet links).
TOOLS="bash ip rdma ibv_devices ibv_devinfo ibv_rc_pingpong rping
	ib_send_lat ib_send_bw ib_read_lat ib_write_lat ib_write_bw ndctl tc"

log() { echo "build-initramfs: $*" >&2; }
mkdir -p "$QDIR"

# pack DIR OUT: newc cpio of DIR, gzip'd, written atomically (tmp + mv).
pack() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -6 >"$2.tmp.$$"
	mv -f "$2.tmp.$$" "$2"
}

# ---- kernel: extract the ELF vmlinux once --------------------------------
# The bzImage embeds a compressed ELF; find the payload's magic, decompress
# from there and keep the first result that is an ELF.
extract_vmlinux() {
	local img=/boot/vmlinuz-$KVER out=$QDIR/vmlinux-$KVER tmp
	if [ -n "${VMLINUX:-}" ]; then
		[ "$VMLINUX" -nt "$out" ] && cp -f "$VMLINUX" "$out"
		return 0
	fi
	[ -s "$out" ] && return 0
	tmp=$out.tmp.$$
	try() { # try MAGIC DECOMPRESSOR...
		local magic=$1 off
		shift
		for off in $(LC_ALL=C grep -obUaP "$magic" "$img" | cut -d: -f1); do
			tail -c +"$((off + 1))" "$img" | "$@" >"$tmp" 2>/dev/null || true
			if [ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
				mv -f "$tmp" "$out"
				return 0
			fi
		done
		return 1
	}
	try '\xfd7zXZ\x00' xz -dc || try '\x28\xb5\x2f\xfd' zstd -dc ||
		try '\x1f\x8b\x08' gzip -dc || {
		rm -f "$tmp"
		log "could not extract vmlinux; cluster.sh will boot the bzImage"
		return 0
	}
	log "extracted $out"
}

# ---- base layer -----------------------------------------------------------
# deps_of MOD: MOD and its dependencies, recursively (builtins print nothing).
deps_of() {
	local m=$1 d
	case " $SEEN " in *" $m "*) return ;; esac
	SEEN="$SEEN $m"
	for d in $(modinfo -b "${MODROOT:-/}" -k "$KVER" -F depends "$m" 2>/dev/null | tr ',' ' '); do
		deps_of "$d"
	done
	modinfo -b "${MODROOT:-/}" -k "$KVER" -n "$m" 2>/dev/null | grep '^/' || true
}

# copy_bin FILE: FILE and the shared libraries it needs, at the same paths.
copy_bin() {
	local f
	for f in "$1" $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$ROOT$f" ] && continue
		mkdir -p "$ROOT$(dirname "$f")"
		cp -L "$f" "$ROOT$f"
	done
}

build_base() {
	local m f a
	ROOT=$(mktemp -d "$QDIR/base-root.XXXXXX")
	trap 'rm -rf "$ROOT"' EXIT
	# Merged-/usr layout like the host, so ldd paths and the verbs provider
	# path compiled into libibverbs work unchanged.
	mkdir -p "$ROOT"/{usr/bin,usr/lib64,usr/lib/x86_64-linux-gnu,etc,proc,sys,dev,tmp,run,root,ddsm}
	ln -s usr/bin "$ROOT/bin"
	ln -s usr/bin "$ROOT/sbin"
	ln -s bin "$ROOT/usr/sbin"
	ln -s usr/lib "$ROOT/lib"
	ln -s usr/lib64 "$ROOT/lib64"

	for m in $TOOLS; do
		f=$(command -v "$m") || { log "missing host tool $m"; exit 1; }
		copy_bin "$(readlink -f "$f")"
		[ -e "$ROOT/usr/bin/$m" ] || cp -L "$f" "$ROOT/usr/bin/$m"
	done
	copy_bin "$MULTIARCH/libibverbs/librxe-rdmav34.so"
	copy_bin "$MULTIARCH/libgcc_s.so.1"
	mkdir -p "$ROOT/etc/libibverbs.d"
	cp /etc/libibverbs.d/rxe.driver "$ROOT/etc/libibverbs.d/"

	# busybox applets for everything we did not install for real.
	cp /bin/busybox "$ROOT/usr/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ -e "$ROOT/usr/bin/$a" ] || ln -s busybox "$ROOT/usr/bin/$a"
	done

	SEEN=
	for f in $(for m in $MODULES; do deps_of "$m"; done | sort -u); do
		a=${f#"$MODROOT"}	# where the guest finds it
		mkdir -p "$ROOT$(dirname "$a")"
		cp "$f" "$ROOT$a"
	done
	mkdir -p "$ROOT/lib/modules/$KVER"
	cp "$MODDIR"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$KVER/"
	depmod -b "$ROOT" "$KVER"

	cp "$HERE/guest/init" "$ROOT/init"
	chmod 755 "$ROOT/init"
	echo "root:x:0:0:root:/root:/bin/bash" >"$ROOT/etc/passwd"
	echo "root:x:0:" >"$ROOT/etc/group"
	pack "$ROOT" "$BASE"
	rm -rf "$ROOT"
	trap - EXIT
	log "built $BASE ($(du -h "$BASE" | cut -f1))"
}

BASE=$QDIR/base-$KVER.cpio.gz
STAMP=$QDIR/base-$KVER.stamp
key=$( (echo "$KVER"; cat "$0" "$HERE"/guest/*) | sha256sum | cut -d' ' -f1)
# flock: two runs starting together must not build the base layer twice.
exec 9>"$QDIR/.build.lock"
flock 9
extract_vmlinux
if [ ! -s "$BASE" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$key" ]; then
	build_base
	echo "$key" >"$STAMP"
fi
flock -u 9

# ---- project layer: $STAGE/ddsm -> /ddsm ----------------------------------
P=$(mktemp -d "$QDIR/project-root.XXXXXX")
if [ -d "$STAGE/ddsm" ]; then
	cp -a "$STAGE/ddsm" "$P/ddsm"
else
	log "warning: $STAGE/ddsm missing (run 'make stage'); /ddsm will be empty"
	mkdir "$P/ddsm"
fi
pack "$P" "$PROJECT_OUT"
rm -rf "$P"

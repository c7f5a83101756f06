#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug guest kernel that `make check-debug` boots: Debian's own
# linux-source (nothing downloaded), x86_64 defconfig plus what the guests
# need built in (virtio, soft-RoCE, netem, HMAC-SHA256, tracepoints) and
# the checkers the issue asks for: lockdep (PROVE_LOCKING), KASAN,
# DEBUG_ATOMIC_SLEEP and the hung-task detector.
#
# It lives outside the checkout because it takes ~30-60 min on 2 cores and
# does not change with ddsm:
#   $DDSM_CACHE/debug-kernel/linux-<ver>/   the configured, built tree (KDIR;
#                                           arch/x86/boot/bzImage is booted)
#   $DDSM_CACHE/debug-kernel/mods/          modules_install root (MODROOT)
#   $DDSM_CACHE/debug-kernel/release        its `make kernelrelease`
# DDSM_CACHE defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/ddsm.  A finished
# build is reused until this script changes (stamp of its own hash).
#
# Usage: qemu/build-debug-kernel.sh        (prints the tree's path at the end)
# Env:   DDSM_CACHE, KSRC_TAR (default: newest /usr/src/linux-source-*.tar.xz),
#        JOBS (default: nproc).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${DDSM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ddsm}/debug-kernel
KSRC_TAR=${KSRC_TAR:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)}
JOBS=${JOBS:-$(nproc)}

log() { echo "build-debug-kernel: $*" >&2; }

[ -r "$KSRC_TAR" ] || { log "no linux-source tarball: apt-get install linux-source"; exit 1; }
base=$(basename "$KSRC_TAR" .tar.xz)
TREE=$CACHE/$base
key=$( (basename "$KSRC_TAR"; cat "$0") | sha256sum | cut -d' ' -f1)
if [ -s "$CACHE/release" ] && [ "$(cat "$CACHE/stamp" 2>/dev/null)" = "$key" ]; then
	log "cached: $TREE ($(cat "$CACHE/release"))"
	echo "$TREE"
	exit 0
fi

mkdir -p "$CACHE"
rm -f "$CACHE/stamp" "$CACHE/release"
if [ ! -f "$TREE/Makefile" ]; then
	log "extracting $KSRC_TAR"
	tar -C "$CACHE" -xf "$KSRC_TAR"
fi
cd "$TREE"

make -s x86_64_defconfig
make -s kvm_guest.config
c() { scripts/config "$@"; }
c --set-str LOCALVERSION "-ddsm-debug" --disable LOCALVERSION_AUTO
# What the guests load as modules from Debian's kernel, built in here.
c --enable MODULES --enable MODULE_UNLOAD --enable VIRTIO_PCI --enable VIRTIO_NET
c --enable INFINIBAND --enable INFINIBAND_USER_ACCESS --enable RDMA_RXE
c --enable NET_SCHED --enable NET_SCH_NETEM
# pmem= (issue 12): QEMU's NVDIMMs (NFIT), fsdax namespaces, memmap=.
c --enable MEMORY_HOTPLUG --enable MEMORY_HOTREMOVE --enable ZONE_DEVICE \
	--enable LIBNVDIMM --enable BLK_DEV_PMEM --enable ND_PFN \
	--enable ACPI_NFIT --enable X86_PMEM_LEGACY --enable DAX --enable FS_DAX
c --enable CRYPTO_HMAC --enable CRYPTO_SHA256 --enable CRYPTO_CRC32C \
	--enable CRYPTO_CRC32 --enable LIBCRC32C
# ddsm's tracepoints (load.sh reads them on a failure).
c --enable FTRACE --enable ENABLE_DEFAULT_TRACERS --enable DYNAMIC_DEBUG
# The checkers.
c --enable DEBUG_KERNEL --enable PROVE_LOCKING --enable DEBUG_ATOMIC_SLEEP \
	--enable DETECT_HUNG_TASK --set-val DEFAULT_HUNG_TASK_TIMEOUT 60 \
	--enable KASAN --enable KASAN_GENERIC --enable KASAN_INLINE \
	--enable DEBUG_LIST --enable SOFTLOCKUP_DETECTOR
# Faster to build, smaller: no debug info (reports are symbolised by kallsyms).
c --enable DEBUG_INFO_NONE --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
	--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5
make -s olddefconfig
for o in PROVE_LOCKING KASAN DEBUG_ATOMIC_SLEEP DETECT_HUNG_TASK RDMA_RXE \
	INFINIBAND_USER_ACCESS NET_SCH_NETEM CRYPTO_HMAC FS_DAX BLK_DEV_PMEM \
	ACPI_NFIT; do
	grep -q "^CONFIG_$o=y" .config || { log "CONFIG_$o did not stick"; exit 1; }
done

log "building in $TREE with $JOBS jobs"
# The bzImage is booted: the ELF vmlinux of this config did not boot
# through QEMU's PVH entry (no output at all), the bzImage does.
make -s -j"$JOBS" bzImage modules
rm -rf "$CACHE/mods"
make -s INSTALL_MOD_PATH="$CACHE/mods" modules_install
make -s kernelrelease >"$CACHE/release"
echo "$key" >"$CACHE/stamp"
log "built $(cat "$CACHE/release")"
echo "$TREE"

#!/bin/bash
# Install what building, booting and testing ddsm needs, from Debian's
# mirror only, without recommended packages (qemu-system-x86 alone would
# bring GUI libraries).  Idempotent: packages already present are not
# touched, so a second run costs one dpkg query.  On a minimal Debian 12
# this is about 400 MB of downloads and 1.3 GB on disk (README).
set -euo pipefail

pkgs=(
	build-essential make gcc pkg-config bc bison flex libelf-dev libssl-dev
	python3 xz-utils cpio kmod iproute2 busybox-static bash
	procps		# pgrep: tests/run.sh gives the host lane back its priority
	qemu-system-x86 qemu-utils
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	rdma-core ibverbs-utils rdmacm-utils perftest ndctl
	librdmacm-dev libibverbs-dev	# tests/vm: ddsm-spoof-connect
	sparse
	dkms lintian man-db
	graphviz	# make docs-img: the picture in docs/design.md
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all ${#pkgs[@]} packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: need root to install: ${missing[*]}" >&2
	exit 1
fi

echo "setup: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: done"

#!/bin/bash
# Print the Debian kernel version that ddsm builds against and boots in QEMU:
# the newest /usr/src/linux-headers-*-amd64 that also has /boot/vmlinuz-*.
# Override with KVER=... in the environment.
set -euo pipefail
if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi
best=
for d in /usr/src/linux-headers-*-amd64; do
	[ -d "$d" ] || continue
	v=${d#/usr/src/linux-headers-}
	[ -e "/boot/vmlinuz-$v" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$best" ]; then
	echo "kver.sh: no linux-headers-*-amd64 with a matching /boot/vmlinuz-*; run tools/setup-host.sh" >&2
	exit 1
fi
echo "$best"

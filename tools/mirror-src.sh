#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/mirror-src.sh SRC DEST: make DEST hold the module's sources as SRC
# has them (Kbuild, every .c/.h of kernel/ and include/), for a second
# out-of-tree build with another configuration (the self-test build,
# top Makefile).  Only files that differ are copied, so Kbuild in DEST
# rebuilds only what changed; files gone from SRC go from DEST too.
set -euo pipefail
src=$1
dest=$2
mkdir -p "$dest"
cd "$src"
declare -A want=()
while IFS= read -r -d '' f; do
	want[$f]=1
	mkdir -p "$dest/$(dirname "$f")"
	cmp -s "$f" "$dest/$f" || cp "$f" "$dest/$f"
done < <(find Kbuild kernel include -type f \( -name Kbuild -o -name '*.[ch]' \) -print0)
cd "$dest"
while IFS= read -r -d '' f; do
	[[ -n ${want[$f]:-} ]] || rm -f "$f" "${f%.c}.o"
done < <(find kernel include -type f -name '*.[ch]' -print0)

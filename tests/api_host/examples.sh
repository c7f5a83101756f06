#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The C examples of the documentation, as programs.  Every ```c block of
# README.md and docs/*.md is a complete program, announced by the line
#     <!-- example NAME: COMMAND -->
# just before it (COMMAND: how to run it on every node of the cluster,
# from the directory holding it); ```c excerpt blocks quote code and are
# skipped.  A block without the line, or a NAME used twice, is an error.
#
#   examples.sh extract OUTDIR FILE...   OUTDIR/NAME.c and OUTDIR/manifest
#                                        (NAME, COMMAND, FILE:LINE a line)
#   examples.sh build OUTDIR             OUTDIR/NAME, static, against the
#                                        tree's libddsm (as the guests need)
# Exit 0 iff every step worked; messages name the file and line.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

extract() {
	local out=$1
	shift
	mkdir -p "$out"
	rm -f "$out"/*.c "$out/manifest"
	awk -v out="$out" '
	FNR == 1 { marker = ""; mline = 0 }
	/^<!-- example [a-z0-9_-]+: .* -->$/ {
		marker = $0; mline = FNR
		sub(/^<!-- example /, "", marker); sub(/ -->$/, "", marker)
		next
	}
	/^```c$/ {
		if (!marker || FNR != mline + 1) {
			printf "%s:%d: a C block without an <!-- example NAME: COMMAND --> line before it\n", FILENAME, FNR > "/dev/stderr"
			bad = 1; skip = 1; next
		}
		name = marker; sub(/:.*/, "", name)
		cmd = marker; sub(/^[^:]*: /, "", cmd)
		if (name in seen) {
			printf "%s:%d: example %s already defined at %s\n", FILENAME, FNR, name, seen[name] > "/dev/stderr"
			bad = 1
		}
		seen[name] = FILENAME ":" FNR
		file = out "/" name ".c"; in_c = 1; marker = ""
		printf "%s\t%s\t%s:%d\n", name, cmd, FILENAME, FNR >> (out "/manifest")
		next
	}
	/^```/ && in_c { in_c = 0; close(file); next }
	/^```/ && skip { skip = 0; next }
	in_c { print > file; next }
	{ if (FNR != mline) marker = "" }
	END { exit bad }
	' "$@"
}

build() {
	local out=$1 name cmd where bad=0
	make -s -C "$ROOT/userlib" libddsm.a >/dev/null || return 1
	while IFS=$'\t' read -r name cmd where; do
		if ! ${CC:-gcc} -std=gnu11 -O2 -Wall -Wextra -Werror \
			-I"$ROOT/userlib" -I"$ROOT/include/uapi" -static \
			-o "$out/$name" "$out/$name.c" "$ROOT/userlib/libddsm.a" \
			2>"$out/$name.err"; then
			echo "$where: example $name does not build:" >&2
			sed 's/^/    /' "$out/$name.err" >&2
			bad=1
		fi
	done <"$out/manifest"
	return $bad
}

case ${1:-} in
extract) shift; extract "$@" ;;
build) build "$2" ;;
*) echo "usage: examples.sh extract OUTDIR FILE... | build OUTDIR" >&2; exit 2 ;;
esac

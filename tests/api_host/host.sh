#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The api_host component (issue 38), on the host, writing only under
# $BUILD_DIR/api_host: the documentation against the code
# (docs_code.py: the module's parameters in every document with their
# defaults and limits, docs/api.md's errno table per ioctl, versions),
# every C example of README.md and docs/ extracted and built
# (examples.sh; tests/vm/api runs them), the fuzzer's errno tables
# generated from docs/api.md (errno-table.sh), and ddsmctl's bash
# completion.  Each of those checks is then fed a planted mismatch, in a
# copy of the documents, and must catch it: a test that cannot fail
# proves nothing.
#
#   BUILD_DIR=... bash tests/api_host/host.sh    (after make, for tools/ddsmctl)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/api_host
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
W=$BUILD_DIR/api_host
CTL=$ROOT/tools/ddsmctl
TAP_WHO=api_host
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib/tap.sh"
quote() { sed 's/^/#   /'; }

rm -rf "$W"
mkdir -p "$W"
if [ ! -x "$CTL" ]; then
	make -s -C "$ROOT/tools" >"$W/make.log" 2>&1 || { nok "ddsmctl builds"; quote <"$W/make.log"; exit 1; }
fi

# --- docs against code ----------------------------------------------------
python3 "$HERE/docs_code.py" --root "$ROOT" --ddsmctl "$CTL" || failed=1

# --- the examples -----------------------------------------------------------
ex=$W/examples
if bash "$HERE/examples.sh" extract "$ex" "$ROOT/README.md" "$ROOT"/docs/*.md 2>"$W/extract.err"; then
	ok "every C block of README.md and docs/ is an announced example ($(wc -l <"$ex/manifest"): $(cut -f1 "$ex/manifest" | tr '\n' ' '))"
else
	nok "every C block of README.md and docs/ is an announced example"
	quote <"$W/extract.err"
fi
if bash "$HERE/examples.sh" build "$ex" 2>"$W/build.err"; then
	ok "every example builds with -Wall -Wextra -Werror against the tree's libddsm"
else
	nok "every example builds with -Wall -Wextra -Werror against the tree's libddsm"
	quote <"$W/build.err"
fi

# --- the fuzzer's tables ------------------------------------------------------
if bash "$HERE/errno-table.sh" "$ROOT/docs/api.md" >"$W/doc_errnos.h" 2>"$W/table.err" &&
	n=$(grep -c '{ "DDSM_IOC_' "$W/doc_errnos.h") &&
	[ "$n" -eq "$(grep -c '^#define DDSM_IOC_[A-Z_]*[[:space:]]*_IO' "$ROOT/include/uapi/linux/ddsm.h")" ] &&
	printf '#include "doc_errnos.h"\nint main(void) { return !doc_ioctl_errnos[1].err[0]; }\n' >"$W/t.c" &&
	gcc -Wall -Werror -I"$W" -I"$ROOT/include/uapi" -o "$W/t" "$W/t.c" && "$W/t"; then
	ok "the fuzzer's errno tables come from docs/api.md: one per ioctl ($n) and system call, and compile"
else
	nok "the fuzzer's errno tables come from docs/api.md and compile"
	quote <"$W/table.err"
fi

# --- bash completion ------------------------------------------------------------
comp=$ROOT/tools/packaging/ddsmctl.bash-completion
check_comp() { if bash -c "$1"; then ok "$2"; else nok "$2"; fi; }
check_comp "bash -n '$comp'" "bash completion: syntax"
# complete WORD...: what the completion offers after them.
cat >"$W/complete.sh" <<EOS
PATH=$(dirname "$CTL"):\$PATH
. '$comp'
complete_() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _ddsmctl; echo "\${COMPREPLY[*]}"; }
EOS
offers() { bash -c ". '$W/complete.sh'; complete_ $1"; }
want=$( { "$CTL" help --list; "$CTL" help --aliases; } | cut -d' ' -f1 | sort -u | tr '\n' ' ')
got=$(offers "ddsmctl ''" | tr ' ' '\n' | grep -v '^help$' | sort -u | tr '\n' ' ')
check_comp "[ '$got' = '$want' ]" "bash completion: the objects and old verbs of ddsmctl help --list"
check_comp "[ \"\$(bash -c \". '$W/complete.sh'; complete_ ddsmctl peer ''\")\" = 'show help --help' ]" \
	"bash completion: ddsmctl peer <TAB> offers show"
check_comp "[ \"\$(bash -c \". '$W/complete.sh'; complete_ ddsmctl -j tx s\")\" = 'stats' ]" \
	"bash completion: after -j, ddsmctl tx s<TAB> offers stats"
check_comp "[ \"\$(bash -c \". '$W/complete.sh'; complete_ ddsmctl region set 0 4K s\")\" = 'sync strict scope' ]" \
	"bash completion: region set GADDR LEN s<TAB> offers the models"
check_comp "bash -c \". '$W/complete.sh'; complete_ ddsmctl cluster wait --\" | grep -qw -- --timeout" \
	"bash completion: cluster wait --<TAB> offers --timeout"

# --- planted mismatches: each check above must catch one ------------------------
# plant NAME FILE SED-EXPRESSION: a copy of the documents with FILE edited.
plant() {
	local d=$W/planted/$1
	mkdir -p "$d/docs" "$d/tools/packaging"
	cp "$ROOT/README.md" "$d/"
	cp -r "$ROOT/docs/." "$d/docs/"
	cp "$ROOT/tools/packaging/modprobe-ddsm.conf" "$d/tools/packaging/"
	sed -i "$3" "$d/$2"
	if cmp -s "$d/$2" "$ROOT/$2"; then
		nok "planted mismatch $1: the edit changed nothing in $2"
		return 1
	fi
	echo "$d"
}
# caught NAME WHAT PATTERN CMD...: CMD must fail and print PATTERN.
caught() {
	local name=$1 what=$2 pat=$3 out
	shift 3
	if out=$("$@" 2>&1); then
		nok "planted mismatch ($what) not caught: $name passed"
	elif line=$(grep -m1 -E "$pat" <<<"$out"); then
		ok "planted mismatch ($what) caught by $name: ${line#not ok - }"
	else
		nok "planted mismatch ($what): $name failed, but not on it"
		echo "$out" | grep -E '^not ok|error' | head -n 5 | quote
	fi
}
docs() { python3 "$HERE/docs_code.py" --root "$ROOT" --ddsmctl "$CTL" --docs "$1"; }
d=$(plant readme-default README.md 's/^| `grace_us` | `200` |/| `grace_us` | `250` |/') &&
	caught docs_code.py "README.md says grace_us defaults to 250, the module 200" \
		'^not ok - docs: grace_us: default 200 .*README.md says .250.' docs "$d"
d=$(plant man-missing docs/man/ddsm.4 '/^\.B tx_validate_defer_us=/,/^\.TP/{/^\.TP/!d}') &&
	caught docs_code.py "ddsm(4) without tx_validate_defer_us" \
		'^not ok - docs: ddsm\(4\) documents all .*missing: tx_validate_defer_us' docs "$d"
d=$(plant modprobe-limits tools/packaging/modprobe-ddsm.conf 's/limits 100\.\.3600000/limits 100..36000/') &&
	caught docs_code.py "modprobe-ddsm.conf gives fault_timeout_ms a limit of 36000" \
		'^not ok - docs: fault_timeout_ms: one set of limits' docs "$d"
d=$(plant errno-table docs/api.md '/^#### `DDSM_IOC_TX_ABORT`/,/^#### `DDSM_IOC_TX_STATUS`/{/^#### `DDSM_IOC_TX_STATUS`/!d}') &&
	caught docs_code.py "docs/api.md without DDSM_IOC_TX_ABORT's table" \
		'^not ok - docs: docs/api.md has an errno table for each .*missing: DDSM_IOC_TX_ABORT' docs "$d"
d=$(plant errno-test docs/api.md 's/^| `EAGAIN` | every transaction slot of the node (64) is taken | ddsm-test-errnos |/| `EAGAIN` | every transaction slot of the node (64) is taken | ddsm-test-nosuch |/') &&
	caught docs_code.py "an errno row naming a test that does not exist" \
		'^not ok - docs: errno DDSM_IOC_TX_BEGIN EAGAIN: .*no such test' docs "$d"
d=$(plant example-build README.md '0,/PROT_READ | PROT_WRITE/s//PROT_READ | PROT_WRTIE/') &&
	caught examples.sh "README.md's first example misspells PROT_WRITE" \
		'README.md:[0-9]+: example hello does not build' \
		bash -c "bash '$HERE/examples.sh' extract '$d/ex' '$d/README.md' && bash '$HERE/examples.sh' build '$d/ex'"
d=$(plant example-marker docs/api.md '/^<!-- example counter: /d') &&
	caught examples.sh "a C block of docs/api.md without its example line" \
		'api.md:[0-9]+: a C block without' bash "$HERE/examples.sh" extract "$d/ex" "$d/docs/api.md"
tap_exit

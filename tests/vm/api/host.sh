#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The api component (issue 38): the outside of ddsm against a live module
# on 3 VMs with pmem (tests/vm/api/guest.sh, staged by make stage as
# /ddsm/tests/api/guest.sh, says what runs there).  Here, before: the
# stage of make stage plus what the guest needs under /ddsm/api, all
# built into $BUILD_DIR/api: every C example of README.md and docs/
# (tests/api_host/examples.sh), the parameters as the docs give them
# (docs_code.py --emit-params), the earlier ABIs' ioctl sizes program,
# and a program built against ABI 11's libddsm.h and linked against ABI
# 11's libddsm.so.1, both taken from git (1bb8847).  After:
# every JSON document the guests printed goes through a JSON parser, and
# every row of docs/api.md's errno tables must have been provoked.
#
#   BUILD_DIR=... bash tests/vm/api/host.sh      (after make stage)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/tests/vm/api
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
STAGE=${STAGE:-$BUILD_DIR/stage}
ABI11=${API_ABI11:-1bb8847}
W=$BUILD_DIR/api
S=$W/stage/ddsm/api
TAP_WHO=api
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
quote() { sed 's/^/#   /'; }

rm -rf "$W"
mkdir -p "$S/abi/old/linux" "$S/examples"
if [ ! -d "$STAGE/ddsm" ]; then
	nok "the stage of make stage is at $STAGE"
	exit 1
fi
cp -a "$STAGE/ddsm/." "$W/stage/ddsm/"

# The docs' examples, built as the guests run them.
if bash "$ROOT/tests/api_host/examples.sh" extract "$S/examples" \
	"$ROOT/README.md" "$ROOT"/docs/*.md 2>"$W/examples.err" &&
	bash "$ROOT/tests/api_host/examples.sh" build "$S/examples" 2>>"$W/examples.err"; then
	ok "$(wc -l <"$S/examples/manifest") examples of the docs built for the guests"
else
	nok "the examples of the docs build"
	quote <"$W/examples.err"
fi
if ! python3 "$ROOT/tests/api_host/docs_code.py" --emit-params "$S/params" >"$W/docs.log"; then
	: # its failures are the api_host component's to report
fi
check_built() { if [ -s "$2" ]; then ok "$1"; else nok "$1"; quote <"$W/build.err"; fi; }
gcc -O2 -Wall -I"$ROOT/include/uapi" -static -o "$S/abi/abi-sizes" "$HERE/abi-sizes.c" 2>"$W/build.err"
check_built "abi-sizes built" "$S/abi/abi-sizes"

# ABI 11: its header, uapi and library from git; the program built
# against them and linked against that library, as an application of
# then would have been.
old=$S/abi/old
if git -C "$ROOT" show "$ABI11:userlib/libddsm.h" >"$old/libddsm.h" 2>"$W/build.err" &&
	git -C "$ROOT" show "$ABI11:include/uapi/linux/ddsm.h" >"$old/linux/ddsm.h" 2>>"$W/build.err" &&
	git -C "$ROOT" show "$ABI11:userlib/libddsm.c" >"$W/libddsm-abi11.c" 2>>"$W/build.err" &&
	gcc -O2 -fPIC -shared -I"$old" -Wl,-soname,libddsm.so.1 -o "$old/libddsm.so.1" \
		"$W/libddsm-abi11.c" 2>>"$W/build.err" && ln -sf libddsm.so.1 "$old/libddsm.so" &&
	gcc -O2 -Wall -I"$old" -o "$S/abi/abi-compat" "$HERE/abi-compat.c" \
		-L"$old" -lddsm -ldl 2>>"$W/build.err"; then
	ok "a program built against $ABI11's libddsm.h and linked against its libddsm.so.1"
else
	nok "a program built against $ABI11's libddsm.h and linked against its libddsm.so.1"
	quote <"$W/build.err"
fi
if objdump -T "$S/abi/abi-compat" 2>/dev/null | grep -q 'ddsm_open$' &&
	! objdump -T "$S/abi/abi-compat" | grep -q LIBDDSM; then
	ok "the ABI 11 program's libddsm references carry no symbol version"
else
	nok "the ABI 11 program's libddsm references carry no symbol version"
fi

STAGE=$W/stage bash "$ROOT/qemu/cluster.sh" -n 3 -t "${API_LIMIT:-600}" --name api \
	--pmem 64 --during "bash $HERE/during.sh" -- "bash /ddsm/tests/api/guest.sh"
rc=$?
[ $rc -eq 0 ] || failed=1
log=$BUILD_DIR/qemu/logs/api-latest

# Every JSON document the guests printed parses.
python3 - "$log" <<'PY' || failed=1
import json, re, sys, glob
bad = 0
n = 0
for path in sorted(glob.glob(sys.argv[1] + "/node*.out")):
    node = re.search(r"node(\d+)\.out", path).group(1)
    text = open(path, errors="replace").read().replace("\r", "")
    for name, body in re.findall(r"^### json (\S+) begin\n(.*?)^### json \1 end$", text, re.M | re.S):
        n += 1
        try:
            doc = json.loads(body)
            keys = {"node_show": "node_id", "peer_show": "peers", "peer_show_cluster": "peers",
                    "tx_stats": "commits", "status": "node", "version": "module_abi",
                    "config_keys": "keys", "pmem_show": "enabled"}
            want = keys.get(name)
            good = want is None or want in doc
            if name == "peer_show_cluster":
                good = good and len(doc["peers"]) == 3 and all(
                    p["state"] in ("self", "up") for p in doc["peers"])
            print(("ok" if good else "not ok") +
                  " - api: node%s: ddsmctl -j %s is JSON%s" % (node, name.replace("_", " "),
                  " with %s" % want if want else ""))
            bad |= not good
        except ValueError as e:
            print("not ok - api: node%s: ddsmctl -j %s is JSON (%s)" % (node, name, e))
            bad = 1
if n < 10:
    print("not ok - api: the guests printed %d JSON documents, want at least 10" % n)
    bad = 1
sys.exit(bad)
PY

# Every errno row of docs/api.md was provoked on the cluster.
python3 - "$log" "$ROOT/docs/api.md" <<'PY' || failed=1
import re, sys, glob
text = "".join(open(p, errors="replace").read() for p in glob.glob(sys.argv[1] + "/node*.out"))
api = open(sys.argv[2]).read().split("## Errors, ioctl by ioctl", 1)[1].split("\n## ", 1)[0]
bad = 0
for part in re.split(r"^#### ", api, flags=re.M)[1:]:
    head, _, rest = part.partition("\n")
    ioc = head.strip().strip("`")
    for err, who in re.findall(r"^\| `(E[A-Z0-9]+)` \|[^|]*\| ([^|]*) \|", rest, re.M):
        if who.strip().startswith("none"):
            continue	# no test: the api_host component reports it
        if ioc == "Every ioctl":
            pat = r"^ok - node\d+: errno DDSM_IOC_\w+ %s:" % err
        else:
            pat = r"^ok - node\d+: errno %s %s:" % (ioc, err)
        good = re.search(pat, text, re.M) is not None
        print(("ok" if good else "not ok") + " - api: errno %s %s provoked on the cluster" % (ioc, err))
        bad |= not good
sys.exit(bad)
PY
tap_exit

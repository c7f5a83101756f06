#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Docs against code: what the documentation says about the module's
parameters, its ioctls' errnos and its versions, held to the source.

Parameters: every module_param() under kernel/ (kernel/selftest/ and the
test knobs aside) must appear, with the default of its C initialiser and
with one set of limits, in README.md ("Module parameters"), ddsm(4),
ddsm-cluster.conf(5), tools/packaging/modprobe-ddsm.conf and ddsmctl's
parser (`ddsmctl -j config keys`); none of them may document a parameter
the module lacks.  Whether the module enforces those limits is checked
on a live module by tests/vm/api (--emit-params writes what it loads).

Errnos: docs/api.md has a table for each ioctl of the uapi header, and
every row names a test that exists and mentions that errno ("none" rows
fail: no test provokes them).

Versions: the ABI version and the ioctl count the docs state, and the
man pages' release, against the header and tools/packaging/VERSION.

  docs_code.py [--root DIR] [--docs DIR] [--ddsmctl PATH] [--emit-params FILE]

--docs reads README.md, docs/ and tools/packaging/modprobe-ddsm.conf from
another tree (a copy with a planted mismatch: tests/api_host/host.sh).
TAP lines "ok - docs: ..."; exit 0 iff all ok.
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Knobs of the project's tests, moving to a self-test build: not
# configuration, documented apart (ddsm(4), "Test-only parameters").
TEST_KNOBS = {"tx_validate_delay_ms", "tx_validate_gap_ms", "tx_readv_lag_ms",
              "tx_squash_off", "inject", "pmem_check"}
# Keys of cluster.conf that are ddsmctl's own, not the module's: the wait,
# and the regions `cluster join --config` declares (ioctls, not parameters).
TOOL_KEYS = {"wait_timeout", "region", "tx_region"}

failed = 0


def tap(good, msg):
    global failed
    if not good:
        failed = 1
    print(("ok" if good else "not ok") + " - docs: " + msg)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---- normalisation: one form for "256M", "268435456", "0600", "on" ----

SUFFIX = {"K": 10, "M": 20, "G": 30}


def number(text):
    """A documented number: decimal, 0x, 0-octal, K/M/G suffix; or None."""
    t = text.strip().strip("`")
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)([KMG]?)", t)
    if not m:
        return None
    digits, suf = m.groups()
    if digits.startswith("0x"):
        v = int(digits, 16)
    elif len(digits) > 1 and digits.startswith("0"):
        v = int(digits, 8)
    else:
        v = int(digits)
    return v << SUFFIX.get(suf, 0)


def norm_default(text):
    t = text.strip().strip("`").strip()
    if t.lower() in ("", "none", "empty", "-", '""'):
        return ""
    if t.lower() in ("on", "yes", "true", "y"):
        return 1
    if t.lower() in ("off", "no", "false", "n"):
        return 0
    n = number(t)
    return n if n is not None else t


def norm_limits(text):
    t = text.replace("`", "").strip().rstrip(".")
    low = t.lower()
    if "path" in low:
        return "path"
    if "ipv4" in low:
        return "ipv4-list"
    if low == "any":
        return "any"
    m = re.fullmatch(r"(\S+)\.\.(\S+)", t)
    if m:
        return (number(m.group(1)), number(m.group(2)))
    words = [w for w in re.split(r"\s*(?:\||,|\bor\b)\s*", t) if w]
    if len(words) > 1:
        return frozenset(words)
    return t


def show(v):
    if isinstance(v, tuple):
        return "%s..%s" % v
    if isinstance(v, frozenset):
        return "|".join(sorted(v))
    return repr(v)


# ---- the code ---------------------------------------------------------

def c_value(expr):
    """A C initialiser: numbers, shifts, strings, true/false."""
    e = expr.strip()
    if e.startswith('"'):
        return e.strip('"')
    if e in ("true", "false"):
        return 1 if e == "true" else 0
    e = re.sub(r"(?<=[0-9a-fA-FxX])(ULL|UL|LL|U|L)\b", "", e)
    if not re.fullmatch(r"[0-9a-fA-Fx ()<>*+]+", e):
        return None
    e = re.sub(r"\b0([0-7]+)\b", r"0o\1", e)
    return eval(e, {"__builtins__": {}})  # only digits and operators


def kernel_params(root):
    """name -> (variable, type, perm, file) for every module_param."""
    params = {}
    base = os.path.join(root, "kernel")
    for d, dirs, files in os.walk(base):
        if os.path.relpath(d, base).split(os.sep)[0] == "selftest":
            continue
        for fn in files:
            if not fn.endswith(".c"):
                continue
            path = os.path.join(d, fn)
            src = read(path)
            for m in re.finditer(r"^module_param\((\w+),\s*(\w+),\s*(\w+)\)", src, re.M):
                params[m.group(1)] = (m.group(1), m.group(2), m.group(3), path)
            for m in re.finditer(r"^module_param_cb\((\w+),\s*&\w+,\s*&(\w+),\s*(\w+)\)", src, re.M):
                params[m.group(1)] = (m.group(2), "cb", m.group(3), path)
            for m in re.finditer(r"^module_param_named\((\w+),\s*(\w+),\s*(\w+),\s*(\w+)\)", src, re.M):
                params[m.group(1)] = (m.group(2), m.group(3), m.group(4), path)
    return params


def c_default(root, var):
    """The initialiser of @var at file scope anywhere under kernel/."""
    decl = re.compile(r"^(?:static\s+)?(?:const\s+)?[\w ]+?[\s*]" + re.escape(var) +
                      r"\s*(?:=\s*([^;]+))?;", re.M)
    for d, dirs, files in os.walk(os.path.join(root, "kernel")):
        for fn in files:
            if fn.endswith((".c", ".h")):
                m = decl.search(read(os.path.join(d, fn)))
                if m and not m.group(0).lstrip().startswith("extern"):
                    if m.group(1) is None:
                        return 0 if "char" not in m.group(0) else ""
                    return c_value(m.group(1))
    return None


# ---- the documents ------------------------------------------------------

def readme_params(text):
    sec = text.split("### Module parameters", 1)
    if len(sec) < 2:
        return {}
    out = {}
    for line in sec[1].split("\n### ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"`\w+`", cells[0]):
            out[cells[0].strip("`")] = (cells[1], cells[2])
    return out


def man_entries(text, section_start, section_end):
    """.TP / .B NAME=DEFAULT (or "NAME = DEFAULT") / Limits: X entries."""
    body = text.split(section_start, 1)
    if len(body) < 2:
        return {}
    body = body[1].split(section_end, 1)[0]
    out = {}
    pat = r"^\.TP\n\.B (\w+) ?=(.*)\nLimits: ([^;\n]*?)(?:;|\.$|\. )"
    for m in re.finditer(pat, body, re.M):
        out[m.group(1)] = (m.group(2).strip(), m.group(3))
    return out


def modprobe_params(text):
    out = {}
    comment = []
    for line in text.splitlines():
        m = re.match(r"#options ddsm (\w+)=", line)
        if m:
            c = " ".join(comment)
            d = re.search(r"\(default (.*?), limits (.*?)\)", c)
            out[m.group(1)] = (d.group(1), d.group(2)) if d else ("?", "?")
            comment = []
        elif line.startswith("# "):
            comment.append(line[2:])
        elif not line.strip():
            comment = []
    return out


def parser_params(ddsmctl):
    out = subprocess.run([ddsmctl, "-j", "config", "keys"], capture_output=True,
                         text=True, check=True).stdout
    return {k["name"]: (k["default"], k["limits"]) for k in json.loads(out)["keys"]}


# ---- checks -------------------------------------------------------------

def check_params(root, docs, ddsmctl, emit):
    kp = kernel_params(root)
    user = {n: v for n, v in kp.items() if n not in TEST_KNOBS}
    tap(len(user) > 0, "kernel/: %d module parameters, %d of them user parameters (%s aside)"
        % (len(kp), len(user), ", ".join(sorted(TEST_KNOBS & set(kp)))))
    code = {n: c_default(root, v[0]) for n, v in user.items()}
    missing_init = sorted(n for n, v in code.items() if v is None)
    tap(not missing_init, "every user parameter has a C initialiser the test can read%s"
        % (" (not: %s)" % ", ".join(missing_init) if missing_init else ""))
    sources = {
        "README.md": readme_params(read(os.path.join(docs, "README.md"))),
        "ddsm(4)": man_entries(read(os.path.join(docs, "docs/man/ddsm.4")),
                               ".SH MODULE PARAMETERS", ".SS Test-only"),
        "ddsm-cluster.conf(5)": man_entries(read(os.path.join(docs, "docs/man/ddsm-cluster.conf.5")),
                                            ".SH KEYS", ".SH EXAMPLE"),
        "modprobe-ddsm.conf": modprobe_params(read(os.path.join(docs, "tools/packaging/modprobe-ddsm.conf"))),
        "ddsmctl's parser": parser_params(ddsmctl),
    }
    for name, doc in sources.items():
        extra = TOOL_KEYS if name in ("ddsm-cluster.conf(5)", "ddsmctl's parser") else set()
        miss = sorted(set(user) - set(doc))
        stale = sorted(set(doc) - set(user) - extra)
        tap(not miss, "%s documents all %d user parameters%s" % (name, len(user),
            " (missing: %s)" % " ".join(miss) if miss else ""))
        tap(not stale, "%s documents no parameter the module lacks%s" % (name,
            " (stale: %s)" % " ".join(stale) if stale else ""))
    for n in sorted(user):
        want = code[n]
        bad = []
        for name, doc in sources.items():
            if n in doc and norm_default(doc[n][0]) != want:
                bad.append("%s says %s" % (name, doc[n][0] or "none"))
        tap(not bad, "%s: default %s (%s) everywhere%s" % (n, show(want),
            os.path.relpath(user[n][3], root), ": " + "; ".join(bad) if bad else ""))
        lims = {name: norm_limits(doc[n][1]) for name, doc in sources.items() if n in doc}
        agreed = set(lims.values())
        tap(len(agreed) == 1, "%s: one set of limits in every document%s" % (n,
            ": " + "; ".join("%s %s" % (k, show(v)) for k, v in lims.items()) if len(agreed) != 1
            else " (%s)" % show(next(iter(agreed))) if agreed else ""))
    if emit:
        write_params(emit, user, code, sources["ddsmctl's parser"])


def write_params(path, user, code, parser):
    """For tests/vm/api: NAME KIND DEFAULT LO HI RUNTIME, sysfs forms."""
    with open(path, "w") as f:
        for n in sorted(user):
            var, typ, perm, _ = user[n]
            lim = norm_limits(parser[n][1]) if n in parser else "any"
            d = code[n]
            runtime = "1" if perm == "0644" else "0"
            if typ == "bool":
                kind, dv = "bool", "Y" if d else "N"
            elif typ == "charp":
                kind, dv = ("enum" if isinstance(lim, frozenset) else "str"), (d or "-")
            else:
                kind, dv = "num", str(d)
            if isinstance(lim, tuple):
                lo, hi = lim
            elif isinstance(lim, frozenset):
                lo, hi = ",".join(sorted(lim)), "-"
            else:
                lo, hi = "-", "-"
            f.write("%s %s %s %s %s %s\n" % (n, kind, dv, lo, hi, runtime))


def check_errnos(root, docs):
    uapi = read(os.path.join(root, "include/uapi/linux/ddsm.h"))
    ioctls = re.findall(r"^#define (DDSM_IOC_\w+)\s+_IO", uapi, re.M)
    api = read(os.path.join(docs, "docs/api.md"))
    sec = api.split("## Errors, ioctl by ioctl", 1)
    tap(len(sec) == 2, "docs/api.md has \"Errors, ioctl by ioctl\"")
    if len(sec) < 2:
        return
    body = sec[1].split("\n## ", 1)[0]
    tables = {}
    for part in re.split(r"^#### ", body, flags=re.M)[1:]:
        head, _, rest = part.partition("\n")
        rows = re.findall(r"^\| `(E[A-Z0-9]+)` \|[^|]*\| ([^|]*) \|", rest, re.M)
        tables[head.strip().strip("`")] = rows
    miss = [i for i in ioctls if i not in tables]
    tap(not miss, "docs/api.md has an errno table for each of the %d ioctls of the header%s"
        % (len(ioctls), " (missing: %s)" % " ".join(miss) if miss else ""))
    stale = [t for t in tables if t not in ioctls and t != "Every ioctl"]
    tap(not stale, "docs/api.md has no table for an ioctl the header lacks%s"
        % (" (%s)" % " ".join(stale) if stale else ""))
    m = re.search(r"(\d+) `ioctl\(2\)`s", api)
    tap(m is not None and int(m.group(1)) == len(ioctls),
        "docs/api.md counts %s ioctls; the header defines %d" % (m.group(1) if m else "no", len(ioctls)))
    src = os.path.join(root, "tests/vm")
    for ioc, rows in sorted(tables.items()):
        for err, who in rows:
            tests = [t.strip() for t in who.split(",")]
            if who.strip().startswith("none"):
                tap(False, "errno %s %s: no test provokes it (%s)" % (ioc, err, who.strip()))
                continue
            bad = []
            for t in tests:
                files = [os.path.join(src, "src", t + ".c"), os.path.join(src, t, "guest.sh"),
                         os.path.join(src, t, "host.sh"), os.path.join(src, t + ".sh")]
                found = [f for f in files if os.path.exists(f) and err in read(f)]
                if not found:
                    bad.append(t)
            tap(not bad, "errno %s %s: provoked by %s%s" % (ioc, err, who.strip(),
                " (no such test mentioning %s: %s)" % (err, " ".join(bad)) if bad else ""))


def check_versions(root, docs):
    uapi = read(os.path.join(root, "include/uapi/linux/ddsm.h"))
    abi = re.search(r"#define DDSM_ABI_VERSION\s+(\d+)", uapi).group(1)
    api = read(os.path.join(docs, "docs/api.md"))
    m = re.search(r"`DDSM_ABI_VERSION` \((\d+)\)", api)
    tap(m is not None and m.group(1) == abi,
        "docs/api.md states ABI %s; the header's is %s" % (m.group(1) if m else "none", abi))
    dev4 = read(os.path.join(docs, "docs/man/ddsm.4"))
    m = re.search(r"^\.B DDSM_ABI_VERSION\n\((\d+)\)", dev4, re.M)
    tap(m is not None and m.group(1) == abi,
        "ddsm(4) states ABI %s; the header's is %s" % (m.group(1) if m else "none", abi))
    version = read(os.path.join(root, "tools/packaging/VERSION")).strip()
    man = os.path.join(docs, "docs/man")
    for page in sorted(os.listdir(man)):
        m = re.search(r'^\.TH \S+ \S+ \S+ "ddsm ([^"]+)"', read(os.path.join(man, page)), re.M)
        tap(m is not None and m.group(1) == version, "%s is for ddsm %s (VERSION: %s)"
            % (page, m.group(1) if m else "?", version))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "../..")))
    ap.add_argument("--docs")
    ap.add_argument("--ddsmctl")
    ap.add_argument("--emit-params")
    a = ap.parse_args()
    docs = a.docs or a.root
    ddsmctl = a.ddsmctl or os.path.join(a.root, "tools/ddsmctl")
    check_params(a.root, docs, ddsmctl, a.emit_params)
    check_errnos(a.root, docs)
    check_versions(a.root, docs)
    return failed


if __name__ == "__main__":
    sys.exit(main())

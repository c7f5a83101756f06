#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that kernel/ keeps the shape docs/design.md gives it.

  tools/layout-check.py [--build DIR]... [--root DIR]

From a module build (DIR holds ddsm.mod and the object files Kbuild made;
default: the checkout itself, where `make module` builds), `nm` tells which
global symbols each object defines and which it uses: a file that uses a
symbol another defines calls (or reads) that file.  The strongly connected
components of that graph are the circles of files that call each other;
every one must lie inside a circle this script allows (ALLOWED, below,
justified in docs/design.md, "Layers").

From the sources: no file of kernel/ over MAX_FILE_LINES lines; no
function over MAX_FUNC_LINES lines (from the line that names it to its
closing brace) unless the comment just above it has a line with
MARKER saying why it must be one function; no #include from kernel/
that leaves kernel/ and include/ (tools/ in particular).

Output: TAP-like lines ("ok - layout: ..." / "not ok - layout: ..."),
details as "#" lines.  Exit status 0 iff all ok.  Python 3 standard
library and binutils' nm only.
"""

import argparse
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 800
MAX_FUNC_LINES = 80
MARKER = "one function:"

# Circles of files that may call each other, each with why.  A circle
# found in a build must be one of these or part of one.
ALLOWED = [
    ("the action runner and the holds it starts",
     {"kernel/node/send.c", "kernel/node/hold.c"}),
]


def rel(path, root):
    return os.path.relpath(os.path.abspath(path), root)


def objects(build):
    """The module's object files, from Kbuild's ddsm.mod."""
    mod = os.path.join(build, "ddsm.mod")
    with open(mod) as f:
        objs = f.read().split()
    return [o if os.path.isabs(o) else os.path.join(build, o) for o in objs]


def symbols(obj):
    """(defined, used) global symbols of one object file."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRGSVW":
            defined.add(name)
    return defined, used


def call_graph(build):
    """{source file: {source file it uses: [symbols]}}"""
    build = os.path.abspath(build)
    files = {}
    for obj in objects(build):
        src = os.path.relpath(obj, build)[:-2] + ".c"
        files[src] = symbols(obj)
    owner = {}
    for src, (defined, _) in files.items():
        for s in defined:
            owner[s] = src
    graph = {src: {} for src in files}
    for src, (_, used) in files.items():
        for s in sorted(used):
            dst = owner.get(s)
            if dst and dst != src:
                graph[src].setdefault(dst, []).append(s)
    return graph


def circles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(root):
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def kernel_sources(root):
    for d, _, names in os.walk(os.path.join(root, "kernel")):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                yield rel(os.path.join(d, n), root)


FUNC_START = re.compile(r"^[A-Za-z_][^;]*\b(\w+)\s*\(")
NOT_FUNC = re.compile(r"^(static_assert|DEFINE_|DECLARE_|module_|MODULE_|"
                      r"EXPORT_|TRACE_EVENT|EVENT_CLASS|DEFINE_EVENT|#)")


def long_functions(path):
    """[(name, first line, lines, has marker)] of functions too long."""
    with open(path) as f:
        lines = f.read().split("\n")
    found = []
    i = 0
    while i < len(lines):
        m = FUNC_START.match(lines[i])
        if not m or NOT_FUNC.match(lines[i]) or lines[i].rstrip().endswith(";"):
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j] != "{" and \
                not lines[j].rstrip().endswith((";", "}")) and j - i < 8:
            j += 1
        if j >= len(lines) or lines[j] != "{":
            i += 1
            continue
        k = j
        while k < len(lines) and lines[k] != "}":
            k += 1
        length = k - i + 1
        if length > MAX_FUNC_LINES:
            c = i - 1
            marked = False
            while c >= 0 and re.match(r"^(/\*| \*|//)", lines[c]):
                if MARKER in lines[c]:
                    marked = True
                c -= 1
            found.append((m.group(1), i + 1, length, marked))
        i = k + 1
    return found


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def bad_includes(root, path):
    out = []
    base = os.path.dirname(os.path.join(root, path))
    with open(os.path.join(root, path)) as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = rel(os.path.join(base, m.group(1)), root)
            if not target.startswith(("kernel/", "include/")):
                out.append("%s:%d includes %s" % (path, n, target))
            elif not os.path.exists(os.path.join(root, target)):
                # Found only through an include path: it could be anywhere.
                out.append("%s:%d includes %s, not next to it" %
                           (path, n, m.group(1)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="append",
                    help="module build directory (ddsm.mod, *.o); repeatable")
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    builds = args.build or [root]
    failed = False

    def report(good, what, details=()):
        nonlocal failed
        print("%s - layout: %s" % ("ok" if good else "not ok", what))
        for d in details:
            print("#   " + d)
        failed |= not good

    for build in builds:
        try:
            graph = call_graph(build)
        except (OSError, subprocess.CalledProcessError) as e:
            report(False, "call graph of %s (%s)" % (build, e))
            continue
        found = circles(graph)
        details, bad = [], []
        for comp in found:
            name = next((n for n, s in ALLOWED if set(comp) <= s), None)
            details.append("circle of %d%s: %s" % (
                len(comp), " (allowed: %s)" % name if name else "",
                " ".join(comp)))
            if not name:
                bad.append(comp)
            for a in comp:
                for b in sorted(graph[a]):
                    if b in comp:
                        details.append("  %s -> %s: %s" % (
                            a, b, " ".join(graph[a][b][:4])))
        report(not bad, "no circle of files beyond the allowed one "
               "(%d files in %s)" % (len(graph), rel(build, root)), details)

    sources = list(kernel_sources(root))
    big = []
    for path in sources:
        with open(os.path.join(root, path)) as f:
            n = sum(1 for _ in f)
        if n > MAX_FILE_LINES:
            big.append("%s: %d lines" % (path, n))
    report(not big, "no file of kernel/ over %d lines" % MAX_FILE_LINES, big)

    long_ok, long_bad = [], []
    for path in sources:
        for name, line, length, marked in long_functions(
                os.path.join(root, path)):
            d = "%s:%d %s(): %d lines" % (path, line, name, length)
            (long_ok if marked else long_bad).append(
                d + (" (says why: '%s')" % MARKER if marked else ""))
    report(not long_bad, "no function over %d lines without a '%s' comment"
           % (MAX_FUNC_LINES, MARKER), long_bad + long_ok)

    inc = [b for path in sources for b in bad_includes(root, path)]
    report(not inc, "no #include from kernel/ outside kernel/ and include/",
           inc)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

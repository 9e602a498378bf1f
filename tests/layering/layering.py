"""layering/...: the compiler's folders depend on each other only downwards
(doc/ARCHITECTURE.md §6, doc/backend.md §1). Three tests:

  layering/includes  every `#include "DIR/..."` of a file under src/ names a
                     folder its own folder may use (RULES), and the driver
                     sees the back end only through backend/backend.h;
  layering/calls     the same rules for calls, read from the built objects'
                     symbols (file A -> file B when A uses a name only B
                     defines), and no circle of files in src/ or rt/ has
                     more than 3 files;
  layering/sizes     no file of src/layout, src/schedule or src/backend has
                     more than 1,000 lines.

Run alone: python3 tests/layering/layering.py --srcdir . --builddir build
"""
import collections
import os
import re
import subprocess
import sys

BASE = {"util", "common"}
# folder -> the folders (besides itself) whose headers and functions it may use
RULES = {
    "util": set(),
    "common": {"util"},
    "frontend": BASE,
    "ir": BASE,
    "opt": BASE | {"ir"},
    "layout": {"util"},
    "schedule": {"util", "layout"},
    "tune": {"util", "schedule"},
    "translate": BASE | {"frontend", "ir", "opt", "layout"},
    "backend/core": BASE | {"ir", "layout", "schedule"},
    "backend/lanes": BASE | {"ir", "layout", "schedule", "backend/core"},
    "backend/program": BASE | {"ir", "layout", "schedule", "backend/core", "backend/lanes"},
    "backend/cpu": BASE | {"ir", "layout", "schedule", "backend/core", "backend/lanes",
                           "backend/program"},
    "backend/cuda": BASE | {"ir", "layout", "schedule", "frontend", "backend/core",
                            "backend/program"},
    "backend/mpi": BASE | {"ir", "layout", "schedule", "backend/core", "backend/program",
                           "backend/cpu"},
    "backend": BASE | {"ir", "layout", "schedule", "frontend", "backend/core", "backend/lanes",
                       "backend/program", "backend/cpu", "backend/cuda", "backend/mpi"},
    "driver": BASE | {"frontend", "ir", "opt", "translate", "layout", "schedule", "tune",
               "backend"},
}
# the one back-end header the driver includes
DRIVER_BACKEND = {"backend/backend.h"}
SIZE_LIMIT = 1000
SIZE_DIRS = ("layout", "schedule", "tune", "backend")
MAX_CIRCLE = 3

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(srcdir):
    root = os.path.join(srcdir, "src")
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".re", ".y")):
                p = os.path.join(d, f)
                yield os.path.relpath(p, root), p


def folder(rel):
    return os.path.dirname(rel)


def allowed(src_dir, dst_dir):
    if src_dir == dst_dir:
        return True
    rule = RULES.get(src_dir)
    return rule is not None and dst_dir in rule


def check_includes(srcdir):
    bad = []
    for rel, p in sources(srcdir):
        d = folder(rel)
        if d not in RULES:
            bad.append("%s: folder %s has no layering rule (tests/layering/layering.py)" % (rel, d))
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in INCLUDE_RE.finditer(text):
            inc = m.group(1)
            if "/" not in inc:
                continue  # same folder, or a generated/runtime header
            idir = os.path.dirname(inc)
            if not os.path.exists(os.path.join(srcdir, "src", inc)):
                continue  # a generated header of the build tree
            if not allowed(d, idir):
                bad.append("%s includes %s: %s may not use %s" % (rel, inc, d or "src", idir))
            elif d == "driver" and idir.startswith("backend") and inc not in DRIVER_BACKEND:
                bad.append("%s includes %s: the driver sees the back end only through %s"
                           % (rel, inc, ", ".join(sorted(DRIVER_BACKEND))))
    return bad


def object_graph(builddir, subs=("src", "rt")):
    """file -> the files whose definitions it uses, from nm of the objects."""
    objs = []
    for sub in subs:
        for root, _, files in os.walk(os.path.join(builddir, sub)):
            if "test" in root:
                continue
            for f in files:
                if f.endswith(".o"):
                    objs.append(os.path.join(root, f))
    defs, undefs = {}, collections.defaultdict(set)
    for o in objs:
        out = subprocess.run(["nm", "-P", o], capture_output=True, text=True).stdout
        name = os.path.relpath(o, builddir)[:-2]
        name = re.sub(r"/[A-Za-z0-9_]+-([^/]+)$", r"/\1", name)  # automake's per-target prefix
        for line in out.splitlines():
            p = line.split()
            if len(p) < 2:
                continue
            if p[1] in "TDBRCVW":
                defs.setdefault(p[0], name)
            elif p[1] == "U":
                undefs[name].add(p[0])
    graph = {os.path.relpath(o, builddir)[:-2] for o in objs}
    graph = {re.sub(r"/[A-Za-z0-9_]+-([^/]+)$", r"/\1", n): set() for n in graph}
    for n, us in undefs.items():
        for s in us:
            d = defs.get(s)
            if d and d != n:
                graph[n].add(d)
    return graph


def circles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
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


def check_calls(builddir):
    graph = object_graph(builddir)
    if not any(n.startswith("src/backend/") for n in graph):
        return None  # nothing built
    bad = []
    for a, targets in sorted(graph.items()):
        if not a.startswith("src/"):
            continue
        da = folder(a[len("src/"):])
        for b in sorted(targets):
            if not b.startswith("src/"):
                continue
            db = folder(b[len("src/"):])
            if da in RULES and not allowed(da, db):
                bad.append("%s calls %s: %s may not use %s" % (a, b, da, db))
    for c in circles(graph):
        if len(c) > MAX_CIRCLE:
            bad.append("a circle of %d files (more than %d): %s" % (len(c), MAX_CIRCLE, " ".join(c)))
    return bad


def check_sizes(srcdir):
    bad = []
    for rel, p in sources(srcdir):
        if rel.split("/")[0] not in SIZE_DIRS:
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            n = sum(1 for _ in f)
        if n > SIZE_LIMIT:
            bad.append("src/%s has %d lines (more than %d)" % (rel, n, SIZE_LIMIT))
    return bad


def _result(bad):
    return ("fail", bad) if bad else ("pass", [])


def collect(srcdir, builddir, diderotc):
    del diderotc

    def calls():
        bad = check_calls(builddir)
        if bad is None:
            return "skip", ["no objects of src/backend in %s" % builddir]
        return _result(bad)

    return [("layering/includes", lambda: _result(check_includes(srcdir))),
            ("layering/calls", calls),
            ("layering/sizes", lambda: _result(check_sizes(srcdir)))]


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    a = ap.parse_args()
    failed = 0
    for name, fn in collect(os.path.abspath(a.srcdir), os.path.abspath(a.builddir), None):
        status, details = fn()
        failed += status == "fail"
        print("%s: %s" % (name, status), *details, sep="\n  ")
    sys.exit(1 if failed else 0)

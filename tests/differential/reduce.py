#!/usr/bin/python3
"""reduce.py -- shrink a program on which the two compilers disagree.

    /usr/bin/python3 tests/differential/reduce.py DIR [--double]
        [--ours PATH] [--reference PATH]

DIR holds prog.diderot and its images (a directory left by run.py).  The
reducer removes units of the program text -- a line, or a whole `{ ... }`
block with its header -- and simplifies expressions (a parenthesised
sub-expression replaced by one of its operands, a literal by 0.0 or 1),
greedily, as long as the disagreement keeps its signature:

  * the pair (ours status, original status), where status is ok / reject /
    runfail; and, when both run,
  * at least one output that exists in both and differs by more than
    1e-3·max(1, |value|) (no oracle is needed for that).

Writes DIR/reduced.diderot and prints it.
"""

import argparse
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))

import nrrd  # noqa: E402


def status(comp, d, double):
    from run import sh
    rc, so, se = comp.compile(d, double)
    if rc != 0:
        return "reject", None
    rc, so, se = sh(["./prog"], d, comp.env, 60)
    if rc != 0:
        return "runfail", None
    outs = {}
    for f in os.listdir(d):
        if f.endswith(".nrrd") and not os.path.exists(os.path.join(d, "..", f)):
            try:
                outs[f] = nrrd.read(os.path.join(d, f)).data
            except Exception:  # noqa: BLE001
                pass
    outs["stdout"] = so
    return "ok", outs


def values_differ(a, b):
    for k in a:
        if k not in b:
            continue
        if k == "stdout":
            continue
        x, y = a[k], b[k]
        if len(x) != len(y):
            return True
        # collections: compare as sorted multisets
        for p, q in zip(sorted(x, key=_key), sorted(y, key=_key)):
            if (p != p) != (q != q):
                return True
            if p == p and abs(p - q) > 1e-3 * max(1.0, abs(p)):
                return True
    return False


def _key(v):
    return (v != v, v if v == v else 0)


class Reducer:
    def __init__(self, pdir, ours, ref, double):
        self.pdir = pdir
        self.ours = ours
        self.ref = ref
        self.double = double
        self.work = os.path.join(pdir, "reduce")
        self.tries = 0

    def signature(self, text):
        self.tries += 1
        sig = []
        res = []
        for comp in (self.ours, self.ref):
            d = os.path.join(self.work, comp.name)
            if os.path.exists(d):
                shutil.rmtree(d)
            os.makedirs(d)
            for f in os.listdir(self.pdir):
                if f.endswith(".nrrd"):
                    shutil.copy(os.path.join(self.pdir, f), d)
            with open(os.path.join(d, "prog.diderot"), "w") as f:
                f.write(text)
            st, outs = status(comp, d, self.double)
            sig.append(st)
            res.append(outs)
        if sig == ["ok", "ok"]:
            sig.append(values_differ(res[0], res[1]))
        return tuple(sig)

    def reduce(self, text):
        target = self.signature(text)
        if target == ("ok", "ok", False):
            return text, target
        changed = True
        while changed:
            changed = False
            for cand in self.candidates(text):
                if self.signature(cand) == target:
                    text = cand
                    changed = True
                    break
        return text, target

    def candidates(self, text):
        L = text.split("\n")
        # a declared name together with every line that mentions it
        names = re.findall(r"^\s*(?:input |const |output |function )?[\w\[\]{},#()]+ (\w+)(?: =|\()", text, re.M)
        for name in names:
            if name in ("id", "pos", "S"):
                continue
            keep = [l for l in L if not re.search(r"\b%s\b" % re.escape(name), l)]
            if len(keep) < len(L):
                yield "\n".join(keep)
        units = []
        i = 0
        while i < len(L):
            line = L[i]
            if line.strip().endswith("{") and not line.startswith("strand") and line.strip() != "update {" \
                    and not line.startswith("create") and not line.startswith("initially"):
                depth = 0
                j = i
                while j < len(L):
                    depth += L[j].count("{") - L[j].count("}")
                    if depth <= 0:
                        break
                    j += 1
                units.append((i, j))
            if line.strip() and not line.startswith("#version") and line.strip() not in ("}", "update {") \
                    and not line.startswith("strand") and "create_" not in line and "initially" not in line \
                    and "output int id" not in line and " pos = " not in line:
                units.append((i, i))
            i += 1
        # big units first
        units.sort(key=lambda u: u[0] - u[1])
        for a, b in units:
            if a == b and L[a].rstrip().endswith("{"):
                continue
            if a == b and L[a].strip() == "} else {":
                continue
            yield "\n".join(L[:a] + L[b + 1:])
        # expression simplification: ( X op Y ) -> X or Y
        for m in re.finditer(r"\(([^()]+?) (\+|-|\*|/|•|⊗|×|:) ([^()]+?)\)", text):
            for rep in (m.group(1), m.group(3)):
                yield text[:m.start()] + rep + text[m.end():]
        for m in re.finditer(r"\d+\.\d+", text):
            if m.group(0) not in ("0.0", "1.0"):
                yield text[:m.start()] + "1.0" + text[m.end():]


def reduce_dir(pdir, ours, ref, double=False):
    with open(os.path.join(pdir, "prog.diderot")) as f:
        text = f.read()
    red = Reducer(pdir, ours, ref, double)
    out, sig = red.reduce(text)
    with open(os.path.join(pdir, "reduced.diderot"), "w") as f:
        f.write(out)
    print("reduced %s: %d -> %d lines in %d tries, signature %s"
          % (pdir, text.count("\n"), out.count("\n"), red.tries, sig), flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--double", action="store_true")
    ap.add_argument("--ours", default=os.path.join(HERE, "..", "..", "build", "diderotc"))
    ap.add_argument("--reference", default="/tmp/diderot-ref/diderot/bin/diderotc")
    a = ap.parse_args()
    from run import Compiler, reference_compiler
    out = reduce_dir(a.dir, Compiler("ours", os.path.abspath(a.ours)), reference_compiler(a.reference), a.double)
    print(out)


if __name__ == "__main__":
    main()

"""mutate.py -- type-level differential testing.

A valid generated program is mutated into a (most likely) invalid one:
wrong shapes, raised continuity, keywords of the other dialect, wrong arity,
undeclared names, a real assigned to an int, a missing ';', `die` in an
array program, ...  Both compilers compile the mutant; the verdict compares
accept/reject and the line of the first error ([file:L.C...] Error: in the
original, file:L:C: error: in ours).

    /usr/bin/python3 tests/differential/mutate.py SEED   # show one mutant
"""

import os
import random
import re
import shutil

import known

ERR_OURS = re.compile(r"^prog\.diderot:(\d+):(\d+): error:", re.M)
ERR_REF = re.compile(r"^\[prog\.diderot:(\d+)\.(\d+)[^\]]*\] Error:", re.M)


def _lines_with(lines, pat):
    return [i for i, l in enumerate(lines) if re.search(pat, l)]


def mutants(text, dia, r):
    """Yield (name, mutated text, line number of the mutation or None)."""
    L = text.split("\n")
    out = []

    def sub_line(name, pat, repl, count=1):
        idx = _lines_with(L, pat)
        if idx:
            i = r.choice(idx)
            M = list(L)
            M[i] = re.sub(pat, repl, M[i], count=count)
            if M[i] != L[i]:
                out.append((name, "\n".join(M), i + 1))

    if dia == 2:
        sub_line("dialect: initially in 2.0", r"create_collection", "initially")
        sub_line("dialect: 1.0 image() in 2.0", r"load_image\(", "image(")
        sub_line("dialect: T{n} in 2.0", r"^(real|int|vec\d)\[(\d+)\] ", r"\1{\2} ")
    else:
        sub_line("dialect: create_collection in 1.0", r"^initially \{", "create_collection {")
        sub_line("dialect: load_image in 1.0", r"= image\(", "= load_image(")
        sub_line("dialect: const in 1.0", r"^real gacc", "const real gacc")
        sub_line("dialect: T[n] in 1.0", r"^(real|int|vec\d)\{(\d+)\} ", r"\1[\2] ")
    sub_line("shape: vec2 -> vec3", r"^  (output )?vec2 ", r"  \1vec3 ")
    sub_line("shape: vec3 -> vec2", r"^  (output )?vec3 ", r"  \1vec2 ")
    sub_line("shape: tensor[2,2] -> vec2", r"tensor\[2,2\] ", "vec2 ")
    sub_line("continuity: field#k raised", r"^field#(\d)\(", lambda m: "field#%d(" % (int(m.group(1)) + 5))
    sub_line("continuity: extra derivative", r"∇", "∇∇")
    sub_line("type: real into int", r"step \+= 1;", "step += 1.5;")
    sub_line("type: int state = real", r"^    step \+= 1;", "    step = 0.5;")
    sub_line("type: bool condition from int", r"if \(\(step >= ", "if ((step + ")
    sub_line("arity: normalize/2", r"normalize\(", "normalize(pos, ")
    sub_line("arity: clamp/2", r"clamp\((\(-?[\d.]+\)|[\d.]+), ", "clamp(")
    sub_line("arity: user function", r"(fn\d+)\(", r"\1(1, ")
    sub_line("name: undeclared variable", r"\bacc\b", "acc_undeclared")
    sub_line("name: unknown kernel", r"⊛ (tent|ctmr|bspln3|bspln5|c4hexic)", r"⊛ \1x")
    sub_line("syntax: missing ;", r";\s*$", "")
    sub_line("operator: dot of scalars", r"\(acc \* ", "(acc • ")
    sub_line("operator: cross of vec2 and vec3", r"×", "× [1.0, 2.0, 3.0] ×")
    sub_line("statement: die in update", r"^      stabilize;", "      die;")
    sub_line("statement: stabilize in function", r"^function", "function")  # no-op filter below
    sub_line("index: tensor index out of range", r"\]\[(\d)\]", "][7]")
    sub_line("arity: strand creation", r"\{ S\(i\) \|", "{ S(i, i) |")
    sub_line("scope: global assigned in a method", r"^    step \+= 1;", "    step += 1; gacc = 1.0;")
    sub_line("type: vector condition", r"if \(\(step >= \(1 \+ \(id % \d\)\)\)\)", "if (pos)")
    sub_line("type: probe with the wrong dimension", r"F(\d+)\(pos\)", r"F\1([pos, pos])")
    return [m for m in out if m[1] != text]


def first_error(text, rx):
    m = rx.search(text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def test_mutant(n, g, pdir, ours, ref):
    """-> (verdict, why, ours_result, ref_result)."""
    with open(os.path.join(pdir, "prog.diderot")) as f:
        text = f.read()
    r = random.Random(n * 7919 + 1)
    ms = mutants(text, g.dia, r)
    if not ms:
        return "skip", "no mutation applies", None, None
    name, mtext, line = r.choice(ms)
    res = {}
    for comp in (ours, ref):
        d = os.path.join(pdir, "mut-" + comp.name)
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(d)
        for f in os.listdir(pdir):
            if f.endswith(".nrrd"):
                shutil.copy(os.path.join(pdir, f), d)
        with open(os.path.join(d, "prog.diderot"), "w") as f:
            f.write(mtext)
        rc, so, se = comp.compile(d)
        res[comp.name] = (rc, so + se)
    (rco, to), (rcr, tr) = res["ours"], res["original"]
    eo, er = first_error(to, ERR_OURS), first_error(tr, ERR_REF)
    tag = "%s (line %s)" % (name, line)
    if rco == 0 and rcr == 0:
        return "agree", "both accept: " + tag, None, None
    if rco != 0 and rcr != 0:
        if eo is None:
            return "unexplained", "ours fails without an error message: %s: %s" % (tag, to[-300:]), None, None
        if er is None:
            k = known.original_failure("reject", tr)
            if k:
                return "original-wrong", "%s: original %s, ours error at %d:%d" % (tag, k, eo[0], eo[1]), None, None
            return "unexplained", "%s: original fails without an error position: %s" % (tag, tr.strip()[-300:]), None, None
        if eo[0] == er[0]:
            return "agree", "both reject at line %d: %s" % (eo[0], tag), None, None
        k = (known.position_difference(name, eo, er, to, tr) if er[0] - eo[0] in (0, 1) else None) \
            or (known.late_position(name, line, mtext, tr) if eo[0] - er[0] in (1, 2) else None) \
            or known.exact_position(name, line, eo, tr)
        if k:
            return "open", "%s: ours line %d, original line %d [%s]" % (tag, eo[0], er[0], k), None, None
        return "unexplained", "%s: first error at line %d (ours) vs %d (original)" % (tag, eo[0], er[0]), None, None
    if rco == 0:
        k = known.original_failure("reject", tr) if er is None else known.ours_accepts(name, tr)
        if k:
            # a D entry (doc/differences.md) is a defect of the original
            return "original-wrong" if k.startswith("D") else "open", \
                "%s: ours accepts, original rejects [%s]" % (tag, k), None, None
        return "ours-wrong", "%s: ours accepts, original rejects: %s" % (tag, _err_line(tr)), None, None
    k = known.ours_rejects(name, to)
    if k:  # a D entry: a defect of the original (doc/differences.md); Q: a decision
        return "original-wrong" if k.startswith("D") else "open", \
            "%s: ours rejects, original accepts [%s]" % (tag, k), None, None
    return "unexplained", "%s: ours rejects (%s), original accepts" % (tag, _err_line(to)), None, None


def _err_line(t):
    for l in (t or "").splitlines():
        if "rror" in l:
            return l.strip()[:200]
    return (t or "").strip()[:200]


if __name__ == "__main__":
    import sys
    import gen
    seed = int(sys.argv[1])
    g = gen.Gen(seed).build()
    text = gen.program_text(g)
    for name, m, line in mutants(text, g.dia, random.Random(seed)):
        print("==", name, "line", line)

"""strand_load_sequence: load_sequence in strand code (doc/language.md, sequences):
a 1-D double NRRD read into real[] (converted) and a 2-D float NRRD of
2-vectors, read by every strand's update; a loaded sequence extended and
kept in strand state as a dynamic-sequence output. The oracle is the
program's arithmetic in Python."""

import nrrd

VARIANTS = ["float", "double+long"]


def run(t):
    xs = [1.5, 2.5, -1.0, 4.0, 0.25]
    ps = [[1, 2], [3, 4], [5, 6]]
    t.write_nrrd("xs.nrrd", nrrd.Nrrd("double", [5], xs))
    t.write_nrrd("ps.nrrd", nrrd.Nrrd("float", [2, 3], [c for v in ps for c in v]))
    t.compile()
    t.exec([])
    n = 7
    out = t.layout("s.nrrd", t.real, [n], ["list"])
    t.close("s", out.data, [xs[i % 5] + 3 for i in range(n)])
    out = t.layout("p.nrrd", t.real, [2, n], ["2-vector", "list"])
    t.close("p", out.data, [ps[i % 3] for i in range(n)])
    out = t.layout("kept-len.nrrd", "int", [2, n], ["2-vector", "list"])
    t.equal("kept-len", out.data, [[6 * i, 6] for i in range(n)])
    out = t.layout("kept-data.nrrd", t.real, [6 * n], ["list"])
    t.close("kept-data", out.data, [x for i in range(n) for x in xs + [i]])
    # a file that cannot be read: a run-time error naming it, exit status 1,
    # no output, and nothing after the load runs on an empty sequence (here
    # `i % length(xs)` would divide by zero)
    import os
    os.remove(t.path("xs.nrrd"))
    for f in ("s.nrrd", "p.nrrd", "kept-len.nrrd", "kept-data.nrrd"):
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))
    p = t.exec([], expect_rc=1)
    if "xs.nrrd" not in p.err or "cannot be opened" not in p.err:
        t.fail("missing xs.nrrd: stderr %r does not name the file" % p.err)
    left = [f for f in ("s.nrrd", "p.nrrd", "kept-len.nrrd") if os.path.exists(t.path(f))]
    if left:
        t.fail("missing xs.nrrd: outputs written: %s" % left)

"""sequences: dynamic sequences loaded at run time (doc/language.md §10.6) and
fixed sequences, end to end, in both dialects (2.0 load_sequence; 1.0
load, braces for sequence types and subscripts). Inputs: a 1-D double NRRD
read into real[] (converted), a 2-D float NRRD of 2-vectors, an int[] with
no default (required), an ASCII-encoded replacement file; fixed real[3] and
vec2 inputs set on the command line. Outputs: grid outputs, a dynamic
sequence output (NAME-len.nrrd: (offset, length) pairs, NAME-data.nrrd:
the concatenated elements) and a fixed int[2] (a `list` axis). The oracle
is the program's arithmetic in Python (float rounding where it matters is
inside the tolerance)."""

import os

import nrrd

VARIANTS = ["float", "double+long"]

V1 = """// Diderot 1.0 form of sequences.diderot: load() and T{} types
input real{} xs ("reals") = load("xs.nrrd");
input vec2{} ps ("points") = load("ps.nrrd");
input real{3} w ("weights") = {1.0, 2.0, 3.0};
strand S (int i) {
  output real s = 0.0;
  output vec2 p = [0.0, 0.0];
  update {
    s = xs{i} * w{i % 3} + real(length(ps));
    p = ps{i} + [real(i), 0.0];
    stabilize;
  }
}
initially [ S(i) | i in 0 .. length(xs)-1 ];
"""


def oracle(xs, ps, ks, w, off):
    n = len(xs)
    s = [xs[i] * w[i % 3] + ks[i] for i in range(n)]
    p = [[ps[i][0] + off[0], ps[i][1] + off[1]] for i in range(n)]
    lens = []
    data = []
    for i in range(n):
        lens.append([len(data), i + 1])
        data += xs[:i + 1]
    kk = [[ks[i], len(ps)] for i in range(n)]
    return s, p, lens, data, kk


def check(t, xs, ps, ks, w, off):
    n = len(xs)
    s, p, lens, data, kk = oracle(xs, ps, ks, w, off)
    out = t.layout("s.nrrd", t.real, [n], ["space"])
    t.close("s", out.data, s)
    out = t.layout("p.nrrd", t.real, [2, n], ["2-vector", "space"])
    t.close("p", out.data, p)
    out = t.layout("ys-len.nrrd", "int", [2, n], ["2-vector", "space"])
    t.equal("ys-len", out.data, lens)
    out = t.layout("ys-data.nrrd", t.real, [len(data)], ["list"])
    t.close("ys-data", out.data, data)
    out = t.layout("kk.nrrd", "long long int" if t.long_int else "int", [2, n], ["list", "space"])
    t.equal("kk", out.data, kk)


def run(t):
    xs = [1.5, 2.5, -1.0, 4.0, 0.25]
    ps = [[1, 2], [3, 4], [5, 6], [7, 8], [-1, 0.5], [9, 9]]
    ks = [10, 20, 30, 40, -50]
    t.write_nrrd("xs.nrrd", nrrd.Nrrd("double", [5], xs))
    t.write_nrrd("ps.nrrd", nrrd.Nrrd("float", [2, 6], [c for v in ps for c in v]))
    t.write_nrrd("ks.nrrd", nrrd.Nrrd("int", [5], ks))
    # replacements of other lengths; xs2 is ASCII-encoded (Teem reads it)
    xs2 = [0.5, -2.0, 8.0]
    ps2 = [[0, 1], [2, 3], [4, 5]]
    ks2 = [7, 8, 9]
    t.write_nrrd("xs2.nrrd", nrrd.Nrrd("float", [3], xs2), encoding="ascii")
    t.write_nrrd("ps2.nrrd", nrrd.Nrrd("double", [2, 3], [c for v in ps2 for c in v]))
    t.write_nrrd("ks2.nrrd", nrrd.Nrrd("short", [3], ks2))
    t.write_text("v1.diderot", V1)

    t.compile()
    t.exec(["-ks", "ks.nrrd"])
    check(t, xs, ps, ks, [1.0, 2.0, 3.0], [0.5, -0.5])
    for f in t.files():
        if f.endswith(".nrrd") and f[:2] in ("s.", "p.", "ys", "kk"):
            os.remove(t.path(f))
    t.exec(["-xs", "xs2.nrrd", "-ps", "ps2.nrrd", "-ks", "ks2.nrrd", "-w", "0.5", "-1", "2",
            "-off", "1", "1.25"])
    check(t, xs2, ps2, ks2, [0.5, -1.0, 2.0], [1.0, 1.25])
    # the required input
    p = t.exec([], expect_rc=2)
    if "-ks" not in p.err:
        t.fail("a missing required sequence: the message does not name -ks: %r" % p.err[:200])

    # Diderot 1.0: load()
    t.compile(source=t.path("v1.diderot"), stem="prog1")
    t.exec(["-w", "1", "1", "2", "-o-s", "s1.nrrd", "-o-p", "p1.nrrd"], exe=t.path("prog1"))
    w1 = [1.0, 1.0, 2.0]
    out = t.layout("s1.nrrd", t.real, [5], ["space"])
    t.close("1.0 s", out.data, [xs[i] * w1[i % 3] + len(ps) for i in range(5)])
    out = t.layout("p1.nrrd", t.real, [2, 5], ["2-vector", "space"])
    t.close("1.0 p", out.data, [[ps[i][0] + i, ps[i][1]] for i in range(5)])

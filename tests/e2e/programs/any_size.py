"""any_size: one build, any image (doc/language.md §6.1).

The program is compiled once, against float proxies img.nrrd (10x11,
rotated) and vol.nrrd (6x7x5, rotated); the same executable then runs on
images of other sizes, spacings, origins and orientations (axis-aligned,
rotated and sheared, i.e. non-orthogonal space directions), and of other
sample types:

  * float (the proxy's), and in the double variant double and int
    (--double computes in double, which holds them exactly);
  * unsigned char and short, converted at load (float holds them exactly);
  * refused with a message naming the input, both types and "recompile":
    int and double in the float variant, long long in both;
  * a wrong dimension or voxel shape is still refused, naming the input.

Each good run checks: inside(x, F) (§8.5, with the run-time sizes), value
and gradient of the ctmr field (exact on quadratics, §8.4), tent through
clamp, wrap and mirror (§4.7 index maps with the run-time sizes), size(img),
and for the 3-D vector image inside, value and Jacobian. A library of the
same program (C client any_size_client.c: two worlds at once, images of
different sizes from a Nrrd and by name) is checked the same way.

Oracle: exact polynomial calculus (tests/oracle/polyfield.py); the integer
images hold integer-valued polynomials of the index, composed here with the
exact world-to-index map; border-controlled tent values are computed from
the samples as written, with exact weights."""

import math
import os
import shutil
from fractions import Fraction as Q

import e2elib
import nrrd
from e2elib import check_grid
from polyfield import Grid, Poly, variables, at, grad, D, lattice, border_map

VARIANTS = ["float", "double"]

x, y = variables(2)
X, Y, Z = variables(3)
P = Q(1, 2) - x + Q(3, 4) * y + Q(1, 2) * x * x - Q(5, 4) * x * y + Q(1, 3) * y * y
V = [X * Y - Z / 2 + Q(1, 3), Y * Y / 2 - X * Z - Q(2, 5), Z + X * X / 4 + Q(3, 4)]
# dyadic, and no probe point near a bound of inside() on any grid (margin_ok)
ORG, STEP, COUNTS = [Q(-477, 128), Q(-411, 128)], Q(1, 2), [16, 14]
ORG3, STEP3 = [Q(-187, 128), Q(-315, 256), Q(133, 512)], Q(3, 16)

# the proxies (compile time) and the run-time images
G_PROXY = Grid.centered([10, 11], [Q(1, 2), Q(3, 5)])
GV_PROXY = Grid.centered([6, 7, 5], [Q(1, 2), Q(1, 2), Q(3, 5)])
G_ALIGNED = Grid.aligned([17, 8], [Q(1, 4), Q(1)], [Q(-2), Q(-7, 2)])
G_SHEARED = Grid([23, 19], [[Q(3, 10), Q(-1, 10)], [Q(1, 20), Q(1, 4)]],
                 [Q(-33, 10), Q(-11, 5)])
G_UCHAR = Grid([12, 9], [[Q(1, 2), Q(1, 5)], [Q(-1, 10), Q(3, 5)]], [Q(-5, 2), Q(-2)])
G_SHORT = Grid.rotated([7, 15], [Q(3, 4), Q(2, 5)], [Q(-1), Q(-3)])
G_INT = Grid([9, 10], [[Q(0), Q(-1, 2)], [Q(3, 5), Q(0)]], [Q(2), Q(-3)])
GV_RUN = Grid([9, 5, 8], [[Q(2, 5), Q(1, 10), Q(0)], [Q(0), Q(1, 2), Q(1, 10)],
                          [Q(1, 10), Q(0), Q(7, 20)]], [Q(-2), Q(-3, 2), Q(-1)])


def pts2():
    return lattice(ORG, STEP, COUNTS)


def pts3():
    return [[ORG3[0] + STEP3 * i, ORG3[1] + STEP3 * j, ORG3[2] + STEP3 * (i - j)]
            for j in range(COUNTS[1]) for i in range(COUNTS[0])]


def index_poly(g, f):
    """The world polynomial that is f(i0, i1, ...) at index i of grid g."""
    xs = variables(g.d)
    idx = [sum((g.W[a][c] * (xs[c] - g.origin[c]) for c in range(g.d)), Poly.const(g.d, 0))
           for a in range(g.d)]
    return f(*idx)


def int_image(g, f, type):
    """Grid g sampled with the integer-valued index polynomial f, as `type`."""
    n = g.sample(index_poly(g, f), "double")
    vals = [int(v) for v in n.data]
    assert all(float(v) == w for v, w in zip(vals, n.data))
    return nrrd.Nrrd(type, n.sizes, vals, kinds=n.kinds, space_dim=n.space_dim,
                     space_directions=n.space_directions, space_origin=n.space_origin)


def tent_border(img, g, pt, mode):
    """tent reconstruction through border control, from the samples."""
    p = g.index(pt)
    n = [math.floor(v) for v in p]
    f = [v - k for v, k in zip(p, n)]
    acc = Q(0)
    for t1 in (0, 1):
        for t0 in (0, 1):
            w = (f[0] if t0 else 1 - f[0]) * (f[1] if t1 else 1 - f[1])
            i0 = border_map(mode, n[0] + t0, g.sizes[0])
            i1 = border_map(mode, n[1] + t1, g.sizes[1])
            acc += w * Q(img.data[i0 + g.sizes[0] * i1])
    return acc


def margin_ok(g, pt, s):
    """No probe point within 1e-3 (index units) of the §8.5 bounds, so
    rounding cannot flip inside()."""
    return all(abs(pa - (s - 1)) > Q(1, 1000) and abs(pa - (n - s)) > Q(1, 1000)
               for pa, n in zip(g.index(pt), g.sizes))


def expected(g, img, pw, gv, vw):
    """Output name -> (shape, values) for image img on grid g holding the
    world polynomial pw, and vol on grid gv holding vw."""
    p2, p3 = pts2(), pts3()
    assert all(margin_ok(g, pt, 2) for pt in p2) and all(margin_ok(gv, pt, 2) for pt in p3)
    ins = [g.inside(pt, 2) for pt in p2]
    ins3 = [gv.inside(pt, 2) for pt in p3]
    assert 0 < sum(ins) < len(ins) and 0 < sum(ins3) < len(ins3)
    gp, dv = grad(pw), D(vw)
    z3 = [0] * 3
    return {
        "ins": ([], [1 if i else 0 for i in ins]),
        "v": ([], [at(pw, pt) if i else 0 for pt, i in zip(p2, ins)]),
        "g": ([2], [at(gp, pt) if i else [0, 0] for pt, i in zip(p2, ins)]),
        "cv": ([], [tent_border(img, g, pt, "clamp") for pt in p2]),
        "wv": ([], [tent_border(img, g, pt, "wrap") for pt in p2]),
        "mv": ([], [tent_border(img, g, pt, "mirror") for pt in p2]),
        "ins3": ([], [1 if i else 0 for i in ins3]),
        "vv": ([3], [at(vw, pt) if i else z3 for pt, i in zip(p3, ins3)]),
        "vj": ([3, 3], [at(dv, pt) if i else [z3] * 3 for pt, i in zip(p3, ins3)]),
        "n": ([2], [g.sizes for _ in p2]),
    }


def check_run(t, exp, prefix=""):
    for name, (shp, vals) in exp.items():
        check_grid(t, prefix + name, COUNTS, shp, vals)


def run_lib(t, exps):
    """The library: two worlds at once (w1: the sheared image from a Nrrd,
    w2: the uchar image by name), checked against the same oracle."""
    if t.fake:   # (the harness check: the executable's zero outputs fail already)
        return
    src = os.path.basename(t.program)
    shutil.copyfile(os.path.join(os.path.dirname(t.program), "any_size_client.c"),
                    t.path("client.c"))
    env = dict(os.environ, DIDEROT_RT_DIR=t.builddir)
    env.update(t.env)

    def tool(argv, what):
        r = e2elib.run_killable(argv, t.dir, e2elib.COMPILE_TIMEOUT, env)
        if isinstance(r, str):
            raise e2elib.Abort(r)
        if r[0] != 0:
            for line in r[2].splitlines():
                if e2elib.NOT_YET_RE.search(line):
                    raise e2elib.Skip(line.strip())
            t.failures += ["%s failed (exit %d): %s" % (what, r[0], " ".join(argv))] \
                + e2elib.excerpt(r[2] or r[1])
            raise e2elib.Abort(None)
    # (products named prog*: run_e2e.py compares every other file between modes)
    tool([t.diderotc, "--namespace=Any"] + t.flags() + ["-o", "proglib", src],
         "diderotc (library)")
    cc = (os.environ.get("CC") or "cc").split()
    cflags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + t.dir, '-DLIBH="proglib.h"']
    cflags += os.environ.get("CFLAGS_DIDEROT_EXTRA", "").split()
    tool(cc + cflags + ["client.c", "proglib.o", "-lteem", "-lm", "-o", "progclient"],
         "the C client")
    p = t.exec(["sheared.nrrd", "vol2.nrrd", "uchar.nrrd", "vol2.nrrd"], expect_rc=None,
               exe=t.path("progclient"))
    for line in p.out.splitlines():
        if line.startswith("FAIL"):
            t.fail("library client: " + line)
    if p.rc != 0:
        t.fail("library client: exit status %d" % p.rc)
        raise e2elib.Abort(None)
    for tag, exp in (("w1-", exps["sheared"]), ("w2-", exps["uchar"])):
        check_run(t, {k: exp[k] for k in ("v", "g", "ins", "n")}, tag)


def run(t):
    dbl = t.double
    # proxies: float in both variants (the run-time images carry the values)
    G_PROXY.write(t.path("img.nrrd"), P, "float")
    GV_PROXY.write(t.path("vol.nrrd"), V, "float")
    vol2 = GV_RUN.sample(V, t.real)
    t.write_nrrd("vol2.nrrd", vol2)
    imgs = {}   # name -> (grid, Nrrd, world polynomial)
    for name, g in (("aligned", G_ALIGNED), ("sheared", G_SHEARED)):
        imgs[name] = (g, g.sample(P, t.real), P)

    def fu(i, j):
        return 3 + i + 2 * j + i * j

    def fs(i, j):
        return -300 + 40 * i - 25 * j + 3 * i * i

    def fi(i, j):   # (values of any size would do: the type decides, not the values)
        return -1000 + 3 * i + 5 * j + i * j

    imgs["uchar"] = (G_UCHAR, int_image(G_UCHAR, fu, "unsigned char"), index_poly(G_UCHAR, fu))
    imgs["short"] = (G_SHORT, int_image(G_SHORT, fs, "short"), index_poly(G_SHORT, fs))
    imgs["int"] = (G_INT, int_image(G_INT, fi, "int"), index_poly(G_INT, fi))
    for name, (g, n, _) in imgs.items():
        t.write_nrrd(name + ".nrrd", n)
    t.write_nrrd("double.nrrd", G_SHEARED.sample(P, "double"))
    t.write_nrrd("llong.nrrd", int_image(G_INT, fi, "long long int"))
    t.write_nrrd("dim3.nrrd", GV_RUN.sample(X + Y, "float"))
    t.write_nrrd("vector.nrrd", G_SHEARED.sample([P, P], "float"))

    # the oracle, before compiling
    exps = {name: expected(g, n, pw, GV_RUN, V) for name, (g, n, pw) in imgs.items()}
    exp_proxy = expected(G_PROXY, G_PROXY.sample(P, "float"), P, GV_PROXY, V)

    t.compile()
    # the proxies themselves (float samples: judged in the float variant)
    if not dbl:
        t.exec([])
        check_run(t, exp_proxy)
    good = ["aligned", "sheared", "uchar", "short"] + (["int"] if dbl else [])
    for name in good:
        t.exec(["-img", name + ".nrrd", "-vol", "vol2.nrrd"])
        check_run(t, exps[name])

    # refused: the message names the input, both types and says to recompile
    bad = {"llong.nrrd": ["the samples are long long int", "compiled for float samples",
                          "recompile with a proxy of type long long int"],
           "dim3.nrrd": ["the image is 3-D, but the program declares a 2-D image"],
           "vector.nrrd": ["nrrd has 2 components per sample", "expected 1"]}
    if not dbl:
        bad["int.nrrd"] = ["the samples are int, but the program was compiled for float "
                           "samples (the type of its proxy image) and computes in float, "
                           "which does not hold every int exactly", "recompile with --double"]
        bad["double.nrrd"] = ["the samples are double", "compiled for float samples",
                              "recompile with --double or with a proxy of type double"]
    for f, parts in bad.items():
        p = t.exec(["-img", f, "-vol", "vol2.nrrd"], expect_rc="nonzero")
        for part in parts + ["input 'img'"]:
            if part not in p.err:
                t.fail("-img %s: the message lacks %r: %r" % (f, part, p.err.strip()[:400]))
    # a 3-D scalar image for the vector input: the voxel shape is fixed
    p = t.exec(["-vol", "dim3.nrrd"], expect_rc="nonzero")
    for part in ("input 'vol'", "nrrd has 1 component per sample", "expected 3"):
        if part not in p.err:
            t.fail("-vol dim3.nrrd: the message lacks %r: %r" % (part, p.err.strip()[:400]))

    run_lib(t, exps)

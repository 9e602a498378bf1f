"""selftest.py -- checks of the end-to-end oracles themselves.

They need no compiler, so they run (and must pass) before the code
generator exists. Each returns a list of problems (empty: pass) or raises
e2elib.Skip. They show that the oracles agree with independent sources
(closed forms, Teem) and that they can tell right from wrong.
"""

import math
import os
import random
import shutil
import tempfile
from fractions import Fraction as Q

import e2elib
import linalg
import nrrd
from polyfield import (Grid, KERNELS, REPRODUCES, SUPPORT, at, flatten, grad, hessian, lattice,
                       reconstruct, to_float, variables)

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))


def _unu():
    return shutil.which("teem-unu") or shutil.which("unu")


def nrrd_roundtrip():
    """nrrd.py writes what it reads, and Teem reads what nrrd.py writes."""
    problems = []
    rnd = random.Random(7)
    tmp = tempfile.mkdtemp(prefix="e2e-selftest-")
    try:
        for tname in ("unsigned char", "int", "long long int", "float", "double", "short"):
            for enc in ("raw", "ascii"):
                isfloat = nrrd.TYPES[tname][2]
                data = [rnd.uniform(-100, 100) if isfloat else rnd.randint(0, 120)
                        for _ in range(24)]
                if tname == "float":
                    data = [nrrd.f32(v) for v in data]
                n = nrrd.Nrrd(tname, [3, 4, 2], data, kinds=["3-vector", "space", "space"],
                              space_dim=2, space_directions=[None, ("0.5", "0"), ("0", "0.25")],
                              space_origin=("-1.5", "2"))
                p = os.path.join(tmp, "x.nrrd")
                nrrd.write(p, n, enc)
                m = nrrd.read(p)
                if m.type != tname or m.sizes != [3, 4, 2] or m.data != data:
                    problems.append("%s/%s: read back %s %s" % (tname, enc, m.type, m.sizes))
                if m.kinds != ["3-vector", "space", "space"] or m.space_dim != 2 \
                        or m.space_directions != [None, (0.5, 0.0), (0.0, 0.25)] \
                        or m.space_origin != (-1.5, 2.0):
                    problems.append("%s/%s: header fields read back wrong" % (tname, enc))
                unu = _unu()
                if unu:
                    r = e2elib.run_killable([unu, "save", "-f", "nrrd", "-e", "ascii", "-i", p,
                                             "-o", os.path.join(tmp, "y.nrrd")], tmp, 30)
                    if isinstance(r, str) or r[0] != 0:
                        problems.append("%s/%s: teem-unu cannot read our file: %s"
                                        % (tname, enc, r if isinstance(r, str) else r[2]))
                        continue
                    y = nrrd.read(os.path.join(tmp, "y.nrrd"))
                    ok = all(abs(a - b) <= 1e-6 * max(1, abs(a)) for a, b in zip(y.data, data))
                    if y.sizes != n.sizes or not ok:
                        problems.append("%s/%s: Teem read other values" % (tname, enc))
        # a corrupt file must be rejected
        for blob in (b"NRRD0004\ntype: float\n", b"hello\n\n",
                     b"NRRD0004\ntype: float\ndimension: 1\nsizes: 4\nencoding: raw\n\n\0\0"):
            try:
                nrrd.parse(blob)
                problems.append("accepted a corrupt file %r" % blob[:30])
            except nrrd.NrrdError:
                pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return problems


def kernel_reproduction():
    """Convolving samples of a polynomial (probe per §8.4, in Python) gives
    its exact value, gradient and Hessian for the degree each kernel is
    claimed to reproduce (tests/unit/test_kernel.c), in 2-D and 3-D on
    rotated grids -- and visibly does not for degree + 1, so the oracle
    can fail."""
    problems = []
    rnd = random.Random(3)
    for d in (2, 3):
        xs = variables(d)
        grid = Grid.centered([9] * d, [Q(1, 2), Q(3, 5), Q(11, 20)][:d])
        pts = lattice([Q(-1, 4)] * d, Q(3, 8), [2] * d)
        for kernel in ("tent", "ctmr", "bspln3", "bspln5", "c4hexic"):
            deg = REPRODUCES[kernel]
            for extra in (0, 1):
                # a random polynomial of total degree deg + extra
                p = xs[0] * 0 + Q(rnd.randint(-8, 8), 4)
                for _ in range(6):
                    term = Q(rnd.randint(1, 8), 4)
                    for _ in range(rnd.randint(0, deg + extra)):
                        term = term * xs[rnd.randrange(d)]
                    p = p + term
                top = xs[0] ** (deg + extra) if extra else xs[0] * 0
                p = p + top   # make sure the top degree is there
                img = grid.sample(p, "double")
                worst = 0.0
                for pt in pts:
                    assert grid.inside(pt, SUPPORT[kernel])
                    for order, exact in ((0, p), (1, grad(p)), (2, hessian(p))):
                        if order > 0 and kernel == "tent":
                            continue
                        got = flatten(reconstruct(img, grid, kernel, pt, order))
                        exp = flatten(to_float(at(exact, pt)))
                        scale = max([1.0] + [abs(v) for v in exp])
                        worst = max(worst, max(abs(a - b) / scale for a, b in zip(got, exp)))
                if extra == 0 and worst > 1e-10:
                    problems.append("%s %d-D: degree %d not reproduced (error %.3g)"
                                    % (kernel, d, deg, worst))
                if extra == 1 and worst < 1e-6:
                    problems.append("%s %d-D: degree %d reproduced too, the claim is wrong"
                                    % (kernel, d, deg + 1))
    # the kernels themselves: partition of unity and h(0) (§5)
    for k, pieces in KERNELS.items():
        s = len(pieces)
        for f in (Q(0), Q(1, 3), Q(7, 8)):
            from polyfield import kernel_eval
            tot = sum(kernel_eval(k, f - i) for i in range(1 - s, s + 1))
            if tot != 1:
                problems.append("%s: weights at f=%s sum to %s" % (k, f, tot))
    from polyfield import kernel_eval
    if kernel_eval("bspln3", Q(0)) != Q(2, 3) or kernel_eval("c4hexic", Q(2)) != Q(-11, 480):
        problems.append("kernel values differ from doc/language.md §6.2")
    return problems


def _grid_of(img):
    """A Grid for a NRRD read from disk (decimal text -> exact Fractions of
    the doubles, which is what a C runtime parses too)."""
    d = img.space_dim
    g = Grid.__new__(Grid)
    g.d, g.sizes = d, img.sizes[-d:]
    dirs = [v for v in img.space_directions if v is not None]
    g.M = [[Q(dirs[c][r]) for c in range(d)] for r in range(d)]
    g.origin = [Q(v) for v in img.space_origin]
    from polyfield import mat_inv
    g.W = mat_inv(g.M)
    return g


def gage_agreement():
    """Teem's gage and the §8.4 probe in Python agree on a real volume, and
    the z-stacking used by gage_2d.py gives the 2-D field's answers."""
    if shutil.which("teem-gprobe") is None:
        raise e2elib.Skip("needs teem-gprobe")
    problems = []
    tmp = tempfile.mkdtemp(prefix="e2e-selftest-")
    try:
        class Ctx:
            dir = tmp

            def path(self, f):
                return os.path.join(tmp, f)
        import gage_3d
        ctx = Ctx()
        blobs = os.path.join(SRCDIR, "examples", "data", "blobs.nrrd")
        img = nrrd.read(blobs)
        grid = _grid_of(img)
        pts = [[Q(11, 100), Q(37, 100), Q(-1, 5)], [Q(-1, 5), Q(-3, 10), Q(1, 20)]]
        for kernel, order in gage_3d.KERNELS:
            for o, q in enumerate(("v", "gv", "hess")[:order + 1]):
                g = gage_3d.gage(ctx, blobs, pts, kernel, q)
                mine = e2elib.flat([reconstruct(img, grid, kernel, p, o) for p in pts])
                scale = max([1.0] + [abs(v) for v in mine])
                err = max(abs(a - b) for a, b in zip(g, mine)) / scale
                if err > 1e-10:
                    problems.append("blobs %s %s: gage and the §8.4 probe differ by %.3g"
                                    % (kernel, q, err))
        # the stack of gage_2d.py
        ddro = os.path.join(SRCDIR, "tests", "data", "ddro-100.nrrd")
        img2 = nrrd.read(ddro)
        grid2 = _grid_of(img2)
        dirs = [tuple(img2.space_directions[a]) + (0.0,) for a in range(2)] + [(0.0, 0.0, 1.0)]
        vol = nrrd.Nrrd(img2.type, img2.sizes + [6], img2.data * 6, kinds=["space"] * 3,
                        space_dim=3, space_directions=dirs,
                        space_origin=tuple(img2.space_origin) + (0.0,))
        nrrd.write(ctx.path("stack.nrrd"), vol)
        pts2 = [[Q(-11, 16), Q(-9, 16)], [Q(1, 3), Q(2, 7)]]
        for kernel in ("ctmr", "c4hexic"):
            for o, q in enumerate(("v", "gv", "hess")):
                if kernel == "ctmr" and o == 2:
                    continue
                g = gage_3d.gage(ctx, "stack.nrrd", [p + [Q(5, 2)] for p in pts2], kernel, q)
                if o == 1:
                    g = [g[3 * p + a] for p in range(2) for a in range(2)]
                elif o == 2:
                    g = [g[9 * p + 3 * a + b]
                         for p in range(2) for a in range(2) for b in range(2)]
                mine = e2elib.flat([reconstruct(img2, grid2, kernel, p, o) for p in pts2])
                scale = max([1.0] + [abs(v) for v in mine])
                err = max(abs(a - b) for a, b in zip(g, mine)) / scale
                if err > 1e-10:
                    problems.append("ddro stack %s %s: differs from the 2-D probe by %.3g"
                                    % (kernel, q, err))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return problems


def eigen_oracle():
    """evals_sym: known spectra, and residuals det(S - λI) ~ 0 elsewhere."""
    problems = []
    known = [([[2, 1], [1, 2]], [3, 1]), ([[5, 0, 0], [0, -1, 0], [0, 0, 2]], [5, 2, -1]),
             ([[2, 1, 0], [1, 2, 0], [0, 0, 7]], [7, 3, 1]), ([[0, 9], [-4, 0]], [9, -9])]
    for m, ev in known:
        got = linalg.evals_sym(m)
        if any(abs(float(a) - b) > 1e-25 for a, b in zip(got, ev)):
            problems.append("evals_sym(%s) = %s, expected %s" % (m, [float(v) for v in got], ev))
    rnd = random.Random(5)
    for _ in range(20):
        m = [[Q(rnd.randint(-20, 20), 4) for _ in range(3)] for _ in range(3)]
        s = linalg.sym(m)
        try:
            ev = linalg.evals_sym(m)
        except ValueError:
            continue
        if not ev[0] >= ev[1] >= ev[2]:
            problems.append("evals not descending: %s" % ev)
        tr = s[0][0] + s[1][1] + s[2][2]
        if abs(sum(ev) - tr) > Q(1, 10 ** 20):
            problems.append("sum of evals != trace for %s" % m)
        for lam in ev:
            r = linalg.det([[s[i][j] - (lam if i == j else 0) for j in range(3)] for i in range(3)])
            if abs(r) > Q(1, 10 ** 20):
                problems.append("det(S - λI) = %.3g for %s" % (float(r), m))
    a = [[Q(2), Q(1), Q(0)], [Q(1), Q(3), Q(1)], [Q(0), Q(1), Q(4)]]
    if linalg.matmul(a, linalg.inv(a)) != [[Q(int(i == j)) for j in range(3)] for i in range(3)]:
        problems.append("inv is not an inverse")
    return problems


def checker_can_fail():
    """The output checks of e2elib pass on right outputs and fail on wrong
    ones (a value, a size, a kind, a type), also through --perturb."""
    problems = []
    tmp = tempfile.mkdtemp(prefix="e2e-selftest-")
    try:
        def ctx(perturb=False):
            return e2elib.T("selftest", None, tmp, "float", SRCDIR, tmp, None, perturb=perturb)
        vals = [[1.5, -2.0, 0.25], [3.0, 4.0, 5.0], [0.0, 1e-3, -7.0], [2.0, 2.0, 2.0]]
        good = nrrd.Nrrd("float", [3, 2, 2], [nrrd.f32(v) for p in vals for v in p],
                         kinds=["3-vector", "space", "space"])
        nrrd.write(os.path.join(tmp, "v.nrrd"), good)
        t = ctx()
        e2elib.check_grid(t, "v", [2, 2], [3], vals)
        if t.failures:
            problems.append("a right output failed: %s" % t.failures)
        t = ctx(perturb=True)
        e2elib.check_grid(t, "v", [2, 2], [3], vals)
        if not t.failures:
            problems.append("--perturb did not make the check fail")
        wrong = [[1.5, -2.0, 0.25], [3.0, 4.0, 5.0001], [0.0, 1e-3, -7.0], [2.0, 2.0, 2.0]]
        t = ctx()
        e2elib.check_grid(t, "v", [2, 2], [3], wrong)
        if not t.failures:
            problems.append("a value off by 1e-4 passed")
        sp = ["space", "space"]
        for bad in (nrrd.Nrrd("float", [3, 4], good.data, kinds=["3-vector", "space"]),
                    nrrd.Nrrd("float", [3, 2, 2], good.data, kinds=["list"] + sp),
                    nrrd.Nrrd("double", [3, 2, 2], good.data, kinds=["3-vector"] + sp)):
            nrrd.write(os.path.join(tmp, "v.nrrd"), bad)
            t = ctx()
            e2elib.check_grid(t, "v", [2, 2], [3], vals)
            if not t.failures:
                problems.append("a wrong layout passed: %s %s %s"
                                % (bad.type, bad.sizes, bad.kinds))
        t = ctx()
        t.same_multiset("s", [3, 1, 2], [1, 2, 3])
        t.equal("e", [1, 2], [1, 2])
        if t.failures:
            problems.append("equal/same_multiset failed on equal data")
        t.same_multiset("s", [3, 1, 1], [1, 2, 3])
        if not t.failures:
            problems.append("same_multiset passed on different data")
        t = ctx()
        t.close("nan", [float("nan"), 1.0], [math.nan, 1.0])
        if t.failures:
            problems.append("NaN does not match NaN")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return problems


TESTS = [
    ("nrrd", nrrd_roundtrip),
    ("kernels", kernel_reproduction),
    ("gage", gage_agreement),
    ("eigen", eigen_oracle),
    ("checks", checker_can_fail),
]

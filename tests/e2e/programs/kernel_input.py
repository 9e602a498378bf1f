"""kernel_input: kernels and border control chosen on the command line
(doc/language.md §6.9, an extension): one executable run with several
choices of -kern, -dkern and -bc, at points inside and outside a small
axis-aligned anisotropic image. Oracle: the convolution sums of §6.3 in
exact rationals (polyfield.kernel_eval: the kernels' pieces as written in
the test oracle, border_map: the index maps of §6.4), from the samples as
the image stores them, and the gradient from the kernels' exact
derivatives over the spacings. Bad choices: exit status 2, the message
names the input and its choices, no output."""

import math
import os
from fractions import Fraction as Q

import nrrd

from e2elib import check_grid
from polyfield import Grid, kernel_eval, variables, SUPPORT, border_map

VARIANTS = ["float", "double"]

x, y = variables(2)
P = Q(1, 2) + x - y / 3 + x * x / 2 - x * y / 4 + y ** 3 / 5
GRID = Grid.aligned([7, 6], [Q(1, 2), Q(3, 4)], [Q(-1), Q(1, 4)])
ORG, STEP, COUNTS = [Q(-13, 8), Q(-1, 2)], Q(7, 16), [11, 12]
KERNELS0 = ["tent", "ctmr", "bspln3", "bspln5", "c4hexic", "c1tent", "c2tent", "c2ctmr"]
KERNELS1 = [k for k in KERNELS0 if k != "tent"]
# (kern, dkern, bc); None: the default (ctmr, ctmr, clamp)
RUNS = [(None, None, None), ("tent", "bspln3", "wrap"), ("bspln5", "c4hexic", "mirror"),
        ("c4hexic", "bspln5", None), ("bspln3", "c2ctmr", "wrap"), ("c2tent", "bspln3", "mirror")]
# (not c1tent or c2tent for gradients: a tent's derivative jumps at the
# integers, where some probe points lie)


def probe(samples, sizes, kernel, mode, p, deriv=(0, 0)):
    """Σ img[bc(n + i)] Π_a h^(deriv_a)(f_a - i_a) at index position p."""
    s = SUPPORT[kernel]
    n = [math.floor(v) for v in p]
    f = [v - k for v, k in zip(p, n)]
    total = Q(0)
    for j in range(1 - s, s + 1):
        wy = kernel_eval(kernel, f[1] - j, deriv[1])
        if not wy:
            continue
        iy = border_map(mode, n[1] + j, sizes[1])
        for i in range(1 - s, s + 1):
            wx = kernel_eval(kernel, f[0] - i, deriv[0])
            if wx:
                ix = border_map(mode, n[0] + i, sizes[0])
                total += samples[ix + sizes[0] * iy] * wx * wy
    return total


def expected(samples, kern, dkern, bc):
    v, dv = [], []
    sx, sy = GRID.M[0][0], GRID.M[1][1]
    for j in range(COUNTS[1]):
        for i in range(COUNTS[0]):
            pt = [ORG[0] + STEP * i, ORG[1] + STEP * j]
            p = GRID.index(pt)
            v.append(probe(samples, GRID.sizes, kern, bc, p))
            dv.append([probe(samples, GRID.sizes, dkern, bc, p, (1, 0)) / sx,
                       probe(samples, GRID.sizes, dkern, bc, p, (0, 1)) / sy])
    return v, dv


def run(t):
    n = GRID.sample(P, t.real)
    nrrd.write(t.path("p2.nrrd"), n)
    samples = [Q(v) for v in n.data]   # as stored (rounded to the real type)
    # the lattice leaves the image on every side (border control decides)
    idx = [GRID.index([ORG[0] + STEP * i, ORG[1] + STEP * j])
           for j in range(COUNTS[1]) for i in range(COUNTS[0])]
    assert min(p[0] for p in idx) < 0 and max(p[0] for p in idx) > GRID.sizes[0] - 1
    assert min(p[1] for p in idx) < 0 and max(p[1] for p in idx) > GRID.sizes[1] - 1
    t.compile()
    # sums of at most 36 taps of samples below 10: float rounding only
    rtol = 1e-5 if t.real == "float" else 1e-12
    for kern, dkern, bc in RUNS:
        args = []
        for opt, val in (("-kern", kern), ("-dkern", dkern), ("-bc", bc)):
            if val:
                args += [opt, val]
        for f in ("v.nrrd", "dv.nrrd"):
            if os.path.exists(t.path(f)):
                os.remove(t.path(f))
        t.exec(args)
        v, dv = expected(samples, kern or "ctmr", dkern or "ctmr", bc or "clamp")
        check_grid(t, "v", COUNTS, [], [float(a) for a in v], rtol=rtol, atol=rtol * 10)
        check_grid(t, "dv", COUNTS, [2], [[float(a) for a in d] for d in dv], rtol=rtol, atol=rtol * 40)
    # a kernel is checked against its own sums: the runs differ (a wrong
    # dispatch would give another choice's values)
    a, _ = expected(samples, "tent", "ctmr", "wrap")
    b, _ = expected(samples, "bspln5", "ctmr", "wrap")
    assert any(abs(p - q) > Q(1, 100) for p, q in zip(a, b))
    # bad choices: exit status 2, the input and its choices named, no output
    for args, listed in ((["-kern", "gauss"], KERNELS0), (["-dkern", "tent"], KERNELS1),
                         (["-bc", "none"], ["clamp", "mirror", "wrap"])):
        for f in ("v.nrrd", "dv.nrrd"):
            if os.path.exists(t.path(f)):
                os.remove(t.path(f))
        r = t.exec(args, expect_rc=2)
        want = "error: input '%s': '%s' is not one of its %s choices: %s" % (
            args[0][1:], args[1], "border" if args[0] == "-bc" else "kernel", ", ".join(listed))
        if r is not None and want not in r.err:
            t.fail("%s: the message %r is not in stderr: %s" % (" ".join(args), want, r.err[-400:]))
        if os.path.exists(t.path("v.nrrd")):
            t.fail("%s: an output was written" % " ".join(args))
    # --help lists the choices
    r = t.exec(["--help"])
    if r is not None and "border control; border: clamp, mirror, wrap" not in " ".join(r.out.split()):
        t.fail("--help does not list -bc's choices: %s" % r.out[-600:])

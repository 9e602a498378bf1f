"""gage_3d: value / gradient / Hessian of examples/data/blobs.nrrd (40^3
floats, world-space orientation) with tent, ctmr, bspln3, bspln5, c4hexic,
compared with Teem's gage (`teem-gprobe -q v|gv|hess` with kernels K, Kd,
Kdd at the same world points). Tolerance: 1e-5 (float), 1e-10 (double:
the two sum the 6^3 taps in different orders), relative to a scale: the
size of each quantity over the probe points, or, for a derivative of order
k, vmax·w^k/2 if larger (vmax = max |sample|, w = largest entry of the
world-to-index matrix): the index-space derivative is a sum of samples times
kernel-derivative weights, scaled by w per order, so float rounding of the
samples and weights reaches that size (the Hessian of a 0.05-spaced image
amplifies it 400 times) however accurate the implementation is."""

import os
import shutil
from fractions import Fraction as Q

import nrrd
from e2elib import Abort, check_grid, run_killable
from polyfield import lattice, mat_inv

VARIANTS = ["float", "double"]
REQUIRES = ["teem-gprobe"]
KERNELS = [("tent", 0), ("ctmr", 1), ("bspln3", 2), ("bspln5", 2), ("c4hexic", 2)]
ORG, STEP, COUNTS = [Q(-3, 4), Q(-5, 8), Q(-1, 2)], Q(1, 2), [3, 3, 2]


def gage(t, volume, pts, kernel, query):
    """gprobe's answers at pts: a flat list, per point 1, 3 or 9 values."""
    pfile = t.path("gage-points.nrrd")
    nrrd.write(pfile, nrrd.Nrrd("double", [3, len(pts)], [float(c) for p in pts for c in p]))
    out = t.path("gage-%s-%s.nrrd" % (kernel, query))
    argv = ["teem-gprobe", "-i", volume, "-k", "scalar", "-q", query, "-k00", kernel,
            "-k11", kernel + "d", "-k22", kernel + "dd", "-pi", pfile, "-t", "double",
            "-o", out, "-v", "0"]
    if kernel == "tent":
        argv[argv.index("-k11"):argv.index("-pi")] = []
    r = run_killable(argv, t.dir, 60)
    if isinstance(r, str) or r[0] != 0:
        raise Abort("gprobe failed: %s" % (r if isinstance(r, str) else r[2].strip()))
    return nrrd.read(out).data


def scale(values, vmax, w, order):
    return max([1.0, vmax * w ** order / 2] + [abs(v) for v in values])


def compare(t, volume, gpts, counts, dim):
    """Check each output against gage; gpts are the 3-D gage positions and
    dim the program's dimension (2: use the x, y parts of gage's answers)."""
    rtol = 1e-5 if t.real == "float" else 1e-10
    img = nrrd.read(t.path(volume))
    vmax = max(abs(v) for v in img.data)
    dirs = [[Q(c) for c in v] for v in img.space_directions if v is not None]
    w = float(max(abs(c) for row in mat_inv(dirs) for c in row))
    for kernel, order in KERNELS:
        v = gage(t, volume, gpts, kernel, "v")
        check_grid(t, kernel + "V", counts, [], v, rtol=rtol)
        if order >= 1:
            g = gage(t, volume, gpts, kernel, "gv")
            g = [g[3 * p + a] for p in range(len(gpts)) for a in range(dim)]
            check_grid(t, kernel + "G", counts, [dim], g, rtol=rtol,
                       scale=scale(g, vmax, w, 1))
        if order >= 2:
            h = gage(t, volume, gpts, kernel, "hess")
            h = [h[9 * p + 3 * a + b] for p in range(len(gpts)) for a in range(dim)
                 for b in range(dim)]
            check_grid(t, kernel + "H", counts, [dim, dim], h, rtol=rtol,
                       scale=scale(h, vmax, w, 2))


def run(t):
    shutil.copyfile(t.data("blobs.nrrd"), t.path("blobs.nrrd"))
    pts = lattice(ORG, STEP, COUNTS)
    t.compile()
    t.exec(["-org"] + ORG + ["-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1],
                             "-nz", COUNTS[2]])
    compare(t, os.path.basename(t.path("blobs.nrrd")), pts, COUNTS, 3)

"""image_query: world_min / world_max (the world-space bounding box of the
sample positions M·i + o, i_a = 0 .. size_a - 1) and sample_min /
sample_max (per component, NaN samples ignored) of images this file writes
(doc/language.md §6.1, an extension).

Oracle: the box from every corner of the index box mapped to world space
(all 2^d of them, in exact rationals; the runtime sums per axis instead),
and Python's min and max over the samples written. Directions, origins
and samples are dyadic rationals of few bits, so float holds every
answer exactly. A second run gives the input images other files (other
sizes, directions, samples): the answers are those of the files read at
run time, not of the proxies."""

import itertools
import math
from fractions import Fraction as Q

import e2elib
from e2elib import nrrd

VARIANTS = ["float", "double"]
NAN = float("nan")


def corners_box(sizes, dirs, origin):
    """(lo, hi) per world axis over the 2^d corners M·i + o."""
    d = len(sizes)
    pts = []
    for idx in itertools.product(*[(0, n - 1) for n in sizes]):
        pts.append([Q(origin[r]) + sum(Q(dirs[a][r]) * idx[a] for a in range(d)) for r in range(d)])
    return ([min(p[r] for p in pts) for r in range(d)], [max(p[r] for p in pts) for r in range(d)])


class Img:
    def __init__(self, sizes, dirs, origin, samples, ncomp=1):
        self.sizes, self.dirs, self.origin, self.samples, self.ncomp = sizes, dirs, origin, samples, ncomp

    def write(self, t, name):
        kinds = (["3-vector"] if self.ncomp == 3 else []) + ["space"] * len(self.sizes)
        dirs = ([None] if self.ncomp == 3 else []) + [tuple(float(x) for x in v) for v in self.dirs]
        n = nrrd.Nrrd(t.real, ([self.ncomp] if self.ncomp > 1 else []) + self.sizes,
                      [float(v) for v in self.samples], kinds=kinds, space_dim=len(self.sizes),
                      space_directions=dirs, space_origin=tuple(float(x) for x in self.origin))
        t.write_nrrd(name, n)

    def box(self):
        return corners_box(self.sizes, self.dirs, self.origin)

    def srange(self, c=0):
        vals = [v for v in self.samples[c::self.ncomp] if not math.isnan(v)]
        return min(vals), max(vals)


def samples(n, k):
    """n dyadic samples, a pattern that is neither sorted nor symmetric."""
    return [((7 * j + k) % 11 - 5) * 0.375 + (0.0625 if j % 3 == 0 else 0.0) for j in range(n)]


A1 = Img([6], [[Q(3, 4)]], [Q(-5, 2)], samples(6, 1))
# a shear with a negative component: the box is not origin .. origin + M·(N-1)
B2 = Img([4, 3], [[Q(1, 2), Q(1, 4)], [Q(-1), Q(2)]], [Q(3, 2), Q(-13, 4)],
         samples(12, 2)[:5] + [NAN] + samples(12, 2)[6:])
C3 = Img([3, 2, 2], [[Q(0), Q(1, 2), Q(0)], [Q(-1, 4), Q(0), Q(0)], [Q(0), Q(1, 8), Q(3)]],
         [Q(1), Q(2), Q(-1, 2)], samples(36, 3), ncomp=3)
# the run-time replacements
A1b = Img([9], [[Q(-1, 8)]], [Q(4)], samples(9, 5))
B2b = Img([2, 5], [[Q(0), Q(-3, 2)], [Q(5, 4), Q(0)]], [Q(-7, 8), Q(1, 16)], samples(10, 7))
C3b = Img([2, 2, 3], [[Q(2), Q(0), Q(0)], [Q(0), Q(2), Q(0)], [Q(0), Q(0), Q(-1, 2)]],
          [Q(0), Q(0), Q(0)], samples(36, 9), ncomp=3)


OUTS = [n + ".nrrd" for n in ("alo_", "ahi_", "blo_", "bhi_", "clo_", "chi_", "arange", "bspan_",
                               "cmin", "cmax", "later")]


def expect(t, a, b, c, label):
    (alo, ahi), (blo, bhi), (clo, chi) = a.box(), b.box(), c.box()
    want = {"alo_": ([], alo), "ahi_": ([], ahi), "blo_": ([2], blo), "bhi_": ([2], bhi),
            "clo_": ([3], clo), "chi_": ([3], chi), "arange": ([2], list(a.srange())),
            "bspan_": ([], [b.srange()[1] - b.srange()[0]]),
            "cmin": ([3], [c.srange(k)[0] for k in range(3)]),
            "cmax": ([3], [c.srange(k)[1] for k in range(3)]),
            "later": ([], [a.srange()[1] + bhi[1]])}
    for name, (shp, vals) in want.items():
        n = e2elib.grid_output(t, name, [1], shp)
        t.equal("%s %s" % (label, name), n.data, [float(v) for v in vals], convert=float)


def run(t):
    A1.write(t, "a1.nrrd")
    B2.write(t, "b2.nrrd")
    C3.write(t, "c3.nrrd")
    A1b.write(t, "a1b.nrrd")
    B2b.write(t, "b2b.nrrd")
    C3b.write(t, "c3b.nrrd")
    t.compile()
    e2elib.remove_outputs(t, OUTS)
    t.exec([])
    expect(t, A1, B2, C3, "proxies")
    e2elib.remove_outputs(t, OUTS)
    t.exec(["-a", "a1b.nrrd", "-b", "b2b.nrrd", "-c", "c3b.nrrd"])
    expect(t, A1b, B2b, C3b, "run-time images")

"""gage_2d: value / gradient / Hessian of tests/data/ddro-100.nrrd (2-D,
double samples, 0.02 spacing) with tent, ctmr, bspln3, bspln5, c4hexic,
compared with Teem's gage. Gage probes only 3-D volumes, so the oracle
volume stacks 6 copies of the image along z (direction (0,0,1)) and is
probed at index z = 2.5: every kernel weight set sums to 1 in z and every
derivative weight set to 0, so gage's x/y answers are those of the 2-D
field. Tolerances as in gage_3d.py."""

import shutil
from fractions import Fraction as Q

import nrrd
from gage_3d import compare
from polyfield import lattice

VARIANTS = ["float", "double"]
REQUIRES = ["teem-gprobe"]
ORG, STEP, COUNTS = [Q(-11, 16), Q(-9, 16)], Q(1, 4), [6, 5]
NZ = 6


def run(t):
    shutil.copyfile(t.data("ddro-100.nrrd"), t.path("ddro-100.nrrd"))
    img = nrrd.read(t.path("ddro-100.nrrd"))
    assert img.space_dim == 2 and len(img.sizes) == 2
    dirs = [tuple(img.space_directions[a]) + (0.0,) for a in range(2)] + [(0.0, 0.0, 1.0)]
    vol = nrrd.Nrrd(img.type, img.sizes + [NZ], img.data * NZ, kinds=["space"] * 3, space_dim=3,
                    space_directions=dirs, space_origin=tuple(img.space_origin) + (0.0,))
    nrrd.write(t.path("ddro-stack.nrrd"), vol)
    pts = lattice(ORG, STEP, COUNTS)
    gpts = [p + [Q(5, 2)] for p in pts]   # z index 2.5 (origin 0, spacing 1)
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    compare(t, "ddro-stack.nrrd", gpts, COUNTS, 2)

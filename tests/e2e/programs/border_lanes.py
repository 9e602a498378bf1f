"""border_lanes: wrap() and mirror() border control (doc/language.md §6.4 index
maps) with ctmr and tent, at positions near the image and many periods away
from it, accumulated over 1 + i % 7 updates per strand. Oracle: the
convolution sums in exact rationals (polyfield.kernel_eval, border_map),
from the samples as the image stores them."""

import math
from fractions import Fraction as Q

import nrrd

from polyfield import Grid, kernel_eval, variables, SUPPORT, border_map

VARIANTS = ["float", "double"]
(x,) = variables(1)
P = 1 + x * (2 - x) / 2 + x * x * x / 5
G = Grid.aligned([5], [Q(1)], [0])
N = 250


def probe(samples, kernel, mode, pos):
    s = SUPPORT[kernel]
    n = math.floor(pos)
    f = pos - n
    return sum(kernel_eval(kernel, f - k) * samples[border_map(mode, n + k, len(samples))]
               for k in range(1 - s, s + 1))


def expected(samples):
    w, m, t = [], [], []
    for i in range(N):
        px = Q(-19, 2) + Q(i, 4)
        aw = am = at = Q(0)
        for _ in range(1 + i % 7):
            aw += probe(samples, "ctmr", "wrap", px) + probe(samples, "ctmr", "wrap", 3 * px + Q(1, 2))
            am += probe(samples, "ctmr", "mirror", px) + probe(samples, "ctmr", "mirror", -2 * px)
            at += probe(samples, "tent", "mirror", Q(3, 2) * px)
            px += Q(7, 4)
        w.append(float(aw))
        m.append(float(am))
        t.append(float(at))
    return w, m, t


def run(t):
    n = G.sample(P, t.real)
    nrrd.write(t.path("line.nrrd"), n)
    samples = [Q(v) for v in n.data]   # as stored (rounded to the real type)
    far = [i for i in range(N) if abs(3 * (Q(-19, 2) + Q(i, 4))) > 20]
    assert far and len(far) < N   # both the add and the division are taken
    w, m, tt = expected(samples)
    t.compile()
    t.exec([])
    # sums of up to 14 probes of samples of size <= 4: float rounding only
    rtol = 1e-5 if t.real == "float" else 1e-12
    t.close("w", t.read("w.nrrd").data, w, rtol=rtol, atol=rtol * 60)
    t.close("m", t.read("m.nrrd").data, m, rtol=rtol, atol=rtol * 60)
    t.close("t", t.read("t.nrrd").data, tt, rtol=rtol, atol=rtol * 60)

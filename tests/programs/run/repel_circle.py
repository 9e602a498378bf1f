"""Checker of repel_circle.diderot: the N output points lie on the unit
circle and their angular gaps g_i are nearly uniform, with a bound derived
from the stopping rule.

Linearised around the uniform spacing h = 2 pi / N (neighbours at h and 2h
are inside the cut-off r = chord(2.5 h)), with psi(a) the tangential force
between two points an angle a apart, the force on point i is
    F_i = psi'(h) (g_{i-1} - g_i) + psi'(2h) (g_{i-2} + g_{i-1} - g_i - g_{i+1}),
so for the gap errors e_i = g_i - h (sum 0) each Fourier mode m != 0 is
multiplied by A(m) = psi'(h)(z - 1) + psi'(2h)(z + z^2 - 1 - 1/z),
z = exp(-2 pi i m / N). Parseval gives |e|_2 <= |F|_2 / min_m |A(m)|. The
run stops when every move eta |F_i| is below tol h, so |F|_2 < sqrt(N) tol
h / eta and
    RMS(e) / h <= tol / (eta min_m |A(m)|).
We allow twice that for the linearisation (the points start at random
angles, where the gap ratio RMS/h is about 1). eta * max |A| < 2 keeps the
step stable."""
import cmath
import math


def bound(N, eta, tol):
    h = 2 * math.pi / N
    r = 2 * math.sin(1.25 * h)

    def psi(a):
        return (1 / (4 * math.sin(a / 2) ** 2) - 1 / r ** 2) * math.cos(a / 2)

    def dpsi(a):  # exact derivative of psi
        s, c = math.sin(a / 2), math.cos(a / 2)
        return -c * c / (4 * s ** 3) - 0.5 * s * (1 / (4 * s * s) - 1 / r ** 2)

    assert abs(dpsi(h) - (psi(h * 1.000001) - psi(h * 0.999999)) / (h * 2e-6)) < 1e-3 * abs(dpsi(h))
    p1, p2 = dpsi(h), dpsi(2 * h)
    A = []
    for m in range(1, N):
        z = cmath.exp(-2j * math.pi * m / N)
        A.append(abs(p1 * (z - 1) + p2 * (z + z * z - 1 - 1 / z)))
    assert eta * max(A) < 2, "unstable step"
    return 2 * tol / (eta * min(A))


def check(N, eta, tol):
    limit = bound(N, eta, tol)

    def run(got):
        d = got.data
        if list(got.sizes) != [2, N]:
            return ["sizes %s, expected [2, %d]" % (got.sizes, N)]
        bad = ["point %d off the circle" % k for k in range(N)
               if abs(math.hypot(d[2 * k], d[2 * k + 1]) - 1) > 1e-5][:3]
        th = sorted(math.atan2(d[2 * k + 1], d[2 * k]) for k in range(N))
        gaps = [th[k + 1] - th[k] for k in range(N - 1)] + [th[0] + 2 * math.pi - th[-1]]
        h = 2 * math.pi / N
        rms = math.sqrt(sum((g - h) ** 2 for g in gaps) / N)
        if not rms / h <= limit:
            bad.append("gap RMS / spacing = %.3g, bound %.3g" % (rms / h, limit))
        return bad
    return run


CASES = [
    ([], {"pos.nrrd": check(48, 1e-4, 1e-5)}),
    (["-N", "96", "-eta", "0.0000125"], {"pos.nrrd": check(96, 1.25e-5, 1e-5)}),
]
ALSO = [(["--target=omp"], ["-n", "2"]), (["--target=omp"], ["-n", "4"])]

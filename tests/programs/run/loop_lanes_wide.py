"""Oracle of loop_lanes_wide.diderot. Ints are 32 bits with wrap-around
(the build's -fwrapv), division and remainder truncate toward zero (C),
|INT_MIN| is INT_MIN. The real sum adds eighths of integers, integers
below 2^31 in magnitude and j/2^k (square roots of perfect squares of
dyadic numbers, divisions by 8: exact), a few hundred of them: every
partial sum is a multiple of 1/32 below 2^28, exact in double."""
FLAGS = ["--double"]


def wrap(x):
    return (x + 2 ** 31) % 2 ** 32 - 2 ** 31


def cdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def cmod(a, b):
    return a - b * cdiv(a, b)


def expected(N=300, L=203):
    ks = [7 * j + 3 for j in range(L)]
    hs, neg, as_, s = [], [], [], []
    for i in range(N):
        h_s = n_s = a_s = 0
        r_s = 0.0
        for j in ks:
            h = wrap(wrap(j * 1103515245) + 12345 + i * 977)
            m = cmod(h, 1000)
            n_s += h < 0
            h_s = wrap(h_s + m)
            a_s = wrap(a_s + cdiv(wrap(abs(h)), 1000003))
            r_s += m / 8 + cdiv(wrap(-h), 65536) + j + j / 2 + j / 4 + j / 8 + j / 16 + j / 32
        hs.append(h_s)
        neg.append(n_s)
        as_.append(a_s)
        s.append(r_s)
    return hs, neg, as_, s


def checks(e):
    hs, neg, as_, s = e
    n = len(hs)
    return {"hs.nrrd": (hs, [n]), "neg.nrrd": (neg, [n]), "as.nrrd": (as_, [n]), "s.nrrd": (s, [n])}


CASES = [([], checks(expected())), (["-N", "120", "-L", "13"], checks(expected(120, 13)))]
# every loop scalar: the same bytes (both builds without FP contraction)
ALSO = [(["--no-loop-lanes"], [])]

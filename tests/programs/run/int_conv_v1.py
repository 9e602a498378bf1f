"""Oracle of int_conv_v1.diderot (--double --long-int): int(x) toward zero,
saturated to [-2^63, 2^63 - 1], NaN to 0; inputs are C doubles (Python
floats), and the large ones are exact doubles (2^63 - 1024, 2^52 - 0.5)."""
import math

FLAGS = ["--double", "--long-int"]
DEFAULT = ["0.0", "-0.5", "2.75", "-3.75", "1.0e19", "-1.0e19",
           "9223372036854774784.0", "-9223372036854775808.0"]
OTHER = ["nan", "inf", "-inf", "4503599627370495.5", "-4503599627370495.5",
         "9223372036854775808.0", "-9223372036854777856.0", "-1.0e-300"]


def to_int(x, bits=64):
    lim = 2.0 ** (bits - 1)
    if math.isnan(x):
        return 0
    if x >= lim:
        return 2 ** (bits - 1) - 1
    if x <= -lim:
        return -2 ** (bits - 1)
    return int(x)


def wrap(n, bits=64):
    """int arithmetic wraps around (doc/language.md §4.1)"""
    n &= (1 << bits) - 1
    return n - (1 << bits) if n >> (bits - 1) else n


def exact(want):
    def check(nrrd):
        got = [int(v) for v in nrrd.data]
        return [] if got == want else ["got %s, expected %s" % (got, want)]
    return check


def expected(texts):
    xs = [float(t) for t in texts]
    g = to_int(xs[2] * 4.0)
    return {"n.nrrd": exact([to_int(x) for x in xs]),
            "h.nrrd": exact([to_int(0.5 * x) for x in xs]),
            "c.nrrd": exact([wrap(g - 7)] * len(xs))}


CASES = [([], expected(DEFAULT)),
         (["-xs"] + OTHER, expected(OTHER))]

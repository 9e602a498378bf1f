"""Oracle of int_conv.diderot: int(x) truncates toward zero and saturates
to [-2^31, 2^31 - 1], NaN giving 0 (doc/language.md §4.2). Inputs are read
into C floats (round to nearest float32, here by struct); the halves are
exact in binary."""
import math
import struct

BITS = 32
DEFAULT = ["0.0", "-0.5", "2.75", "-3.75", "1.0e10", "-1.0e10", "nan", "inf", "-inf",
           "2147483520.0", "-2147483648.0", "8388607.5", "-65536.75", "2147483648.0"]
OTHER = ["-0.0", "0.999", "-0.999", "1.5", "-1.5", "3.0e9", "-3.0e9", "123456.789",
         "-123456.789", "1.0e-30", "-2147483904.0", "2147483904.0", "100.0", "-100.0"]


def f32(s):
    return struct.unpack("f", struct.pack("f", float(s)))[0]


def to_int(x, bits=BITS):
    lim = 2.0 ** (bits - 1)
    if math.isnan(x):
        return 0
    if x >= lim:
        return 2 ** (bits - 1) - 1
    if x <= -lim:
        return -2 ** (bits - 1)
    return int(x)          # Python's int() truncates toward zero


def exact(want):
    def check(nrrd):
        got = [int(v) for v in nrrd.data]
        if got != want:
            return ["got %s, expected %s" % (got, want)]
        return []
    return check


def expected(texts, rnd=f32, bits=BITS):
    xs = [rnd(t) for t in texts]
    folded = [-7, 7, 3]
    g = to_int(xs[2] * 4.0, bits)
    return {"n.nrrd": exact([to_int(x, bits) for x in xs]),
            "h.nrrd": exact([to_int(0.5 * x, bits) for x in xs]),
            "c.nrrd": exact([folded[i % 3] + g for i in range(len(xs))])}


CASES = [([], expected(DEFAULT)),
         (["-xs"] + OTHER, expected(OTHER))]

"""Oracle of int_pow.diderot: a ^ n on ints (doc/language.md §5.2) is
a·…·a (n times) modulo 2^bits for n >= 0 (1 for n = 0), and for n < 0 the
reciprocal toward zero: 1 for a = 1, (-1)^n for a = -1, 0 otherwise.
Python's exact pow, reduced modulo 2^bits (pow(a, n, 2^bits))."""

BITS = 32
AS = [2, 3, -2, 0, 1, -1, 7, 10, 2, 3, -3, 0, 1, -1, 5, 2]
NS = [10, 5, 31, 0, -7, -3, 11, 9, 32, 40, 21, -1, 2147483647, -2147483648, -2, 1000000]
OTHER_AS = [-7, 13, 2, -2, 65536, 3, -1, 1, 0, 6, -5, 9, 11, 2, 0, 4]
OTHER_NS = [3, 17, 30, 32, 2, -1, 2147483646, -5, 5, 25, 13, 7, 3, 62, 0, 16]


def wrap(v, bits=BITS):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def ipow(a, n, bits=BITS):
    if n < 0:
        return 1 if a == 1 else ((-1) ** (n % 2) if a == -1 else 0)
    return wrap(pow(a, n, 1 << bits), bits)


def exact(want):
    def check(nrrd):
        got = [int(v) for v in nrrd.data]
        return [] if got == want else ["got %s, expected %s" % (got, want)]
    return check


def expected(as_, ns, bits=BITS):
    folded = [1024, -27, 0 + 1]
    return {"p.nrrd": exact([ipow(a, n, bits) for a, n in zip(as_, ns)]),
            "q.nrrd": exact([wrap(ipow(a, 5, bits) + 2, bits) for a in as_]),
            "r.nrrd": exact([wrap(ipow(a, -3, bits) + folded[i % 3] + ipow(10, i % 10, bits), bits)
                             for i, a in enumerate(as_)]),
            "h.nrrd": ([2.0 ** (i - 3) for i in range(16)], [16])}


CASES = [([], expected(AS, NS)),
         (["-as"] + [str(a) for a in OTHER_AS] + ["-ns"] + [str(n) for n in OTHER_NS],
          expected(OTHER_AS, OTHER_NS))]

"""Oracle of int_pow_v1.diderot (--long-int): a ^ n modulo 2^64
(doc/language.md §5.2), by Python's exact pow."""
FLAGS = ["--long-int"]
BITS = 64
AS = [2, 3, -2, 10, -1, 7, 2, 0]
NS = [62, 41, 63, 18, -9, 23, 64, -4]


def wrap(v):
    v &= (1 << BITS) - 1
    return v - (1 << BITS) if v >> (BITS - 1) else v


def ipow(a, n):
    if n < 0:
        return 1 if a == 1 else ((-1) ** (n % 2) if a == -1 else 0)
    return wrap(pow(a, n, 1 << BITS))


def exact(want):
    def check(nrrd):
        got = [int(v) for v in nrrd.data]
        return [] if got == want else ["got %s, expected %s" % (got, want)]
    return check


CASES = [([], {"p.nrrd": exact([ipow(a, n) for a, n in zip(AS, NS)]),
               "q.nrrd": exact([wrap(ipow(10, i + 12) + ipow(a, 3)) for i, a in enumerate(AS)])})]

"""Oracle of primes.diderot: the sieve of Eratosthenes."""


def sieve(n):
    flags = [True] * (n + 1)
    out = []
    for q in range(2, n + 1):
        if flags[q]:
            out.append(q)
            for r in range(q * q, n + 1, q):
                flags[r] = False
    return out


# collection outputs are compared as multisets (the original compiler's
# order is not creation order: doc/differences.md, Q15)
CASES = [
    ([], {"p.nrrd": (sieve(50), None, "sorted")}),
    (["-N", "400"], {"p.nrrd": (sieve(400), None, "sorted")}),
]

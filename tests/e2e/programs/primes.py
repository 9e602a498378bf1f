"""primes: a collection of candidates 2..n; composites die (trial
division in the program), primes stabilize. Oracle: a sieve of
Eratosthenes. The output is a `list` axis of the stable strands, compared
as a set (§6.5: collection order is unspecified)."""

from e2elib import Skip  # noqa: F401  (companions may skip)

VARIANTS = ["float", "long"]
N = 250


def sieve(n):
    flags = [True] * (n + 1)
    flags[0] = flags[1] = False
    for a in range(2, n + 1):
        if flags[a]:
            for m in range(a * a, n + 1, a):
                flags[m] = False
    return [a for a in range(n + 1) if flags[a]]


def run(t):
    exp = sieve(N)
    t.compile()
    t.exec(["-n", N])
    out = t.layout("p.nrrd", "long long int" if t.long_int else "int", [len(exp)], ["list"])
    t.same_multiset("p", out.data, exp)

"""tps.py -- truncated multivariate Taylor series over mpmath numbers.

The differential oracle (gen.py) represents the value of a field near a probe
point x as the Taylor series of the field in world offsets dx, truncated at
the derivative order the probe needs.  Lifted operations (+, *, /, sqrt, sin,
|F|, normalize, ...) are series arithmetic; a derivative is differentiation
of the series.  Coefficients are mpmath mpf at 40 digits, so every value and
derivative the oracle reports is exact to far below float or double
rounding.  Independent of the compiler: the series of a probed image comes
from a direct evaluation of the convolution sums (gen.py), nothing else.
"""

import math
from itertools import product

import mpmath
from mpmath import mpf

_MONOS = {}


def monos(d, K):
    """Exponent tuples of total degree <= K in d variables."""
    key = (d, K)
    if key not in _MONOS:
        _MONOS[key] = [e for e in product(range(K + 1), repeat=d) if sum(e) <= K]
    return _MONOS[key]


class TPS:
    __slots__ = ("d", "K", "c")

    def __init__(self, d, K, c=None):
        self.d = d
        self.K = K
        self.c = c if c is not None else {}

    @staticmethod
    def const(d, K, v):
        return TPS(d, K, {(0,) * d: mpf(v)})

    @staticmethod
    def var(d, K, i, v=0):
        e = [0] * d
        e[i] = 1
        t = {tuple(e): mpf(1)} if K >= 1 else {}
        if v:
            t[(0,) * d] = mpf(v)
        return TPS(d, K, t)

    def v0(self):
        return self.c.get((0,) * self.d, mpf(0))

    def copy(self):
        return TPS(self.d, self.K, dict(self.c))

    def map(self, f):
        return TPS(self.d, self.K, {e: f(v) for e, v in self.c.items()})

    def __add__(self, o):
        if not isinstance(o, TPS):
            o = TPS.const(self.d, self.K, o)
        K = min(self.K, o.K)
        t = {e: v for e, v in self.c.items() if sum(e) <= K}
        for e, v in o.c.items():
            if sum(e) <= K:
                t[e] = t.get(e, 0) + v
        return TPS(self.d, K, t)

    __radd__ = __add__

    def __neg__(self):
        return self.map(lambda v: -v)

    def __sub__(self, o):
        return self + (-o if isinstance(o, TPS) else -mpf(o))

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if not isinstance(o, TPS):
            o = mpf(o)
            return self.map(lambda v: v * o)
        K = min(self.K, o.K)
        t = {}
        for e1, v1 in self.c.items():
            s1 = sum(e1)
            if s1 > K:
                continue
            for e2, v2 in o.c.items():
                if s1 + sum(e2) > K:
                    continue
                e = tuple(a + b for a, b in zip(e1, e2))
                t[e] = t.get(e, 0) + v1 * v2
        return TPS(self.d, K, t)

    __rmul__ = __mul__

    def compose(self, derivs):
        """f(self) given derivs = [f(a0), f'(a0), f''(a0), ...] (len > K)."""
        a0 = self.v0()
        h = self - a0
        r = TPS.const(self.d, self.K, derivs[0])
        p = TPS.const(self.d, self.K, 1)
        fact = 1
        for j in range(1, self.K + 1):
            p = p * h
            fact *= j
            r = r + p * (derivs[j] / fact)
        return r

    def apply(self, name):
        """A lifted scalar function of this series."""
        a = self.v0()
        K = self.K
        if name == "recip":
            ds = [(-1) ** j * math.factorial(j) / a ** (j + 1) for j in range(K + 1)]
        elif name == "sqrt":
            ds = [mpmath.sqrt(a)]
            c = mpf(1) / 2
            for j in range(1, K + 1):
                prod_ = mpf(1)
                for i in range(j):
                    prod_ *= (c - i)
                ds.append(prod_ * a ** (c - j))
        elif name == "exp":
            ds = [mpmath.exp(a)] * (K + 1)
        elif name == "sin":
            ds = [[mpmath.sin(a), mpmath.cos(a), -mpmath.sin(a), -mpmath.cos(a)][j % 4] for j in range(K + 1)]
        elif name == "cos":
            ds = [[mpmath.cos(a), -mpmath.sin(a), -mpmath.cos(a), mpmath.sin(a)][j % 4] for j in range(K + 1)]
        else:
            f = {"tan": mpmath.tan, "atan": mpmath.atan, "asin": mpmath.asin,
                 "acos": mpmath.acos}[name]
            ds = [f(a)] + [mpmath.diff(f, a, j) for j in range(1, K + 1)]
        return self.compose(ds)

    def __truediv__(self, o):
        if not isinstance(o, TPS):
            o = mpf(o)
            return self.map(lambda v: v / o)
        return self * o.apply("recip")

    def deriv(self, i):
        t = {}
        for e, v in self.c.items():
            if e[i]:
                e2 = list(e)
                e2[i] -= 1
                t[tuple(e2)] = v * e[i]
        return TPS(self.d, max(self.K - 1, 0), t)

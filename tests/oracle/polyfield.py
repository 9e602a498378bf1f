"""polyfield.py -- synthetic polynomial images and their exact calculus.

The end-to-end oracle for field reconstruction (ARCHITECTURE.md §5): a
polynomial P in *world* coordinates is sampled on a grid whose space
directions are a rotation times an anisotropic spacing. A kernel that
reproduces polynomials of P's degree (tent 1, ctmr 2, c4hexic 3, the
B-splines 1; see tests/unit/test_kernel.c) reconstructs P exactly, so the
values and derivatives of the field are those of P, computed here by exact
polynomial arithmetic over Fractions (no sympy, no numpy).

Everything that enters a program is exact:
  * space directions and origins are finite decimals (the rotations use
    Pythagorean triples and a quaternion of norm 5), written to the header
    exactly, so the grid's world-to-index map is an exact rational matrix;
  * probe positions are dyadic rationals, exactly representable in float.

Tensor values are nested Python lists, first index outermost (row-major,
as Diderot tensors); a derivative appends its index at the end (§4.3).
"""

import math
import os
import sys
from fractions import Fraction as Q

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nrrd  # noqa: E402


# ------------------------------------------------------------ polynomials

class Poly:
    """A polynomial in d variables with Fraction coefficients:
    terms maps exponent tuples to non-zero coefficients."""

    __slots__ = ("d", "terms")

    def __init__(self, d, terms=None):
        self.d = d
        self.terms = {}
        for e, c in (terms or {}).items():
            c = Q(c)
            if c:
                self.terms[tuple(e)] = c

    @staticmethod
    def const(d, c):
        return Poly(d, {(0,) * d: c})

    @staticmethod
    def var(d, i):
        e = [0] * d
        e[i] = 1
        return Poly(d, {tuple(e): 1})

    def _lift(self, o):
        return o if isinstance(o, Poly) else Poly.const(self.d, o)

    def __add__(self, o):
        o = self._lift(o)
        t = dict(self.terms)
        for e, c in o.terms.items():
            t[e] = t.get(e, 0) + c
        return Poly(self.d, t)

    __radd__ = __add__

    def __neg__(self):
        return Poly(self.d, {e: -c for e, c in self.terms.items()})

    def __sub__(self, o):
        return self + (-self._lift(o))

    def __rsub__(self, o):
        return self._lift(o) - self

    def __mul__(self, o):
        o = self._lift(o)
        t = {}
        for e1, c1 in self.terms.items():
            for e2, c2 in o.terms.items():
                e = tuple(a + b for a, b in zip(e1, e2))
                t[e] = t.get(e, 0) + c1 * c2
        return Poly(self.d, t)

    __rmul__ = __mul__

    def __truediv__(self, c):
        c = Q(c)
        return Poly(self.d, {e: v / c for e, v in self.terms.items()})

    def __pow__(self, n):
        r = Poly.const(self.d, 1)
        for _ in range(n):
            r = r * self
        return r

    def deriv(self, i):
        t = {}
        for e, c in self.terms.items():
            if e[i]:
                e2 = list(e)
                e2[i] -= 1
                t[tuple(e2)] = c * e[i]
        return Poly(self.d, t)

    def degree(self):
        return max((sum(e) for e in self.terms), default=0)

    def __call__(self, x):
        """Exact value at a point of Fractions (or ints)."""
        s = Q(0)
        for e, c in self.terms.items():
            v = c
            for xi, k in zip(x, e):
                if k:
                    v *= Q(xi) ** k
            s += v
        return s

    def __repr__(self):
        return "Poly(%d, %r)" % (self.d, self.terms)


def variables(d):
    """The coordinate polynomials x0..x(d-1)."""
    return [Poly.var(d, i) for i in range(d)]


# --------------------------------------------------- tensors of polynomials

def tmap(f, t):
    """Apply f to every leaf (non-list) of a nested list."""
    return [tmap(f, u) for u in t] if isinstance(t, list) else f(t)


def shape(t):
    s = []
    while isinstance(t, list):
        s.append(len(t))
        t = t[0]
    return s


def flatten(t):
    """Leaves in row-major order (the NRRD component order, §8.3)."""
    if isinstance(t, list):
        return [x for u in t for x in flatten(u)]
    return [t]


def D(t):
    """Tensor derivative: appends the derivative index at the end, so
    D(S) is the gradient, D(D(S)) the Hessian, D(V)[i][j] = dV_i/dx_j."""
    if isinstance(t, list):
        return [D(u) for u in t]
    return [t.deriv(i) for i in range(t.d)]


def grad(s):
    return D(s)


def hessian(s):
    return D(D(s))


def divergence(t):
    """Contract the last index with the derivative: (div F)[a] = sum_i dF[a,i]/dx_i."""
    if isinstance(t[0], list):
        return [divergence(u) for u in t]
    r = t[0].deriv(0)
    for i in range(1, len(t)):
        r = r + t[i].deriv(i)
    return r


def curl(v):
    """2-D: dF1/dx0 - dF0/dx1 (a scalar); 3-D: the usual vector curl."""
    if len(v) == 2:
        return v[1].deriv(0) - v[0].deriv(1)
    return [v[2].deriv(1) - v[1].deriv(2),
            v[0].deriv(2) - v[2].deriv(0),
            v[1].deriv(0) - v[0].deriv(1)]


def at(t, x):
    """Exact value (Fractions) of a tensor of polynomials at x."""
    return tmap(lambda p: p(x), t)


def to_float(t):
    return tmap(float, t)


# --------------------------------------------------------------- decimals

def qdec(q):
    """Exact decimal text of a Fraction whose denominator is 2^a 5^b."""
    q = Q(q)
    den = q.denominator
    k = 0
    while den % 10 == 0:
        den //= 10
        k += 1
    while den % 2 == 0 or den % 5 == 0:
        den = den // 2 if den % 2 == 0 else den // 5
        k += 1
    if den != 1:
        raise ValueError("%s has no finite decimal expansion" % q)
    n = q * 10 ** k
    assert n.denominator == 1
    n = n.numerator
    sign = "-" if n < 0 else ""
    s = str(abs(n)).rjust(k + 1, "0")
    if k == 0:
        return sign + s
    return sign + s[:-k] + "." + s[-k:]


# ------------------------------------------------------------ small linalg

def mat_inv(m):
    """Exact inverse of a square matrix of Fractions (Gauss-Jordan)."""
    n = len(m)
    a = [[Q(x) for x in row] + [Q(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        p = next(r for r in range(c, n) if a[r][c] != 0)
        a[c], a[p] = a[p], a[c]
        piv = a[c][c]
        a[c] = [x / piv for x in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [row[n:] for row in a]


def mat_vec(m, v):
    return [sum((a * b for a, b in zip(row, v)), Q(0)) for row in m]


def rotation2(c=Q(3, 5), s=Q(4, 5)):
    return [[c, -s], [s, c]]


def rotation3(w=4, x=2, y=2, z=1):
    """The rotation of the quaternion (w,x,y,z); exact when w²+x²+y²+z² is
    a product of 2s and 5s (the default has norm² 25)."""
    n = Q(w * w + x * x + y * y + z * z)
    return [[(w*w + x*x - y*y - z*z) / n, 2 * (x*y - w*z) / n, 2 * (x*z + w*y) / n],
            [2 * (x*y + w*z) / n, (w*w - x*x + y*y - z*z) / n, 2 * (y*z - w*x) / n],
            [2 * (x*z - w*y) / n, 2 * (y*z + w*x) / n, (w*w - x*x - y*y + z*z) / n]]


# -------------------------------------------------------------------- grids

KINDS = {(2,): "2-vector", (3,): "3-vector", (4,): "4-vector",
         (2, 2): "2D-matrix", (3, 3): "3D-matrix"}


class Grid:
    """Sample positions of an image: index i (axis 0 fastest) is at world
    position origin + M·i, where column a of M is axis a's space direction."""

    def __init__(self, sizes, M, origin):
        self.d = len(sizes)
        self.sizes = list(sizes)
        self.M = [[Q(x) for x in row] for row in M]
        self.origin = [Q(x) for x in origin]
        for row in self.M + [self.origin]:
            for x in row:
                qdec(x)  # must be exact in the header
        self.W = mat_inv(self.M)

    @staticmethod
    def rotated(sizes, spacings, origin):
        """Directions R·diag(spacings): the 2-D rotation by atan(4/3), or
        the 3-D rotation of quaternion (4,2,2,1)/5; plain spacing in 1-D."""
        d = len(sizes)
        R = [[Q(1)]] if d == 1 else rotation2() if d == 2 else rotation3()
        M = [[R[r][c] * Q(spacings[c]) for c in range(d)] for r in range(d)]
        return Grid(sizes, M, origin)

    @staticmethod
    def centered(sizes, spacings, rotate=True):
        """A rotated (or axis-aligned) grid whose centre sample is at the
        world origin."""
        g = (Grid.rotated if rotate else Grid.aligned)(sizes, spacings, [0] * len(sizes))
        c = mat_vec(g.M, [Q(n - 1, 2) for n in sizes])
        return Grid(sizes, g.M, [-v for v in c])

    @staticmethod
    def aligned(sizes, spacings, origin):
        d = len(sizes)
        M = [[Q(spacings[c]) if r == c else Q(0) for c in range(d)] for r in range(d)]
        return Grid(sizes, M, origin)

    def world(self, idx):
        return [o + s for o, s in zip(self.origin, mat_vec(self.M, idx))]

    def index(self, x):
        """Exact continuous index position p = W·(x − origin)."""
        return mat_vec(self.W, [Q(a) - o for a, o in zip(x, self.origin)])

    def inside(self, x, support):
        """§8.5: (s−1) < p_a < size_a − s on every axis (strict)."""
        p = self.index(x)
        return all(support - 1 < pa < n - support for pa, n in zip(p, self.sizes))

    def indices(self):
        """All index tuples in NRRD order (axis 0 fastest)."""
        out = [()]
        for n in self.sizes:
            out = [t + (i,) for i in range(n) for t in out]
        return out

    def sample(self, field, real="float"):
        """A Nrrd with the exact values of `field` (a tensor of Polys in
        world coordinates) rounded to `real` ('float' or 'double')."""
        shp = shape(field)
        leaves = flatten(field)
        data = []
        for idx in self.indices():
            x = self.world(idx)
            data.extend(float(p(x)) for p in leaves)
        if real == "float":
            data = [nrrd.f32(v) for v in data]
        comp = []
        kinds = []
        if shp:
            if tuple(shp) not in KINDS:
                raise ValueError("no NRRD kind for an image of shape %s" % shp)
            comp = [len(leaves)]
            kinds = [KINDS[tuple(shp)]]
        n = nrrd.Nrrd(real, comp + self.sizes, data, kinds=kinds + ["space"] * self.d,
                      space_dim=self.d,
                      space_directions=([None] if shp else [])
                      + [tuple(qdec(self.M[r][c]) for r in range(self.d)) for c in range(self.d)],
                      space_origin=tuple(qdec(o) for o in self.origin))
        return n

    def write(self, path, field, real="float", encoding="raw"):
        nrrd.write(path, self.sample(field, real), encoding)


# ------------------------------------------------------- probe point sets

def lattice(org, step, counts):
    """Points org + step*(i0, i1, ...) for the iterators of a program's
    `create_array { P(i...) | i_slowest in 0..n-1, ..., i_fastest in ... }`.
    counts are given fastest first (NRRD order: axis 1 is counts[0]); the
    points come in NRRD order too (the fastest iterator varies first).
    Each point is a list of Fractions; org and step are dyadic."""
    d = len(org)
    pts = []
    idx = [()]
    for n in counts:
        idx = [t + (i,) for i in range(n) for t in idx]
    for t in idx:
        pts.append([Q(org[a]) + Q(step) * t[a] for a in range(d)])
    return pts


def dyadic(x, bits=12):
    """A dyadic rational near x (multiple of 2^-bits), exact in float."""
    return Q(round(x * 2 ** bits), 2 ** bits)


# --------------------------------------------------------------- kernels
# Right halves of the kernels of doc/language.md §6.2 (transcribed independently
# of src/common/kernel.c): pieces[k] is the polynomial in u = |x| on
# [k, k+1), as coefficient lists, constant term first.

def _binom_piece(c, n, div):
    """Coefficients of (c − u)^n / div."""
    return [Q(math.comb(n, k) * c ** (n - k) * (-1) ** k, div) for k in range(n + 1)]


KERNELS = {
    "tent": [[Q(1), Q(-1)]],
    "ctmr": [[Q(1), Q(0), Q(-5, 2), Q(3, 2)], [Q(2), Q(-4), Q(5, 2), Q(-1, 2)]],
    "bspln3": [[Q(2, 3), Q(0), Q(-1), Q(1, 2)], _binom_piece(2, 3, 6)],
    "bspln5": [[Q(11, 20), Q(0), Q(-1, 2), Q(0), Q(1, 4), Q(-1, 12)],
               [Q(17, 40), Q(5, 8), Q(-7, 4), Q(5, 4), Q(-3, 8), Q(1, 24)],
               _binom_piece(3, 5, 120)],
    "c4hexic": [[Q(69, 80), Q(0), Q(-23, 16), Q(0), Q(19, 16), Q(-7, 12), Q(1, 16)],
                [Q(3, 160), Q(35, 8), Q(-341, 32), Q(10), Q(-147, 32), Q(25, 24), Q(-3, 32)],
                [Q(1539, 160), Q(-189, 8), Q(747, 32), Q(-12), Q(109, 32), Q(-61, 120),
                 Q(1, 32)]],
}
KERNELS["c1tent"] = KERNELS["c2tent"] = KERNELS["tent"]
KERNELS["c2ctmr"] = KERNELS["ctmr"]

# Degree of the polynomials each kernel reconstructs exactly from samples.
REPRODUCES = {"tent": 1, "c1tent": 1, "c2tent": 1, "ctmr": 2, "c2ctmr": 2,
              "bspln3": 1, "bspln5": 1, "c4hexic": 3}
SUPPORT = {k: len(v) for k, v in KERNELS.items()}


def _poly_deriv(c, j):
    for _ in range(j):
        c = [k * c[k] for k in range(1, len(c))] or [Q(0)]
    return c


def border_map(mode, i, n):
    """The border-control index maps of doc/language.md §6.4 (mode clamp,
    wrap or mirror; n the axis size), for oracles of probes outside."""
    if mode == "clamp":
        return 0 if i < 0 else n - 1 if i >= n else i
    if mode == "wrap":
        if i < 0:
            return (n - 1) + int(math.fmod(i + 1, n))   # C remainder
        return i % n
    if i < 0:   # mirror
        i = -1 - i
    if i < n:
        return i
    q, r = i // n, i % n
    return r if q % 2 == 0 else n - 1 - r


def kernel_eval(name, x, j=0):
    """h^(j)(x) (as a float when x is a float, exact for a Fraction)."""
    pieces = KERNELS[name]
    u = abs(x)
    k = int(math.floor(u))
    if k >= len(pieces):
        return 0 * x
    c = _poly_deriv(pieces[k], j)
    v = 0 * x
    for a in reversed(c):
        v = v * u + (a if isinstance(x, Q) else float(a))
    return -v if (j % 2 == 1 and x < 0) else v


def reconstruct(img, grid, kernel, x, order=0):
    """Probe img ⊛ kernel at world point x per §8.4, in double precision,
    independently of the compiler: returns the value (order 0), the
    world-space gradient (order 1) or Hessian (order 2) as nested lists,
    one entry per image component (scalar images: no component level)."""
    d = grid.d
    s = SUPPORT[kernel]
    p = [float(v) for v in grid.index(x)]
    n = [int(math.floor(v)) for v in p]
    f = [v - k for v, k in zip(p, n)]
    C = img.count() // math.prod(grid.sizes)
    W = [[float(v) for v in row] for row in grid.W]
    taps = range(1 - s, s + 1)
    # index-space derivative multi-indices for this order
    if order == 0:
        multis = [()]
    elif order == 1:
        multis = [(a,) for a in range(d)]
    else:
        multis = [(a, b) for a in range(d) for b in range(d)]
    idx_res = {}
    for m in multis:
        cnt = [m.count(a) for a in range(d)]
        acc = [0.0] * C
        w1 = [[kernel_eval(kernel, f[a] - i, cnt[a]) for i in taps] for a in range(d)]

        def rec(a, off, w):
            if a < 0:
                for c in range(C):
                    acc[c] += w * img.data[c + C * off]
                return
            stride = math.prod(grid.sizes[:a])
            for ti, i in enumerate(taps):
                rec(a - 1, off + (n[a] + i) * stride, w * w1[a][ti])
        rec(d - 1, 0, 1.0)
        idx_res[m] = acc
    out = []
    for c in range(C):
        if order == 0:
            r = idx_res[()][c]
        elif order == 1:
            r = [sum(W[a][j] * idx_res[(a,)][c] for a in range(d)) for j in range(d)]
        else:
            r = [[sum(W[a][i] * W[b][j] * idx_res[(a, b)][c]
                      for a in range(d) for b in range(d)) for j in range(d)] for i in range(d)]
        out.append(r)
    return out[0] if C == 1 else out

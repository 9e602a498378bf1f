"""gen.py -- random, valid, small Diderot programs with exact oracles.

    /usr/bin/python3 tests/differential/gen.py SEED OUTDIR [--dialect 1|2]

writes OUTDIR/prog.diderot, the images it loads, and OUTDIR/oracle.json.

A program is built as a tree (class N); the same tree is printed in either
dialect (#version 1.0 or 2.0) and evaluated here by an interpreter of the
language's semantics (doc/language.md §5, §8, §10) that never looks at a compiler:

  * reals are mpmath numbers at 40 digits; ints are Python ints with the
    C rules (truncating /, % with the dividend's sign);
  * a field is a function from a world point to the truncated Taylor series
    (tps.py) of its components there; an image field's series comes from a
    direct evaluation of the convolution sums of §8.4 over the stored
    samples (border control per tap, §8.6), with the kernels of §5 taken
    from tests/oracle/polyfield.py; lifted operations are series arithmetic,
    derivatives differentiate the series;
  * strands run the BSP loop of §6.3 (start-of-step visibility for sphere
    queries, global update after the step, die/new in collections).

Images are polynomials (degree <= what the kernel reproduces) sampled on
rotated, anisotropic grids with exact decimal headers (polyfield.Grid), in
random sample types; probe points are dyadic.

Tolerances.  The interpreter is run once exactly and PERTURB_RUNS more times
with every rounding point of a float implementation (each arithmetic result,
each probe's position transform and convolution sum) perturbed by a random
relative amount of at most u (2^-24, or 2^-53 for --double).  The spread of
the perturbed runs around the exact value is a first-order estimate of how
far a correct float program can be from the exact value; the tolerance of
each output number is TOL_FACTOR times that spread plus 4u|exact|.  A
decision (comparison, floor, inside, sphere membership, a branch) that comes
out differently in a perturbed run, or an exact value too near a domain
boundary (sqrt of ~0, division by ~0, probe near a kernel-derivative
discontinuity), makes the program ill-conditioned: the generator discards it
and tries the next sub-seed, so every kept program has a well-defined answer.
"""

import itertools
import json
import math
import re
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
sys.path.insert(0, HERE)

import mpmath  # noqa: E402
from mpmath import mpf  # noqa: E402
from fractions import Fraction as Q  # noqa: E402

import nrrd  # noqa: E402
import polyfield as pf  # noqa: E402
from tps import TPS  # noqa: E402

mpmath.mp.dps = 40

PERTURB_RUNS = 3
TOL_FACTOR = 16
INT_LIMIT = 2 ** 31


class Fragile(Exception):
    """The program has no well-conditioned answer (or leaves the domain)."""


class Reject(Exception):
    """The generator made something it cannot evaluate: try another seed."""


# ------------------------------------------------------------ perturbation

class Ctx:
    rng = None       # random.Random in a perturbed run, None when exact
    u = 2.0 ** -24
    trace = None     # decisions of the exact run, checked by perturbed runs
    tpos = 0


CTX = Ctx()


def rd(x):
    """One rounding point of a float implementation."""
    if CTX.rng is not None:
        return x * (1 + CTX.u * (2 * CTX.rng.random() - 1))
    return x


def rd_abs(x, scale):
    """A rounding point whose error is absolute: scale·u, not |x|·u."""
    if CTX.rng is not None:
        return x + scale * CTX.u * (2 * CTX.rng.random() - 1)
    return x


def decide(v, margin_ok=True):
    """Record (exact run) or check (perturbed runs) a discrete decision."""
    if not margin_ok:
        raise Fragile("decision too close to its threshold")
    if CTX.rng is None:
        CTX.trace.append(v)
    else:
        if CTX.tpos >= len(CTX.trace) or CTX.trace[CTX.tpos] != v:
            raise Fragile("a perturbed run takes another branch")
        CTX.tpos += 1
    return v


REL_MARGIN = 1e-4   # decisions need |a-b| > REL_MARGIN·scale (float) / 1e-10 (double)


def margin():
    return 1e-4 if CTX.u > 1e-10 else 1e-11


# ------------------------------------------------------------------- types

INT = ("int",)
BOOL = ("bool",)
STR = ("string",)


def TEN(*s):
    return ("ten", tuple(s))


REAL = TEN()


def FLD(d, s, k):
    return ("fld", d, tuple(s), k)


def SEQ(t, n):
    return ("seq", t, n)


def tyname(t, dia):
    if t[0] in ("int", "bool", "string"):
        return t[0]
    if t[0] == "ten":
        s = t[1]
        if s == ():
            return "real"
        if len(s) == 1:
            return "vec%d" % s[0]
        return "tensor[%s]" % ",".join(map(str, s))
    if t[0] == "fld":
        return "field#%d(%d)[%s]" % (t[3], t[1], ",".join(map(str, t[2])))
    if t[0] == "seq":
        if t[2] is None:
            return tyname(t[1], dia) + ("[]" if dia == 2 else "{}")
        return tyname(t[1], dia) + ("[%d]" % t[2] if dia == 2 else "{%d}" % t[2])
    if t[0] == "img":
        return "image(%d)[%s]" % (t[1], ",".join(map(str, t[2])))
    raise ValueError(t)


def nprod(s):
    n = 1
    for x in s:
        n *= x
    return n


# ----------------------------------------------------------------- tensors

class Ten:
    __slots__ = ("s", "v")

    def __init__(self, s, v):
        self.s = tuple(s)
        self.v = list(v)

    def at(self, *idx):
        off = 0
        for i, n in zip(idx, self.s):
            off = off * n + i
        return self.v[off]


def tmap(f, *ts):
    return Ten(ts[0].s, [f(*xs) for xs in zip(*[t.v for t in ts])])


def indices(s):
    out = [()]
    for n in s:
        out = [t + (i,) for t in out for i in range(n)]
    return out


def contract(a_s, a_v, b_s, b_v, m, mul, add, zero):
    """Contract the last m indices of a with the first m of b."""
    alpha, mid, beta = a_s[:len(a_s) - m], a_s[len(a_s) - m:], b_s[m:]
    na, nm, nb = nprod(alpha), nprod(mid), nprod(beta)
    out = []
    for i in range(na):
        for j in range(nb):
            acc = zero
            for k in range(nm):
                acc = add(acc, mul(a_v[i * nm + k], b_v[k * nb + j]))
            out.append(acc)
    return alpha + beta, out


# ------------------------------------------------------------------- nodes

class N:
    """A node of a program tree: op, type t, children a, payload v."""
    __slots__ = ("op", "t", "a", "v")

    def __init__(self, op, t, a=(), v=None):
        self.op = op
        self.t = t
        self.a = list(a)
        self.v = v

    def __repr__(self):
        return "N(%s,%s,%r)" % (self.op, self.t, self.v)


BIN = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "dot": "•",
       "cross": "×", "outer": "⊗", "colon": ":", "lt": "<", "le": "<=",
       "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "and": "&&", "or": "||",
       "pow": "^", "conv": "⊛", "at": "@", "compose": "∘"}


def src(e, dia):
    """Diderot text of an expression (fully parenthesised)."""
    op = e.op
    S = lambda x: src(x, dia)  # noqa: E731
    if op == "var":
        return e.v
    if op == "lit":
        return e.v[0]
    if op in BIN:
        return "(%s %s %s)" % (S(e.a[0]), BIN[op], S(e.a[1]))
    if op == "neg":
        return "(-%s)" % S(e.a[0])
    if op == "not":
        return "(!%s)" % S(e.a[0])
    if op == "norm":
        inner = S(e.a[0])
        return "|(%s)|" % inner if inner.startswith("|") else "|%s|" % inner
    if op in ("call", "efield"):   # efield: evals/evecs of a field (an extension)
        return "%s(%s)" % (e.v, ", ".join(S(x) for x in e.a))
    if op == "probe":
        f = S(e.a[0])
        if e.a[0].op != "var":
            f = "(%s)" % f
        return "%s(%s)" % (f, S(e.a[1]))
    if op in ("grad", "jac", "div_", "curl"):
        sym = {"grad": "∇", "jac": "∇⊗", "div_": "∇•", "curl": "∇×"}[op]
        f = S(e.a[0])
        if e.a[0].op not in ("var", "grad", "jac", "div_", "curl"):
            f = "(%s)" % f
        return sym + f
    if op == "cond":
        return "(%s if %s else %s)" % (S(e.a[0]), S(e.a[1]), S(e.a[2]))
    if op == "isdbl":   # the built-in constant (an extension)
        return "real_is_double"
    if op == "index":
        base = S(e.a[0])
        # 2.0 takes no suffix on identity/zeros/real(...) (both compilers'
        # grammars); 1.0 makes them atoms, so there the bare form is kept.
        if dia == 2 and e.a[0].op in ("identity", "zeros", "realc", "load"):
            base = "(%s)" % base
        return "%s[%s]" % (base, ",".join(":" if i is None else str(i) for i in e.v))
    if op == "dindex":   # a[e, :, 2]: "d" takes the next index expression (an extension)
        base = S(e.a[0])
        if dia == 2 and e.a[0].op in ("identity", "zeros", "realc", "load"):
            base = "(%s)" % base
        ix = iter(e.a[1:])
        return "%s[%s]" % (base, ",".join(":" if i is None else S(next(ix)) if i == "d" else str(i)
                                          for i in e.v))
    if op == "seqidx":
        return "%s[%s]" % (S(e.a[0]), S(e.a[1]))
    if op == "tcons":
        return "[%s]" % ", ".join(S(x) for x in e.a)
    if op == "seqlit":
        return "{%s}" % ", ".join(S(x) for x in e.a)
    if op == "realc":
        return "real(%s)" % S(e.a[0])
    if op == "intc":
        return "int(%s)" % S(e.a[0])
    if op == "ipow":
        return "((%s)^(%s))" % (S(e.a[0]), S(e.a[1]))
    if op == "reduce":
        name, var, lo, hi = e.v
        return "%s{%s | %s in %s..%s}" % (name, S(e.a[0]), var, S(lo), S(hi))
    if op == "reduce_seq":
        name, var, seq = e.v
        return "%s{%s | %s in %s}" % (name, S(e.a[0]), var, seq)
    if op == "mreduce":   # several iterators (an extension): (name, [(var, lo, hi), ...])
        name, its = e.v
        return "%s{%s | %s}" % (name, S(e.a[0]), ", ".join("%s in %s..%s" % (k, S(lo), S(hi))
                                                             for k, lo, hi in its))
    if op == "sreduce":   # reduction over a strand set: (name, var, set)
        name, var, sset = e.v
        return "%s{%s | %s in S.%s}" % (name, S(e.a[0]), var, sset)
    if op == "select":
        return "%s.%s" % (S(e.a[0]), e.v)
    if op == "identity":
        return "identity[%d]" % e.v
    if op == "zeros":
        return "zeros[%s]" % ",".join(map(str, e.v))
    if op == "load":
        return ('load_image("%s")' if dia == 2 else 'image("%s")') % e.v
    if op == "border":
        return "%s(%s)" % (e.v, S(e.a[0]))
    if op == "bapply":   # b(img) of a border input (an extension)
        return "%s(%s)" % (S(e.a[0]), S(e.a[1]))
    if op == "iquery":   # world_min(img) ... sample_max(img), an extension
        return "%s(%s)" % (e.v, S(e.a[0]))
    if op == "inside":
        return "inside(%s, %s)" % (S(e.a[0]), S(e.a[1]))
    raise ValueError(op)


# ------------------------------------------------------------------ images

def image_query(fn, img):
    """world_min / world_max: over the 2^d corner samples' exact world
    positions (the file's directions and origin are exact decimals of the
    grid's rationals); sample_min / sample_max: over the samples written,
    per component (doc/language.md §6.1). One rounding to the real type."""
    if fn.startswith("world"):
        g = img.grid
        pts = [g.world(list(idx)) for idx in itertools.product(*[(0, n - 1) for n in g.sizes])]
        pick = min if fn == "world_min" else max
        res = [rd(mpf(Q(pick(p[r] for p in pts)).numerator) / Q(pick(p[r] for p in pts)).denominator)
               for r in range(g.d)]
        return res[0] if g.d == 1 else Ten((g.d,), res)
    pick = min if fn == "sample_min" else max
    res = [rd(mpf(pick(img.data[c::img.C]))) for c in range(img.C)]
    return res[0] if not img.shape else Ten(img.shape, res)


class Img:
    """A generated image: grid (polyfield.Grid), shape, sample type, data."""

    def __init__(self, name, grid, shape, stype, data, fname):
        self.name = name
        self.grid = grid
        self.d = grid.d
        self.shape = tuple(shape)
        self.C = nprod(shape)
        self.stype = stype
        self.data = data
        self.fname = fname
        self.W = [[mpf(x.numerator) / x.denominator for x in row] for row in grid.W]
        self.o = [mpf(x.numerator) / x.denominator for x in grid.origin]
        self.Wabs = [[abs(x) for x in row] for row in self.W]

    def nrrd(self):
        kinds = [pf.KINDS[self.shape]] if self.shape else []
        comp = [self.C] if self.shape else []
        g = self.grid
        return nrrd.Nrrd(self.stype, comp + g.sizes, self.data,
                         kinds=kinds + ["space"] * self.d, space_dim=self.d,
                         space_directions=([None] if self.shape else [])
                         + [tuple(pf.qdec(g.M[r][c]) for r in range(self.d)) for c in range(self.d)],
                         space_origin=tuple(pf.qdec(o) for o in g.origin))


TRUE_CONT = {"tent": 0, "c1tent": 0, "c2tent": 0, "ctmr": 1, "c2ctmr": 1,
             "bspln3": 2, "bspln5": 4, "c4hexic": 4}
DECL_CONT = {"tent": 0, "c1tent": 1, "c2tent": 2, "ctmr": 1, "c2ctmr": 2,
             "bspln3": 2, "bspln5": 4, "c4hexic": 4}


def border_index(mode, i, n):
    if 0 <= i < n:
        return i
    if mode is None:
        raise Fragile("probe outside the image without border control")
    if mode == "clamp":
        return 0 if i < 0 else n - 1
    if mode == "mirror":
        if i < 0:
            i = -1 - i
        if i < n:
            return i
        q, r = divmod(i, n)
        return r if q % 2 == 0 else n - 1 - r
    if mode == "wrap":
        return i % n
    raise ValueError(mode)


_KCACHE = {}
# Significant digits of the kernel coefficients (None: exact). known.py sets
# 12, the original's printing (D2), to recompute a program as the original's
# generated code evaluates it.
KERNEL_DIGITS = None


def kern_coeffs(name, j):
    """Pieces of the j-th derivative of the kernel's right half, as floats
    (exact, or rounded to KERNEL_DIGITS as the original prints them)."""
    key = (name, j, KERNEL_DIGITS)
    if key not in _KCACHE:
        if KERNEL_DIGITS is None:
            conv = float
        else:
            def conv(c):
                return float("%.*g" % (KERNEL_DIGITS, float(c)))
        _KCACHE[key] = [[conv(c) for c in pf._poly_deriv(p, j)] for p in pf.KERNELS[name]]
    return _KCACHE[key]


def _kern_exact(name, j):
    """The same pieces as mpf: the exact rationals at 40 digits, or the
    KERNEL_DIGITS floats. For the exact run."""
    key = ("mpf", name, j, KERNEL_DIGITS)
    if key not in _KCACHE:
        if KERNEL_DIGITS is None:
            _KCACHE[key] = [[mpf(c.numerator) / c.denominator for c in pf._poly_deriv(p, j)]
                            for p in pf.KERNELS[name]]
        else:
            _KCACHE[key] = [[mpf(c) for c in piece] for piece in kern_coeffs(name, j)]
    return _KCACHE[key]


def _kern_shifted(name, j):
    """Piece k as a polynomial in t = u - k in [0, 1) (exact Taylor shift,
    then floats): how a float implementation evaluates a tap without the
    cancellation of c4hexic's outer pieces in u (|coefficients| sum to
    ~1000 at u = 2.5 for a value of ~0.01; seed 29200)."""
    key = ("shift", name, j)
    if key not in _KCACHE:
        out = []
        for k, p in enumerate(pf.KERNELS[name]):
            c = pf._poly_deriv(p, j)
            q = []
            for m in range(len(c)):
                q.append(float(sum(c[n] * math.comb(n, m) * Q(k) ** (n - m) for n in range(m, len(c)))))
            out.append(q)
        _KCACHE[key] = out
    return _KCACHE[key]


def kern_eval(name, x, j):
    """The j-th derivative of the kernel at x. Exact run: the pieces in mpf
    at x (mpf). Perturbed runs: Horner in t = |x| - k on the shifted piece,
    plus the rounding of that evaluation, (degree + 1) u sum|q_m| t^m
    absolute, which the 8 u sum|w v| of the tap sum does not cover for a
    small weight with large coefficients."""
    if CTX.rng is None:
        pieces = _kern_exact(name, j)
        u = abs(x)
        k = int(mpmath.floor(u))
        if k >= len(pieces):
            return mpf(0)
        v = mpf(0)
        for a in reversed(pieces[k]):
            v = v * u + a
        return -v if (j % 2 == 1 and x < 0) else v
    pieces = _kern_shifted(name, j)
    u = abs(float(x))
    k = int(math.floor(u))
    if k >= len(pieces):
        return 0.0
    t = u - k
    v = 0.0
    habs = 0.0
    for a in reversed(pieces[k]):
        v = v * t + a
        habs = habs * t + abs(a)
    v = rd_abs(v, len(pieces[k]) * habs)
    return -v if (j % 2 == 1 and x < 0) else v


def probe_image(img, kern, border, x, K):
    """Taylor series (per component) in world offsets of img ⊛ kern at x."""
    d = img.d
    s = pf.SUPPORT[kern]
    p = []
    for a in range(d):
        acc = mpf(0)
        sc = mpf(0)
        for b in range(d):
            acc += img.W[a][b] * (x[b] - img.o[b])
            sc += img.Wabs[a][b] * (abs(x[b]) + abs(img.o[b]))
        if CTX.rng is not None:
            acc += sc * CTX.u * 4 * (2 * CTX.rng.random() - 1)
        p.append(acc)
    n = [int(mpmath.floor(v)) for v in p]
    exact = CTX.rng is None
    # the exact run keeps the fraction (and the weights and sums below) in
    # mpf: an oracle for double, too, not one more double implementation
    f = [v - k if exact else float(v - k) for v, k in zip(p, n)]
    if K > TRUE_CONT[kern]:
        for fa in f:
            if min(fa, 1 - fa) < margin() * 10:
                raise Fragile("probe near a discontinuity of a kernel derivative")
    if border is None:
        for a in range(d):
            if n[a] + 1 - s < 0 or n[a] + s > img.grid.sizes[a] - 1:
                raise Fragile("probe outside the image")
            if n[a] + 1 - s == 0 and f[a] < margin() or n[a] + s == img.grid.sizes[a] - 1 and f[a] > 1 - margin():
                raise Fragile("probe at the edge of the image")
    taps = list(range(1 - s, s + 1))
    sizes = img.grid.sizes
    C = img.C
    # gather the neighbourhood once
    idxs = [[border_index(border, n[a] + i, sizes[a]) for i in taps] for a in range(d)]
    multis = [m for m in pf_multis(d, K)]
    D = {}
    zero = mpf(0) if exact else 0.0
    for m in multis:
        w = [[kern_eval(kern, f[a] - i, m[a]) for i in taps] for a in range(d)]
        acc = [zero] * C
        sabs = [0.0] * C   # perturbed runs: the taps' magnitudes
        for tap in _tapgrid(d, len(taps)):
            wt = 1
            off = 0
            stride = 1
            for a in range(d):
                wt *= w[a][tap[a]]
                off += idxs[a][tap[a]] * stride
                stride *= sizes[a]
            if wt == 0.0:
                continue
            base = off * C
            if exact:
                for c in range(C):
                    acc[c] += wt * img.data[base + c]
                continue
            for c in range(C):
                v = wt * img.data[base + c]
                acc[c] += v
                sabs[c] += abs(v)
        vals = []
        for c in range(C):
            v = mpf(acc[c])
            if CTX.rng is not None:
                v += CTX.u * 8 * sabs[c] * (2 * CTX.rng.random() - 1)
            vals.append(v)
        D[m] = vals
    # index-space series -> world series: dp_a = sum_b W[a][b] dx_b
    lin = []
    for a in range(d):
        t = TPS(d, K, {})
        for b in range(d):
            e = [0] * d
            e[b] = 1
            if K >= 1:
                t.c[tuple(e)] = rd(img.W[a][b])
        lin.append(t)
    out = []
    for c in range(C):
        r = TPS(d, K, {})
        for m in multis:
            term = TPS.const(d, K, D[m][c] / math.prod(math.factorial(k) for k in m))
            for a in range(d):
                for _ in range(m[a]):
                    term = term * lin[a]
            r = r + term
        out.append(r)
    return out


_TG = {}


def _tapgrid(d, n):
    key = (d, n)
    if key not in _TG:
        _TG[key] = indices((n,) * d)
    return _TG[key]


def pf_multis(d, K):
    from tps import monos
    return monos(d, K)


# ------------------------------------------------------------------ fields

class Fld:
    """A field value: fn(x, K) -> list of TPS (one per component);
    imgs: {image name: (Img, largest support)} for inside()."""
    __slots__ = ("d", "s", "fn", "imgs")

    def __init__(self, d, s, fn, imgs):
        self.d = d
        self.s = tuple(s)
        self.fn = fn
        self.imgs = imgs


def merge_imgs(*fs):
    r = {}
    for f in fs:
        for k, (img, s) in f.imgs.items():
            if k not in r or r[k][1] < s:
                r[k] = (img, s)
    return r


def tps_rd(t):
    if CTX.rng is None:
        return t
    return t.map(rd)


# -------------------------------------------------------------- scalar ops
# Work on mpf numbers and on TPS alike.

def is_t(x):
    return isinstance(x, TPS)


def R(x):
    return tps_rd(x) if is_t(x) else rd(x)


def v0(x):
    return x.v0() if is_t(x) else x


def s_sqrt(x):
    a = v0(x)
    if a < mpf(10) ** -6 * (1 if not is_t(x) else 1):
        raise Fragile("sqrt of a small or negative value")
    return R(x.apply("sqrt") if is_t(x) else mpmath.sqrt(x))


def s_recip(x):
    a = v0(x)
    if abs(a) < mpf(10) ** -3:
        raise Fragile("division by a small value")
    return R(x.apply("recip") if is_t(x) else 1 / x)


def s_fun(name, x):
    a = v0(x)
    if name in ("asin", "acos") and abs(a) > 0.999:
        raise Fragile("asin/acos near ±1")
    if name == "tan" and abs(mpmath.cos(a)) < 0.01:
        raise Fragile("tan near a pole")
    if name == "exp" and abs(a) > 30:
        raise Fragile("exp overflow risk")
    if name == "sqrt":
        return s_sqrt(x)
    if is_t(x):
        return R(x.apply(name))
    return R(getattr(mpmath, name)(x))


def s_div(a, b):
    if is_t(a) or is_t(b):
        return R(a * s_recip(b)) if is_t(b) else R(a / b)
    if abs(b) < mpf(10) ** -3:
        raise Fragile("division by a small value")
    return R(a / b)


def cmp_real(a, b):
    d = a - b
    sc = max(abs(a), abs(b), mpf(1))
    return abs(d) > margin() * sc


def cint(v):
    if not -INT_LIMIT <= v < INT_LIMIT:
        raise Fragile("int overflow")
    return v


def cdiv(a, b):
    if b == 0:
        raise Fragile("int division by zero")
    q = abs(a) // abs(b)
    return cint(q if (a >= 0) == (b >= 0) else -q)


def cmod(a, b):
    if b == 0:
        raise Fragile("int modulo by zero")
    return a - b * cdiv(a, b)


# tensor algebra on flat lists of scalars (mpf or TPS)

def l_contract(sa, a, sb, b, m):
    def add(x, y):
        return R(x + y) if not (isinstance(x, int) and x == 0) else y
    return contract(sa, a, sb, b, m, lambda x, y: R(x * y), add, 0)


def l_cross(a, b):
    if len(a) == 2:
        return [R(R(a[0] * b[1]) - R(a[1] * b[0]))]
    return [R(R(a[1] * b[2]) - R(a[2] * b[1])), R(R(a[2] * b[0]) - R(a[0] * b[2])),
            R(R(a[0] * b[1]) - R(a[1] * b[0]))]


def l_norm(a):
    acc = 0
    for x in a:
        acc = R(acc + R(x * x))
    if len(a) == 1:
        x = a[0]
        if abs(v0(x)) < mpf(10) ** -6:
            raise Fragile("|x| near 0")
        return x if v0(x) > 0 else R(-x)
    return s_sqrt(acc)


def l_det(n, a):
    if n == 2:
        return R(R(a[0] * a[3]) - R(a[1] * a[2]))
    m = lambda i, j: a[3 * i + j]  # noqa: E731
    t0 = R(m(0, 0) * R(R(m(1, 1) * m(2, 2)) - R(m(1, 2) * m(2, 1))))
    t1 = R(m(0, 1) * R(R(m(1, 0) * m(2, 2)) - R(m(1, 2) * m(2, 0))))
    t2 = R(m(0, 2) * R(R(m(1, 0) * m(2, 1)) - R(m(1, 1) * m(2, 0))))
    return R(R(t0 - t1) + t2)


def l_inv(n, a):
    det = l_det(n, a)
    sc = max(abs(v0(x)) for x in a) ** n
    if abs(v0(det)) < mpf(10) ** -3 * max(sc, mpf(1)):
        raise Fragile("inverse of a nearly singular matrix")
    r = s_recip(det)
    if n == 2:
        adj = [a[3], -a[1], -a[2], a[0]]
    else:
        m = lambda i, j: a[3 * i + j]  # noqa: E731
        adj = []
        for i in range(3):
            for j in range(3):
                # cofactor C[j][i]
                rr = [x for x in range(3) if x != j]
                cc = [x for x in range(3) if x != i]
                c = R(R(m(rr[0], cc[0]) * m(rr[1], cc[1])) - R(m(rr[0], cc[1]) * m(rr[1], cc[0])))
                adj.append(c if (i + j) % 2 == 0 else -c)
    return [R(x * r) for x in adj]


def l_trace(n, a):
    acc = 0
    for i in range(n):
        acc = R(acc + a[i * n + i]) if not (isinstance(acc, int)) else a[i * n + i]
    return acc


def l_transpose(s, a):
    r, c = s
    return [a[j * c + i] for i in range(c) for j in range(r)]


def evals_sym(n, a):
    m = mpmath.matrix(n, n)
    for i in range(n):
        for j in range(n):
            m[i, j] = a[min(i, j) * n + max(i, j)]
    ev = sorted(mpmath.eigsy(m)[0], reverse=True)
    sc = max(max(abs(x) for x in ev), mpf(1))
    for i in range(n - 1):
        if abs(ev[i] - ev[i + 1]) < 1e-3 * sc:
            raise Fragile("nearly repeated eigenvalues")
    # A backward-stable eigensolver's error in an eigenvalue is absolute,
    # about u·|A| (|A| = the largest |eigenvalue|), not relative to the
    # eigenvalue: seed 15483's middle eigenvalue 0.077 of a matrix of norm
    # 3.5 came out 2.6e-7 off in float (13246 alike), where a relative
    # perturbation allowed 1.4e-7. Scaled by n as for the eigenvectors.
    return [rd_abs(x, n * sc) for x in ev]


# -------------------------------------------------------------- evaluator

class ImgVal:
    __slots__ = ("img", "border")

    def __init__(self, img, border=None):
        self.img = img
        self.border = border


class Env:
    __slots__ = ("vars", "parent")

    def __init__(self, parent=None):
        self.vars = {}
        self.parent = parent

    def get(self, n):
        e = self
        while e is not None:
            if n in e.vars:
                return e.vars[n]
            e = e.parent
        raise KeyError(n)

    def set(self, n, v):
        e = self
        while e is not None:
            if n in e.vars:
                e.vars[n] = v
                return
            e = e.parent
        raise KeyError(n)


def apply_op(shape, args, f):
    """f maps flat component lists (mpf or TPS) to a flat list; lifted to
    fields when an argument is a field."""
    flds = [a for a in args if isinstance(a, Fld)]
    if not flds:
        return Ten(shape, f(*[a.v for a in args]))
    d = flds[0].d

    def fn(x, K):
        vals = [a.fn(x, K) if isinstance(a, Fld) else [TPS.const(d, K, v) for v in a.v]
                for a in args]
        return f(*vals)
    return Fld(d, shape, fn, merge_imgs(*flds))


def shp(v):
    return v.s


def as_ten(v):
    return v if isinstance(v, (Ten, Fld)) else Ten((), [v])


class Prog:
    pass


class Strand:
    __slots__ = ("st", "status", "fresh", "params")

    def __init__(self):
        self.st = {}
        self.status = "active"
        self.fresh = True


MATH1 = ("sqrt", "sin", "cos", "tan", "atan", "asin", "acos", "exp")
MATHR = ("floor", "ceil", "round", "trunc", "log", "log2", "log10", "erf", "erfc")


def round_fn(name, x):
    frac = x - mpmath.floor(x)
    if name == "round":
        if abs(frac - mpf(0.5)) < margin():
            raise Fragile("round near .5")
    elif min(frac, 1 - frac) < margin() * max(abs(x), 1):
        raise Fragile("%s near an integer" % name)
    if name == "floor":
        return mpmath.floor(x)
    if name == "ceil":
        return mpmath.ceil(x)
    if name == "trunc":
        return mpmath.floor(x) if x >= 0 else mpmath.ceil(x)
    return mpmath.floor(x + mpf(0.5)) if x >= 0 else -mpmath.floor(-x + mpf(0.5))


def ev(e, env, P):
    op = e.op
    A = e.a
    if op == "lit":
        return e.v[1]
    if op == "var":
        return env.get(e.v)
    if op in ("and", "or"):
        a = ev(A[0], env, P)
        if (op == "and") != a:
            return a
        return ev(A[1], env, P)
    if op == "cond":
        if A[1].op == "isdbl":   # both branches are one tree (Gen's "isdbl"): either
            return ev(A[0], env, P)
        c = ev(A[1], env, P)
        return ev(A[0] if c else A[2], env, P)
    if op == "reduce":
        name, var, lo, hi = e.v
        lo = ev(lo, env, P)
        hi = ev(hi, env, P)
        vals = []
        for k in range(lo, hi + 1):
            sub = Env(env)
            sub.vars[var] = k
            vals.append(ev(A[0], sub, P))
        return reduce_vals(name, vals, e.t)
    if op == "reduce_seq":
        name, var, seq = e.v
        vals = []
        for k in env.get(seq):
            sub = Env(env)
            sub.vars[var] = k
            vals.append(ev(A[0], sub, P))
        return reduce_vals(name, vals, e.t)
    if op == "mreduce":   # nested loops, the first iterator outermost (language.md §5.6)
        name, its = e.v
        vals = []

        def nest(j, env_):
            if j == len(its):
                vals.append(ev(A[0], env_, P))
                return
            k, lo, hi = its[j]
            for x in range(ev(lo, env_, P), ev(hi, env_, P) + 1):
                sub = Env(env_)
                sub.vars[k] = x
                nest(j + 1, sub)
        nest(0, env)
        return reduce_vals(name, vals, e.t)
    if op == "sreduce":
        name, var, sset = e.v
        vals = []
        for s in P.strand_set(sset):
            sub = Env(env)
            sub.vars[var] = s
            vals.append(ev(A[0], sub, P))
        return reduce_vals(name, vals, e.t)
    if op == "call" and e.v in P.funcs:
        params, body = P.funcs[e.v]
        sub = Env(P.genv)
        for (pt, pn), a in zip(params, A):
            sub.vars[pn] = coerce(ev(a, env, P), pt)
        return coerce(ev(body, sub, P), e.t)
    args = [ev(a, env, P) for a in A]
    return unwrap(ev_op(e, op, args, P))


def coerce(v, t):
    if t == REAL and isinstance(v, int) and not isinstance(v, bool):
        return mpf(v)
    return v


def reduce_vals(name, vals, t):
    if t == INT:
        if name == "sum":
            return cint(sum(vals))
        if name == "product":
            r = 1
            for v in vals:
                r = cint(r * v)
            return r
        if name == "max":
            return max(vals) if vals else -2 ** 31
        if name == "min":
            return min(vals) if vals else 2 ** 31 - 1
    if t == BOOL:
        return all(vals) if name == "all" else any(vals)
    if name in ("sum", "mean"):
        acc = mpf(0)
        for v in vals:
            acc = rd(acc + v)
        if name == "mean":
            if not vals:
                raise Fragile("mean of nothing")
            acc = rd(acc / len(vals))
        return acc
    if name == "product":
        acc = mpf(1)
        for v in vals:
            acc = rd(acc * v)
        return acc
    if name in ("max", "min"):
        if not vals:
            return mpmath.inf if name == "min" else -mpmath.inf
        best = vals[0]
        for v in vals[1:]:
            if v != best:
                decide(v > best, cmp_real(v, best))
            if (v > best) == (name == "max"):
                best = v
        return best
    raise ValueError(name)


def ev_op(e, op, args, P):
    t = e.t
    if op in ("add", "sub"):
        a, b = args
        if t == INT:
            return cint(a + b if op == "add" else a - b)
        a, b = as_ten(a), as_ten(b)
        sign = 1 if op == "add" else -1
        return apply_op(t[1] if t[0] == "ten" else t[2], [a, b],
                        lambda x, y: [R(p + sign * q) for p, q in zip(x, y)])
    if op == "neg":
        a = args[0]
        if t == INT:
            return cint(-a)
        a = as_ten(a)
        return apply_op(a.s, [a], lambda x: [-p for p in x])
    if op == "mul":
        a, b = args
        if t == INT:
            return cint(a * b)
        a, b = as_ten(a), as_ten(b)
        if a.s == ():
            return apply_op(b.s, [a, b], lambda x, y: [R(x[0] * q) for q in y])
        return apply_op(a.s, [a, b], lambda x, y: [R(p * y[0]) for p in x])
    if op == "div":
        a, b = args
        if t == INT:
            return cdiv(a, b)
        a, b = as_ten(a), as_ten(b)
        return apply_op(a.s, [a, b], lambda x, y: [s_div(p, y[0]) for p in x])
    if op == "mod":
        return cmod(*args)
    if op == "at":
        a, b = args
        return (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b])
    if op == "pow":
        a, b = as_ten(args[0]), args[1]

        def pw(x):
            r = x[0]
            for _ in range(b - 1):
                r = R(r * x[0])
            return [r]
        return apply_op((), [a], pw)
    if op in ("dot", "colon", "outer", "cross"):
        a, b = as_ten(args[0]), as_ten(args[1])
        rs = t[1] if t[0] == "ten" else t[2]
        if op == "outer":
            return apply_op(rs, [a, b], lambda x, y: [R(p * q) for p in x for q in y])
        if op == "cross":
            return apply_op(rs, [a, b], l_cross)
        m = 1 if op == "dot" else 2
        sa, sb = a.s, b.s
        return apply_op(rs, [a, b], lambda x, y: l_contract(sa, x, sb, y, m)[1])
    if op in ("lt", "le", "gt", "ge", "eq", "ne"):
        a, b = args
        f = {"lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y,
             "ge": lambda x, y: x >= y, "eq": lambda x, y: x == y, "ne": lambda x, y: x != y}[op]
        if isinstance(a, mpmath.mpf) or isinstance(b, mpmath.mpf):
            return decide(f(a, b), cmp_real(mpf(a), mpf(b)))
        return f(a, b)
    if op == "not":
        return not args[0]
    if op == "norm":
        a = args[0]
        if isinstance(a, int):
            return cint(abs(a))
        a = as_ten(a)
        return apply_op((), [a], lambda x: [l_norm(x)])
    if op == "realc":
        return mpf(args[0])
    if op == "intc":    # toward zero; a value near an integer is fragile
        if not mpmath.isfinite(args[0]):   # min/max of nothing (empty ranges of reduce_multi)
            raise Fragile("int of a non-finite real")
        return cint(int(round_fn("trunc", args[0])))
    if op == "ipow":    # int power; n < 0: the reciprocal toward zero
        a, n = args
        if n < 0:
            return 1 if a == 1 else ((-1) ** (n % 2) if a == -1 else 0)
        return cint(a ** n)
    if op == "tcons":
        if any(isinstance(a, Fld) for a in args):
            args = [as_ten(a) for a in args]
            return apply_op(t[2], args, lambda *xs: [c for x in xs for c in x])
        args = [as_ten(a) for a in args]
        return Ten(t[1], [c for a in args for c in a.v])
    if op == "seqlit":
        return list(args)
    if op == "seqidx":
        s, i = args
        if not 0 <= i < len(s):
            raise Fragile("sequence index out of range")
        return s[i]
    if op in ("index", "dindex"):
        sel = e.v
        if op == "dindex":   # a tensor index that is an int expression
            if isinstance(args[0], Fld):
                raise Reject("a variable index of a field")
            ix = iter(args[1:])
            sel = [next(ix) if i == "d" else i for i in sel]
            for i, n in zip(sel, as_ten(args[0]).s):
                if i is not None and not 0 <= i < n:
                    raise Fragile("tensor index out of range")
        a = as_ten(args[0])
        src_s = a.s
        keep = [n for n, i in zip(src_s, sel) if i is None]
        picks = []
        for idx in indices(tuple(keep)):
            it = iter(idx)
            full = [next(it) if i is None else i for i in sel]
            off = 0
            for i, n in zip(full, src_s):
                off = off * n + i
            picks.append(off)
        res = apply_op(tuple(keep), [a], lambda x: [x[o] for o in picks])
        if isinstance(res, Ten) and res.s == ():
            return res.v[0]
        return res
    if op == "identity":
        n = e.v
        return Ten((n, n), [mpf(1) if i == j else mpf(0) for i in range(n) for j in range(n)])
    if op == "zeros":
        return Ten(e.v, [mpf(0)] * nprod(e.v))
    if op == "load":
        return ImgVal(next(i for i in P.images.values() if i.fname == e.v))
    if op == "border":
        return ImgVal(args[0].img, e.v)
    if op == "bapply":   # args[0]: the border input's mode (its default)
        return ImgVal(args[1].img, args[0])
    if op == "iquery":
        return image_query(e.v, args[0].img)
    if op == "conv":
        iv, kern = args
        if isinstance(kern, ImgVal):
            iv, kern = kern, iv
        img, bd = iv.img, iv.border
        s = pf.SUPPORT[kern]
        return Fld(img.d, img.shape, lambda x, K: probe_image(img, kern, bd, x, K),
                   {img.name: (img, s)})
    if op == "probe":
        F, x = args
        xs = x.v if isinstance(x, Ten) else [x]
        comps = F.fn(xs, 0)
        vals = [c.v0() for c in comps]
        if F.s == ():
            return vals[0]
        return Ten(F.s, vals)
    if op == "inside":
        x, F = args
        xs = x.v if isinstance(x, Ten) else [x]
        ok = True
        for img, s in F.imgs.values():
            for a in range(img.d):
                p = sum(img.W[a][b] * (xs[b] - img.o[b]) for b in range(img.d))
                lo_ok = p > s - 1
                hi_ok = p < img.grid.sizes[a] - s
                if abs(p - (s - 1)) < margin() * 10 or abs(p - (img.grid.sizes[a] - s)) < margin() * 10:
                    raise Fragile("inside() at its boundary")
                ok = ok and lo_ok and hi_ok
        return decide(ok)
    if op in ("grad", "jac", "div_", "curl"):
        F = args[0]
        d = F.d

        def deriv_fn(x, K):
            comps = F.fn(x, K + 1)
            if op in ("grad", "jac"):
                return [c.deriv(i) for c in comps for i in range(d)]
            if op == "div_":
                n = F.s[-1]
                out = []
                for a in range(len(comps) // n):
                    acc = comps[a * n].deriv(0)
                    for i in range(1, n):
                        acc = tps_rd(acc + comps[a * n + i].deriv(i))
                    out.append(acc)
                return out
            if d == 2:
                return [tps_rd(comps[1].deriv(0) - comps[0].deriv(1))]
            c = comps
            return [tps_rd(c[2].deriv(1) - c[1].deriv(2)), tps_rd(c[0].deriv(2) - c[2].deriv(0)),
                    tps_rd(c[1].deriv(0) - c[0].deriv(1))]
        return Fld(d, t[2], deriv_fn, F.imgs)
    if op == "call":
        return ev_call(e, e.v, args, P)
    if op == "efield":
        return eigen_field(e, args[0], P)
    if op == "compose":
        return compose_field(args[0], args[1])
    if op == "select":
        return args[0].st[e.v]
    raise ValueError(op)


def c_fmod(x, y):
    """C's fmod (language.md §10): x − trunc(x/y)·y, with the sign of x.
    mpmath.fmod takes the sign of y (seed 10321: both compilers gave
    −0.5932 where mpmath.fmod gave 0.3770 = −0.5932 + y)."""
    q = x / y
    t = mpmath.floor(q) if q >= 0 else mpmath.ceil(q)
    return x - t * y


def ev_call(e, name, args, P):
    t = e.t
    if name in MATH1 and len(args) == 1:
        a = as_ten(args[0])
        return unwrap(apply_op((), [a], lambda x: [s_fun(name, x[0])]))
    if name in MATHR:
        x = args[0]
        if name in ("floor", "ceil", "round", "trunc"):
            return round_fn(name, x)
        if name.startswith("log") and x < mpf(10) ** -3:
            raise Fragile("log of a small value")
        f = {"log": mpmath.log, "log2": lambda v: mpmath.log(v, 2), "log10": mpmath.log10,
             "erf": mpmath.erf, "erfc": mpmath.erfc}[name]
        return rd(f(x))
    if name == "atan2":
        y, x = args
        if abs(x) < 1e-3 and abs(y) < 1e-3:
            raise Fragile("atan2 near the origin")
        if x < 0 and abs(y) < 1e-3:
            raise Fragile("atan2 near its branch cut")
        return rd(mpmath.atan2(y, x))
    if name == "pow":
        x, y = args
        if x < 1e-3:
            raise Fragile("pow of a small or negative base")
        return rd(mpmath.power(x, y))
    if name == "fmod":
        x, y = args
        if abs(y) < 1e-3:
            raise Fragile("fmod by ~0")
        q = x / y
        if min(abs(q - mpmath.floor(q)), abs(mpmath.ceil(q) - q)) < margin() * max(abs(q), 1):
            raise Fragile("fmod near a multiple")
        return rd(c_fmod(x, y))
    if name in ("min", "max"):
        a, b = args
        if isinstance(a, int) and isinstance(b, int) and t == INT:
            return min(a, b) if name == "min" else max(a, b)
        a, b = mpf(a), mpf(b)
        if a != b:
            decide(a < b, cmp_real(a, b))
        return min(a, b) if name == "min" else max(a, b)
    if name == "normalize":
        a = as_ten(args[0])

        def nz(x):
            n = l_norm(x)
            return [s_div(p, n) for p in x]
        return apply_op(a.s, [a], nz)
    if name == "det":
        a = as_ten(args[0])
        return unwrap(apply_op((), [a], lambda x: [l_det(a.s[0], x)]))
    if name == "trace":
        a = as_ten(args[0])
        return unwrap(apply_op((), [a], lambda x: [l_trace(a.s[0], x)]))
    if name == "transpose":
        a = as_ten(args[0])
        return apply_op((a.s[1], a.s[0]), [a], lambda x: l_transpose(a.s, x))
    if name == "inv":
        a = as_ten(args[0])
        if a.s == ():
            return unwrap(apply_op((), [a], lambda x: [s_recip(x[0])]))
        return apply_op(a.s, [a], lambda x: l_inv(a.s[0], x))
    if name == "modulate":
        a, b = as_ten(args[0]), as_ten(args[1])
        return apply_op(a.s, [a, b], lambda x, y: [R(p * q) for p, q in zip(x, y)])
    if name == "lerp":
        a, b, u = as_ten(args[0]), as_ten(args[1]), args[2]
        return unwrap(Ten(a.s, [R(p + R(u * R(q - p))) for p, q in zip(a.v, b.v)]))
    if name == "clamp":
        lo, hi, x = args
        x = as_ten(x)
        out = []
        for v in x.v:
            if v != lo and v != hi:
                decide(v <= lo, cmp_real(v, lo))
                decide(hi <= v, cmp_real(v, hi))
            out.append(lo if v <= lo else hi if hi <= v else v)
        return unwrap(Ten(x.s, out))
    if name == "evals":
        a = as_ten(args[0])
        return evals_sym(a.s[0], a.v)
    if name == "evecs":
        a = as_ten(args[0])
        n = a.s[0]
        evals_sym(n, a.v)     # the checks: distinct eigenvalues
        m = mpmath.matrix(n, n)
        for i in range(n):
            for j in range(n):
                m[i, j] = a.v[min(i, j) * n + max(i, j)]
        E, Qm = mpmath.eigsy(m)
        order = sorted(range(n), key=lambda i: -E[i])
        # An eigensolver's error in a unit eigenvector is absolute (relative
        # to its norm 1, scaled by |A|/gap), not relative to each component:
        # seed 10768 squared a component of 0.0024 whose 2e-8 float error
        # is normal, and a relative perturbation made the tolerance 5e-11.
        lams = [E[i] for i in range(n)]
        gap = min(abs(lams[i] - lams[j]) for i in range(n) for j in range(i + 1, n))
        scale = n * max(abs(l) for l in lams) / gap if gap > 0 else 1
        return [Ten((n,), [rd_abs(Qm[r, c], scale) for r in range(n)]) for c in order]
    if name == "length":
        return len(args[0])
    raise ValueError(name)


def compose_field(F, G):
    """F ∘ G (an extension, language.md §6.6): F's series at y = G(x),
    composed with G's to first order, the chain rule (the generator never
    asks for more: a composition has continuity at most 1)."""
    def fn(x, K):
        if K > 1:
            raise ValueError("a second derivative of a composition")
        gs = G.fn(x, K)
        ys = [g.v0() for g in gs]
        fs = F.fn(ys, K)
        out = []
        for f in fs:
            t = TPS.const(G.d, K, f.v0())
            for k in range(F.d):
                e = [0] * F.d
                e[k] = 1
                fk = f.c.get(tuple(e), 0)
                if K >= 1 and fk:
                    t = t + (gs[k] - gs[k].v0()) * fk
            out.append(tps_rd(t))
        return out
    return Fld(G.d, F.s, fn, merge_imgs(F, G))


def eigen_field(e, F, P):
    """evals(F) / evecs(F) of a field of symmetric matrices (an extension,
    language.md §6.6): at each x, the tensor evals/evecs of F(x) as a
    vector, or the eigenvectors as the rows of a matrix; constant series
    (no derivatives: the generator never differentiates them)."""
    n = F.s[0]

    def fn(x, K):
        m = Ten((n, n), [c.v0() for c in F.fn(x, 0)])
        vals = ev_call(e, e.v, [m], P)
        flat = vals if e.v == "evals" else [c for v in vals for c in v.v]
        return [TPS.const(F.d, K, v) for v in flat]
    return Fld(F.d, (n,) if e.v == "evals" else (n, n), fn, F.imgs)


def unwrap(v):
    if isinstance(v, Ten) and v.s == ():
        return v.v[0]
    return v


# --------------------------------------------------------------- generator

KERNELS = ["tent", "ctmr", "bspln3", "bspln5", "c4hexic", "c1tent", "c2tent", "c2ctmr"]
SAMPLE_TYPES = ["float"] * 6 + ["double", "double", "short", "unsigned char", "int"]


def lit_real(r, lo=-16, hi=16, den=8):
    q = Q(r.randint(lo, hi), den)
    txt = pf.qdec(q)
    if "." not in txt:
        txt += ".0"
    if txt.startswith("-"):
        txt = "(" + txt + ")"
    return N("lit", REAL, v=(txt, mpf(q.numerator) / q.denominator))


def lit_int(r, lo=0, hi=9):
    k = r.randint(lo, hi)
    return N("lit", INT, v=(str(k) if k >= 0 else "(%d)" % k, k))


def lit_bool(r):
    b = r.random() < 0.5
    return N("lit", BOOL, v=("true" if b else "false", b))


def lit_ten(r, s):
    if s == ():
        return lit_real(r)
    return N("tcons", TEN(*s), [lit_ten(r, s[1:]) for _ in range(s[0])])


def var(name, t):
    return N("var", t, v=name)


class Gen:
    def __init__(self, seed, dialect=None, ext=False):
        self.seed = seed
        # ext: also the extensions of the language (doc/differences.md,
        # "Language extensions"), which the original rejects: such programs
        # are judged by the oracle alone (run.py --ext)
        self.ext = ext
        r = self.r = random.Random(seed)
        self.dia = dialect or r.choice([1, 2])
        self.D = r.choice([1, 1, 2, 2, 2, 2, 3, 3])
        self.wide = r.random() < 0.25      # border control on every image
        self.nchoices = 1                  # combinations of kernel and border inputs
        self.no_compose = False
        # rank-3 tensors and fields (outer products, ∇⊗ of matrix fields,
        # slices and contractions back to lower ranks) in a third of the
        # programs: they multiply a program's size
        # (drawn apart, so that the programs without them stay as they were)
        self.rank3 = random.Random("rank3/%d" % seed).random() < 0.33
        # outputs of dynamic-sequence type (real[], vec2[]: two NRRDs each,
        # lengths and data) in a quarter of the programs, drawn apart too
        self.dynout = random.Random("dynout/%d" % seed).random() < 0.25
        # constructs that the original is known to fail on (doc/differences.md,
        # "Defects of the original found by differential testing") hide
        # everything else in a program: only a few programs get them
        self.ref_defects = r.random() < 0.08
        self.images = {}
        self.img_shapes = [()] + ([(self.D,)] if self.D > 1 else [])
        if self.D == 2 or self.D == 3 and r.random() < 0.25:   # 3-D matrix images make big programs
            self.img_shapes.append((self.D, self.D))
        self.decls = []          # (kind, type, name, node or None)
        self.fieldvars = {}      # memo key -> name
        self.funcs = []          # (rettype, name, params, body)
        self.gvars = []          # (name, type) readable values in strand code
        self.cvars = []          # constant-ish globals usable in global initialisers
        self.n = 0
        self.depth_budget = 0

    def fresh(self, p):
        self.n += 1
        return "%s%d" % (p, self.n)

    # ------------------------------------------------------------ images
    def make_image(self, shape):
        r = self.r
        D = self.D
        name = self.fresh("img")
        sizes = [r.randint(8, 12) for _ in range(D)]
        spac = []
        for n in sizes:
            need = (0.5 * math.sqrt(D) + 0.45) / ((n - 1) / 2 - 3)
            need *= 1 + r.random() * 0.5
            spac.append(Q(math.ceil(need * 8), 8))
        rot = D > 1 and r.random() < 0.7
        g = pf.Grid.centered(sizes, spac, rotate=rot)
        shift = [Q(r.randint(-2, 2), 16) for _ in range(D)]
        g = pf.Grid(sizes, g.M, [o + s for o, s in zip(g.origin, shift)])
        stype = r.choice(SAMPLE_TYPES)
        # polynomials in x/L, L a power of two near the grid's extent, so
        # that sample values stay O(1..10) over the whole image
        ext = max(abs(float(v)) for idx in (g.indices()[0], g.indices()[-1]) for v in g.world(idx))
        L = 2 ** max(0, math.ceil(math.log2(max(ext, 1))))
        xs = [v / L for v in pf.variables(D)]
        comps = nprod(shape)
        polys = []
        for _ in range(comps):
            p = pf.Poly.const(D, Q(r.randint(-8, 8), 4))
            deg = r.choice([1, 1, 2, 2, 3])
            for _ in range(r.randint(1, 4)):
                m = pf.Poly.const(D, Q(r.randint(-6, 6), 4))
                for _ in range(r.randint(1, deg)):
                    m = m * xs[r.randrange(D)]
                p = p + m
            polys.append(p)
        data = []
        scale = 1
        if stype in ("short", "int"):
            scale = 100
        elif stype == "unsigned char":
            scale = 10
        for idx in g.indices():
            x = g.world(idx)
            for p in polys:
                v = float(p(x))
                if stype == "float":
                    v = nrrd.f32(v)
                elif stype != "double":
                    v = int(round(v * scale))
                    if stype == "unsigned char":
                        v = min(255, max(0, v + 128))
                data.append(v)
        img = Img(name, g, shape, stype, data, name + ".nrrd")
        self.images[name] = img
        kind = "input" if self.r.random() < 0.3 else "global"
        self.decls.append((kind, ("img", D, shape), name, N("load", None, v=img.fname)))
        return img

    def image_queries(self, PT):
        """Globals q = world_min(img) ... sample_max(img) of an image made
        here (an extension, global code only): later code may read them."""
        r = self.r
        img = self.make_image(r.choice(self.img_shapes))
        for _ in range(r.randint(1, 2)):
            fn = r.choice(["world_min", "world_max", "sample_min", "sample_max"])
            t = PT if fn.startswith("world") else (TEN(*img.shape) if img.shape else REAL)
            n = self.fresh("q")
            # 2.0: also as an input whose default is computed (an extension)
            kind = "cinput" if self.dia == 2 and r.random() < 0.4 else "global"
            self.decls.append((kind, t, n, N("iquery", t, [var(img.name, ("img", self.D, img.shape))],
                                               v=fn)))
            self.scope.append((n, t))

    def base_field(self, s, k, border_always=False):
        r = self.r
        imgs = [i for i in self.images.values() if i.shape == s]
        if not imgs or (len(imgs) < 2 and r.random() < 0.15):
            img = self.make_image(s)
        else:
            img = r.choice(imgs)
        kerns = [kk for kk in KERNELS if DECL_CONT[kk] >= k]
        kern = r.choice(kerns)
        border = r.choice(["clamp", "mirror", "wrap"]) if self.wide or border_always else None
        key = (img.name, kern, border, k)
        if key not in self.fieldvars:
            name = self.fresh("F")
            ie = var(img.name, ("img", self.D, s))
            # (each method is compiled once per combination of the choices
            # it uses: keep the product small)
            if border and self.ext and r.random() < 0.4 and self.nchoices * 3 <= 24:
                self.nchoices *= 3
                # border control chosen at run time (an extension): the
                # default is the one the program runs with
                bname = self.fresh("B")
                self.decls.append(("binput", ("border",), bname, var(border, ("border",))))
                ie = N("bapply", ("img", self.D, s), [var(bname, ("border",)), ie])
            elif border:
                ie = N("border", ("img", self.D, s), [ie], v=border)
            kv = var(kern, ("kernel",))
            kc = r.randint(k, DECL_CONT[kern])
            nk = sum(1 for kk in KERNELS if DECL_CONT[kk] >= kc)
            if self.ext and r.random() < 0.3 and self.nchoices * nk <= 24:
                self.nchoices *= nk
                # a kernel input (an extension) of a continuity between the
                # field's k and the kernel's: kern is one of its choices,
                # and its default (so any branch of the dispatch is taken)
                kname = self.fresh("K")
                self.decls.append(("kinput", ("kernel", kc), kname, kv))
                kv = var(kname, ("kernel",))
            conv = N("conv", FLD(self.D, s, DECL_CONT[kern]), [ie, kv] if r.random() < 0.8 else [kv, ie])
            self.decls.append(("global", FLD(self.D, s, k), name, conv))
            self.fieldvars[key] = name
        return var(self.fieldvars[key], FLD(self.D, s, k))

    # ------------------------------------------------------------ fields
    def fld(self, s, k, depth):
        r = self.r
        D = self.D
        t = FLD(D, s, k)
        opts = []
        if s in self.img_shapes:
            opts += ["base"] * 4
        if depth > 0 and k < 3:
            if s in self.img_shapes:
                opts += ["add", "sub", "neg", "scale", "addt"]
            if s != () and s in self.img_shapes:
                opts += ["smul"]
            if (s == (D,) and D > 1) or (s == () and D == 1):
                opts += ["grad"] * 2
            if D > 1 and s == (D, D):
                opts += ["jac"]
            if (D == 2 and s == ()) or (D == 3 and s == (3,)):
                opts += ["curl"]
            if D > 1 and s == ():
                opts += ["dotvv", "norm", "slice", "det", "trace"]
            if s == ():
                opts += ["lift", "pow"]
            if D > 1 and s == (D,):
                opts += ["dotmv", "normalize", "slice", "tcons"]
            if D > 1 and s == (D, D):
                opts += ["transpose", "outer"]
                if self.rank3 and k < 2:
                    opts += ["slice3"]
            if D > 1 and s == (D, D, D):
                opts += ["jac", "outer3", "add", "neg", "scale"]
            if self.ext and k == 0 and D > 1 and s in ((), (D,), (D, D)):
                opts += ["efield"] * 4   # evals/evecs of a field (an extension)
            if self.ext and k <= 1 and self.dia == 2 and not self.no_compose and s in self.img_shapes:
                opts += ["compose"] * 2   # F ∘ G (an extension, 2.0)
        if not opts and D > 1 and s == (D, D):
            return N("outer", t, [self.fld((D,), k, 0), self.fld((D,), k, 0)])
        if not opts and D > 1 and s == (D, D, D):
            return N("outer", t, [self.fld((D,), k, 0), self.fld((D, D), k, 0)])
        if not opts:
            raise Reject("no field of shape %s" % (s,))
        o = r.choice(opts)
        sub = lambda s2, k2=k: self.fld(s2, k2, depth - 1)  # noqa: E731
        if o == "base":
            return self.base_field(s, k)
        if o in ("add", "sub"):
            return N(o, t, [sub(s), sub(s)])
        if o == "neg":
            return N("neg", t, [sub(s)])
        if o == "scale":
            c = lit_real(r, 1, 24, 8) if r.random() < 0.5 else lit_real(r, -24, -1, 8)
            f = sub(s)
            if r.random() < 0.4:
                return N("div", t, [f, c])
            return N("mul", t, [c, f] if r.random() < 0.5 else [f, c])
        if o == "addt":
            return N("add", t, [sub(s), lit_ten(r, s)])
        if o == "smul":
            return N("mul", t, [sub(()), sub(s)])
        if o == "grad":
            return N("grad", t, [sub((), k + 1)])
        if o == "jac":
            return N("jac", t, [sub(s[:-1], k + 1)])
        if o == "outer3":
            if r.random() < 0.5:
                return N("outer", t, [sub((D,)), sub((D, D))])
            return N("outer", t, [sub((D, D)), sub((D,))])
        if o == "slice3":
            sel = [None, None, None]
            sel[r.randrange(3)] = r.randrange(D)
            return N("index", t, [sub((D, D, D))], v=sel)
        if o == "curl":
            return N("curl", t, [sub((D,), k + 1)])
        if o == "dotvv":
            return N("dot", t, [sub((D,)), sub((D,))])
        if o == "dotmv":
            if r.random() < 0.5:
                return N("dot", t, [sub((D, D)), sub((D,))])
            return N("dot", t, [sub((D,)), sub((D, D))])
        if o == "norm":
            return N("norm", t, [sub(r.choice([(D,), (D, D)]))])
        if o == "slice":
            if s == ():
                src_s = r.choice([(D,), (D, D)])
            else:
                src_s = (D, D)
            f = sub(src_s)
            if src_s == (D,):
                sel = [r.randrange(D)]
            elif s == ():
                sel = [r.randrange(D), r.randrange(D)]
            else:
                sel = [r.randrange(D), None] if r.random() < 0.5 else [None, r.randrange(D)]
            return N("index", t, [f], v=sel)
        if o in ("det", "trace"):
            return N("call", t, [sub((D, D))], v=o)
        if o == "lift":
            fn = r.choice(["sqrt", "sin", "cos", "exp", "atan"])
            inner = sub(())
            if fn == "exp":
                inner = N("mul", FLD(D, (), k), [lit_real(r, 1, 3, 8), inner])
            if fn == "sqrt":
                inner = N("add", FLD(D, (), k), [N("mul", FLD(D, (), k), [inner, inner]),
                                                 lit_real(r, 4, 16, 8)])
            return N("call", t, [inner], v=fn)
        if o == "pow":
            return N("pow", t, [sub(()), N("lit", INT, v=("2", 2))])
        if o == "normalize":
            return N("call", t, [sub((D,))], v="normalize")
        if o == "compose":
            # F border-controlled, so that it is defined wherever G takes x
            F = self.base_field(s, k, border_always=True)
            return N("compose", t, [F, sub(() if D == 1 else (D,))])
        if o == "efield":
            # of M + transpose(M), symmetric; a component of evals(S), evals(S),
            # or e ⊗ e of a row e of evecs(S) (sign-free)
            m = sub((D, D))
            ft = FLD(D, (D, D), k)
            sym = N("add", ft, [m, N("call", ft, [m], v="transpose")])
            kk = r.randrange(D)
            if s == (D, D):
                row = N("index", FLD(D, (D,), 0),
                        [N("efield", FLD(D, (D, D), 0), [sym], v="evecs")], v=[kk, None])
                return N("outer", t, [row, row])
            ev = N("efield", FLD(D, (D,), 0), [sym], v="evals")
            return ev if s == (D,) else N("index", t, [ev], v=[kk])
        if o == "tcons":
            return N("tcons", t, [sub(()) for _ in range(D)])
        if o == "transpose":
            return N("call", t, [sub((D, D))], v="transpose")
        if o == "outer":
            return N("outer", t, [sub((D,)), sub((D,))])
        raise ValueError(o)

    # ----------------------------------------------------------- tensors
    def pos_expr(self):
        r = self.r
        D = self.D
        p = var("pos", TEN() if D == 1 else TEN(D))
        if r.random() < 0.7:
            return p
        off = lit_real(r, -2, 2, 16) if D == 1 else N("tcons", TEN(D), [lit_real(r, -2, 2, 16) for _ in range(D)])
        return N("add", p.t, [p, off])

    def vars_of(self, t):
        return [n for n, tt in self.scope if tt == t]

    def ex(self, t, depth):
        if t[0] == "seq" and t[2] is None:
            # a dynamic sequence: a literal of 0-3 elements, maybe with `@`
            # (an empty one only as `{} @ e`: `{}` alone has no element type)
            n = self.r.randint(1, 3)
            e = N("seqlit", SEQ(t[1], n), [self.ex(t[1], depth) for _ in range(n)])
            if self.r.random() < 0.5:
                x = self.ex(t[1], depth)
                e = N("at", t, [e, x] if self.r.random() < 0.5 else [x, e])
            return e
        if t[0] == "seq":
            return N("seqlit", t, [self.ex(t[1], depth) for _ in range(t[2])])
        if t == INT:
            return self.ex_int(depth)
        if t == BOOL:
            return self.ex_bool(depth)
        return self.ex_ten(t[1], depth)

    def ex_ten(self, s, depth):
        r = self.r
        D = self.D
        t = TEN(*s)
        vs = self.vars_of(t)
        if depth <= 0:
            if vs and r.random() < 0.7:
                return var(r.choice(vs), t)
            if self.in_strand and r.random() < 0.5 and (s == () or s in self.img_shapes or s == (D,)):
                return self.probe(s, 0)
            return lit_ten(r, s)
        opts = ["var"] * (3 if vs else 0) + ["lit", "add", "sub", "neg", "scale", "cond"]
        if self.in_strand:
            opts += ["probe"] * 6
            if s in ((), (D,)) and D > 1:
                opts += ["divprobe"]
        if s == ():
            opts += ["dot", "norm", "math", "math", "realc", "minmax", "colon", "trace", "det",
                     "slice", "evals", "cross2", "reduce", "lerp", "clamp"]
        if len(s) == 1:
            opts += ["dotmv", "normalize", "modulate", "tcons", "slice", "lerp", "clamp"]
        if self.ext and len(s) <= 1:   # a[e] with an int expression e (an extension)
            opts += ["dslice"] * 3
        if self.ext:
            opts += ["isdbl"]
            if s == ():
                opts += ["reduce"] * 2   # several iterators (reduce_multi) often enough
            if s == (3,):
                opts += ["cross3"]
        if len(s) == 2:
            opts += ["outer", "dotmm", "transpose", "tcons", "identity"]
            if s[0] == s[1]:
                opts += ["inv", "evecs"]
            if self.rank3:
                opts += ["slice3", "dot3v"]
        if len(s) == 1 and self.rank3:
            opts += ["colon3"]
        if len(s) == 3:
            opts += ["tcons", "outer3", "outer3"]
        if self.funcs_of(t):
            opts += ["call", "call"]
        seqs = [n for n, tt in self.scope if tt[0] == "seq" and tt[1] == t]
        if seqs:
            opts += ["seqread"] * 2
        o = r.choice(opts)
        sub = lambda s2=s: self.ex_ten(s2, depth - 1)  # noqa: E731
        if o == "seqread":
            n = r.choice(seqs)
            st = dict(self.scope)[n]
            ln = N("call", INT, [var(n, st)], v="length")
            idx = N("mod", INT, [N("norm", INT, [self.ex_int(min(depth - 1, 1))]), ln])
            return N("seqidx", t, [var(n, st), idx])
        n2 = r.choice([2, 3])
        if o == "var":
            return var(r.choice(vs), t)
        if o == "lit":
            return lit_ten(r, s)
        if o in ("add", "sub"):
            return N(o, t, [sub(), sub()])
        if o == "neg":
            return N("neg", t, [sub()])
        if o == "scale":
            if s == ():
                a, b = sub(), sub()
                return N(r.choice(["mul", "mul", "div"]), t, [a, b])
            a, b = sub(), sub(())
            w = r.random()
            return N("mul", t, [b, a]) if w < 0.4 else N("mul", t, [a, b]) if w < 0.7 else N("div", t, [a, b])
        if o == "cond":
            return N("cond", t, [sub(), self.ex_bool(depth - 1), sub()])
        if o == "isdbl":
            # (e if real_is_double else e): the oracle knows no precision, so
            # both branches are e; run/real_is_double* check the value
            a = sub()
            return N("cond", t, [a, N("isdbl", BOOL), a])
        if o == "probe":
            return self.probe(s, depth)
        if o == "divprobe":
            k = 1
            F = self.fld(s + (D,), k, min(depth, 1))
            return N("probe", t, [N("div_", FLD(D, s, 0), [F]), self.pos_expr()])
        if o == "dot":
            return N("dot", t, [sub((n2,)), sub((n2,))])
        if o == "norm":
            return N("norm", t, [sub(r.choice([(2,), (3,), (2, 2), ()]))])
        if o == "math":
            fn = r.choice(["sqrt", "sin", "cos", "atan", "exp", "floor", "ceil", "round",
                           "trunc", "log", "atan2", "pow", "fmod", "erf", "tan", "asin",
                           "acos", "log2", "log10", "powi"])
            if fn in ("atan2", "pow", "fmod"):
                return N("call", t, [sub(), sub()], v=fn)
            if fn == "powi":
                kk = r.randint(1, 3)
                return N("pow", t, [sub(), N("lit", INT, v=(str(kk), kk))])
            return N("call", t, [sub()], v=fn)
        if o == "realc":
            return N("realc", t, [self.ex_int(depth - 1)])
        if o == "minmax":
            return N("call", t, [sub(), sub()], v=r.choice(["min", "max"]))
        if o == "colon":
            return N("colon", t, [sub((n2, n2)), sub((n2, n2))])
        if o in ("trace", "det"):
            return N("call", t, [sub((n2, n2))], v=o)
        if o == "slice":
            if s == ():
                src_s = r.choice([(n2,), (n2, n2), (2, 3)])
            else:
                src_s = r.choice([(s[0], n2), (n2, s[0])])
            a = sub(src_s)
            if s == ():
                sel = [r.randrange(x) for x in src_s]
            elif src_s[0] == s[0] and (src_s[1] != s[0] or r.random() < 0.5):
                sel = [None, r.randrange(src_s[1])]
            else:
                sel = [r.randrange(src_s[0]), None]
            return N("index", t, [a], v=sel)
        if o == "dslice":
            if s == ():
                src_s = r.choice([(n2,), (n2, n2), (2, 3)] + ([(n2, 2, 2)] if self.rank3 else []))
                sel = [r.randrange(x) for x in src_s]
            else:
                src_s = r.choice([(s[0], n2), (n2, s[0])])
                k = 0 if src_s[0] == s[0] and (src_s[1] != s[0] or r.random() < 0.5) else 1
                sel = [r.randrange(src_s[0]), None] if k == 1 else [None, r.randrange(src_s[1])]
            a = sub(src_s)
            dyn = [j for j, i in enumerate(sel) if i is not None]
            pick_ = [j for j in dyn if r.random() < 0.6] or [r.choice(dyn)]
            ixs = []
            for j in pick_:   # |e| % n: inside the axis unless |e| overflows (the oracle checks)
                sel[j] = "d"
                ixs.append(N("mod", INT, [N("norm", INT, [self.ex_int(min(depth - 1, 2))]),
                                          lit_int(r, src_s[j], src_s[j])]))
            return N("dindex", t, [a] + ixs, v=sel)
        if o == "evals":
            m = sub((n2, n2))
            sym = N("add", TEN(n2, n2), [m, N("call", TEN(n2, n2), [m], v="transpose")])
            ev_ = N("call", SEQ(REAL, n2), [sym], v="evals")
            kk = r.randrange(n2)
            return N("seqidx", t, [ev_, N("lit", INT, v=(str(kk), kk))])
        if o == "cross2":
            return N("cross", t, [sub((2,)), sub((2,))])
        if o == "cross3":
            return N("cross", t, [sub((3,)), sub((3,))])
        if o == "reduce":
            return self.reduce_real(depth)
        if o == "lerp":
            return N("call", t, [sub(), sub(), sub(())], v="lerp")
        if o == "clamp":
            lo = lit_real(r, -16, 0)
            hi = lit_real(r, 1, 16)
            return N("call", t, [lo, hi, sub()], v="clamp")
        if o == "dotmv":
            if r.random() < 0.5:
                return N("dot", t, [sub((s[0], n2)), sub((n2,))])
            return N("dot", t, [sub((n2,)), sub((n2, s[0]))])
        if o == "normalize":
            return N("call", t, [sub()], v="normalize")
        if o == "modulate":
            return N("call", t, [sub(), sub()], v="modulate")
        if o == "tcons":
            return N("tcons", t, [sub(s[1:]) for _ in range(s[0])])
        if o == "outer":
            return N("outer", t, [sub((s[0],)), sub((s[1],))])
        if o == "outer3":
            if r.random() < 0.5:
                return N("outer", t, [sub((s[0],)), sub(s[1:])])
            return N("outer", t, [sub(s[:2]), sub((s[2],))])
        if o == "slice3":      # one index of a rank-3 tensor fixed
            ax = r.randrange(3)
            src_s = s[:ax] + (n2,) + s[ax:]
            sel = [None, None, None]
            sel[ax] = r.randrange(n2)
            return N("index", t, [sub(src_s)], v=sel)
        if o == "dot3v":
            if r.random() < 0.5:
                return N("dot", t, [sub(s + (n2,)), sub((n2,))])
            return N("dot", t, [sub((n2,)), sub((n2,) + s)])
        if o == "colon3":
            if r.random() < 0.5:
                return N("colon", t, [sub((s[0], n2, n2)), sub((n2, n2))])
            return N("colon", t, [sub((n2, n2)), sub((n2, n2, s[0]))])
        if o == "dotmm":
            return N("dot", t, [sub((s[0], n2)), sub((n2, s[1]))])
        if o == "transpose":
            return N("call", t, [sub((s[1], s[0]))], v="transpose")
        if o == "identity":
            if s[0] == s[1]:
                return N("identity", t, v=s[0])
            return N("zeros", t, v=s)
        if o == "inv":
            return N("call", t, [sub()], v="inv")
        if o == "evecs":
            # e ⊗ e does not depend on the sign of the eigenvector e
            n = s[0]
            m = sub((n, n))
            sym = N("add", TEN(n, n), [m, N("call", TEN(n, n), [m], v="transpose")])
            kk = r.randrange(n)
            e_ = N("seqidx", TEN(n), [N("call", SEQ(TEN(n), n), [sym], v="evecs"), N("lit", INT, v=(str(kk), kk))])
            return N("outer", t, [e_, e_])
        if o == "call":
            rt, name, params, _ = r.choice(self.funcs_of(t))
            return N("call", t, [self.ex(pt, depth - 1) for pt, _ in params], v=name)
        raise ValueError(o)

    def probe(self, s, depth):
        D = self.D
        r = self.r
        if s == (D, D, D) and D > 1:     # ∇⊗ of a matrix field, or an outer product
            F = self.fld(s, 0, max(1, min(depth, 2)))
            return N("probe", TEN(*s), [F, self.pos_expr()])
        if s not in self.img_shapes and s != (D,) and not (s == () and D > 1):
            return lit_ten(r, s)
        F = self.fld(s, 0, min(depth, 2) if r.random() < 0.6 else 0)
        return N("probe", TEN(*s), [F, self.pos_expr()])

    def multi_iters(self):
        """2 or 3 iterators k in lo..hi for a comprehension with several
        iterators (an extension, --ext): a later range may start or end at
        an earlier iterator (empty ranges included). The caller pushes the
        iterators on the scope for the body and pops them."""
        r = self.r
        its = []
        for _ in range(r.choice([2, 2, 3])):
            lo, hi = lit_int(r, -1, 2), lit_int(r, 1, 3)
            if its and r.random() < 0.5:
                p = var(r.choice(its)[0], INT)
                lo, hi = (p, hi) if r.random() < 0.5 else (lo, p)
            its.append((self.fresh("k"), lo, hi))
        return its

    def reduce_multi(self, t, depth):
        r = self.r
        its = self.multi_iters()
        for k, _, _ in its:
            self.scope.append((k, INT))
        ks = [var(k, INT) for k, _, _ in its]
        if t == INT:
            name = r.choice(["sum", "max", "min", "product"])
            body = N("add", INT, [N("mul", INT, [ks[0], ks[-1]]), self.ex_int(min(depth - 1, 1))])
        else:
            name = r.choice(["sum", "product", "max", "min", "mean"])
            body = N("mul", REAL, [N("realc", REAL, [N("sub", INT, [r.choice(ks), r.choice(ks)])]),
                                   self.ex_ten((), depth - 1)]) if r.random() < 0.5 else \
                N("realc", REAL, [N("add", INT, [N("mul", INT, [ks[0], ks[1]]), self.ex_int(0)])])
        for _ in its:
            self.scope.pop()
        return N("mreduce", t, [body], v=(name, its))

    def reduce_real(self, depth):
        r = self.r
        if self.ext and r.random() < 0.7:
            return self.reduce_multi(REAL, depth)
        name = r.choice(["sum", "product", "max", "min", "mean"])
        k = self.fresh("k")
        if self.dia == 2:
            self.scope.append((k, INT))
            body = N("realc", REAL, [N("add", INT, [var(k, INT), self.ex_int(min(depth - 1, 1))])]) \
                if r.random() < 0.5 else N("mul", REAL, [N("realc", REAL, [var(k, INT)]), self.ex_ten((), depth - 1)])
            self.scope.pop()
            lo = lit_int(r, 0, 2)
            hi = lit_int(r, 2, 4)
            return N("reduce", REAL, [body], v=(name, k, lo, hi))
        # 1.0: no ranges outside the creation clause; iterate over a global sequence
        if name == "mean" and not self.ref_defects:
            name = "sum"     # D4: mean over a fixed-size sequence breaks the original
        self.scope.append((k, REAL))
        body = N("mul", REAL, [var(k, REAL), self.ex_ten((), depth - 1)])
        self.scope.pop()
        return N("reduce_seq", REAL, [body], v=(name, k, "rs"))

    def funcs_of(self, t):
        return [f for f in self.funcs if f[0] == t and not self.in_func]

    def ex_int(self, depth):
        r = self.r
        vs = self.vars_of(INT)
        if depth <= 0:
            return var(r.choice(vs), INT) if vs and r.random() < 0.6 else lit_int(r)
        o = r.choice(["var"] * (3 if vs else 0) + ["lit", "add", "sub", "mul", "div", "mod",
                                                    "neg", "abs", "minmax", "cond", "ireduce"]
                     + (["intc", "intc", "ireduce"] if self.ext else []))
        sub = lambda: self.ex_int(depth - 1)  # noqa: E731
        if o == "intc":   # int(x), toward zero
            return N("intc", INT, [self.ex_ten((), depth - 1)])
        if o == "var":
            return var(r.choice(vs), INT)
        if o == "lit":
            return lit_int(r)
        if o in ("add", "sub", "mul"):
            return N(o, INT, [sub(), sub()])
        if o in ("div", "mod"):
            return N(o, INT, [sub(), lit_int(r, 1, 5) if r.random() < 0.7 else N("lit", INT, v=("(-3)", -3))])
        if o == "neg":
            return N("neg", INT, [sub()])
        if o == "abs":
            return N("norm", INT, [sub()])
        if o == "minmax":
            return N("call", INT, [sub(), sub()], v=r.choice(["min", "max"]))
        if o == "cond":
            return N("cond", INT, [sub(), self.ex_bool(depth - 1), sub()])
        if o == "ireduce":
            if self.ext and r.random() < 0.7:
                return self.reduce_multi(INT, depth)
            if self.dia == 1:
                if not self.ref_defects:    # D6: length() is unsigned in the original
                    return lit_int(r)
                return N("call", INT, [var("ks", SEQ(INT, 4))], v="length")
            k = self.fresh("k")
            self.scope.append((k, INT))
            body = N("mul", INT, [var(k, INT), self.ex_int(0)])
            self.scope.pop()
            return N("reduce", INT, [body], v=(r.choice(["sum", "max", "min", "product"]), k,
                                               lit_int(r, 0, 2), lit_int(r, 1, 3)))
        raise ValueError(o)

    def ex_bool(self, depth):
        r = self.r
        vs = self.vars_of(BOOL)
        if depth <= 0:
            if vs and r.random() < 0.5:
                return var(r.choice(vs), BOOL)
            return N(r.choice(["lt", "ge"]), BOOL, [self.ex_int(0), self.ex_int(0)])
        opts = ["var"] * (2 if vs else 0) + ["lit", "icmp", "icmp", "rcmp", "rcmp", "and", "or", "not"]
        if self.in_strand:
            opts += ["inside"]
        if self.vars_of(STR):
            opts += ["scmp"]
        if self.dia == 2 and self.ref_defects:
            opts += ["breduce"]
        o = r.choice(opts)
        if o == "var":
            return var(r.choice(vs), BOOL)
        if o == "lit":
            return lit_bool(r)
        if o == "icmp":
            return N(r.choice(["lt", "le", "gt", "ge", "eq", "ne"]), BOOL,
                     [self.ex_int(depth - 1), self.ex_int(depth - 1)])
        if o == "rcmp":
            return N(r.choice(["lt", "le", "gt", "ge"]), BOOL,
                     [self.ex_ten((), depth - 1), self.ex_ten((), depth - 1)])
        if o in ("and", "or"):
            return N(o, BOOL, [self.ex_bool(depth - 1), self.ex_bool(depth - 1)])
        if o == "not":
            return N("not", BOOL, [self.ex_bool(depth - 1)])
        if o == "scmp":
            w = r.choice(["a", "bc", "xyz"])
            return N(r.choice(["eq", "ne"]), BOOL, [var(r.choice(self.vars_of(STR)), STR),
                                                    N("lit", STR, v=('"%s"' % w, w))])
        if o == "inside":
            s = r.choice(self.img_shapes)
            self.no_compose = True    # inside(x, F ∘ G) is refused
            f = self.fld(s, 0, 1)
            self.no_compose = False
            return N("inside", BOOL, [self.pos_expr(), f])
        if o == "breduce":
            k = self.fresh("k")
            self.scope.append((k, INT))
            body = N(r.choice(["lt", "gt"]), BOOL, [var(k, INT), self.ex_int(0)])
            self.scope.pop()
            return N("reduce", BOOL, [body], v=(r.choice(["all", "exists"]), k, lit_int(r, 0, 1),
                                                lit_int(r, 1, 3)))
        raise ValueError(o)

    # ------------------------------------------------------------ program
    def build(self):
        r = self.r
        D = self.D
        dia = self.dia
        self.scope = []
        self.in_strand = False
        self.in_func = False
        self.version_line = dia == 2 or r.random() < 0.5
        self.coll = r.random() < 0.65
        PT = REAL if D == 1 else TEN(D)
        if self.coll:
            self.npts = r.randint(3, 24)
            self.grid_ab = None
        else:
            self.grid_ab = (r.randint(2, 5), r.randint(2, 5))
            self.npts = self.grid_ab[0] * self.grid_ab[1]
        box = 3 if self.wide else 1
        pts = []
        for _ in range(self.npts):
            c = [Q(r.randint(-8 * box, 8 * box), 16) for _ in range(D)]
            pts.append(lit_real(r) if False else (N("lit", REAL, v=(_dec(c[0]), _mq(c[0]))) if D == 1 else
                       N("tcons", PT, [N("lit", REAL, v=(_dec(x), _mq(x))) for x in c])))
        self.pts_node = N("seqlit", SEQ(PT, self.npts), pts)
        self.decls.append(("global", SEQ(PT, self.npts), "pts", self.pts_node))
        self.decls.append(("global", SEQ(REAL, 4), "rs", N("seqlit", SEQ(REAL, 4), [lit_real(r) for _ in range(4)])))
        self.decls.append(("global", SEQ(INT, 4), "ks", N("seqlit", SEQ(INT, 4), [lit_int(r) for _ in range(4)])))
        if dia == 2 and r.random() < 0.5:
            t = r.choice([REAL, INT, TEN(2)])
            n = self.fresh("c")
            self.decls.append(("const", t, n, self.ex(t, 0)))
            self.scope.append((n, t))
        for _ in range(r.randint(0, 2)):
            t = r.choice([REAL, INT, BOOL, TEN(2), TEN(3)])
            n = self.fresh("in")
            if t[0] == "ten":   # 1.0 input defaults: no parenthesised negatives
                lit = lit_ten(r, t[1]) if dia == 2 else _pos_ten(r, t[1])
            else:
                lit = lit_int(r) if t == INT else lit_bool(r)
            self.decls.append(("input", t, n, lit))
            self.scope.append((n, t))
        if r.random() < 0.3:
            n = self.fresh("str")
            w = r.choice(["a", "bc", "xyz"])
            self.decls.append((r.choice(["input", "global"]), STR, n, N("lit", STR, v=('"%s"' % w, w))))
            self.scope.append((n, STR))
        if self.ext and r.random() < 0.5:
            self.image_queries(PT)
        for _ in range(r.randint(0, 2)):
            t = r.choice([REAL, INT, TEN(2), TEN(3), TEN(2, 2), BOOL])
            n = self.fresh("g")
            self.decls.append(("global", t, n, self.ex(t, 2)))
            self.scope.append((n, t))
        if self.ext and dia == 2 and r.random() < 0.4:
            # an input whose default reads what is declared before it (an
            # extension); the programs run with every input at its default
            t = r.choice([REAL, INT, TEN(2), BOOL])
            n = self.fresh("ci")
            self.decls.append(("cinput", t, n, self.ex(t, 2)))
            self.scope.append((n, t))
        for _ in range(r.randint(0, 2)):
            rt = r.choice([REAL, TEN(2), TEN(3), INT])
            params = [(r.choice([REAL, INT, TEN(2), TEN(3)]), self.fresh("a")) for _ in range(r.randint(1, 2))]
            saved = self.scope
            self.scope = [(n, t) for t, n in params]
            self.in_func = True
            body = self.ex(rt, 2)
            self.in_func = False
            self.scope = saved
            self.funcs.append((rt, self.fresh("fn"), params, body))
        self.gupd = dia == 2 and r.random() < 0.3 or r.random() < 0.2
        if self.gupd:
            self.decls.append(("global", REAL, "gacc", N("lit", REAL, v=("0.0", mpf(0)))))
            self.scope.append(("gacc", REAL))
        # strand
        self.in_strand = True
        self.params = [(INT, "i")] if self.coll else [(INT, "i"), (INT, "j")]
        idx = var("i", INT) if self.coll else N("add", INT, [N("mul", INT, [var("i", INT), N("lit", INT, v=(str(self.grid_ab[1]), self.grid_ab[1]))]), var("j", INT)])
        self.scope += [(n, t) for t, n in self.params]
        st = []
        st.append((False, PT, "pos", N("seqidx", PT, [var("pts", SEQ(PT, self.npts)),
                                                     N("mod", INT, [idx, N("lit", INT, v=(str(self.npts), self.npts))])])))
        st.append((True, INT, "id", idx))
        self.scope += [("pos", PT), ("id", INT)]
        self.outs = []
        for _ in range(r.randint(1, 3)):
            t = r.choice([REAL, REAL, INT, BOOL, PT, TEN(2), TEN(3), TEN(2, 2), TEN(3, 3),
                          SEQ(REAL, 3), SEQ(TEN(2), 2)]
                         + ([TEN(2, 2, 2), TEN(self.D, self.D, self.D) if self.D > 1 else TEN(3, 3, 3)]
                            if self.rank3 else [])
                         + ([SEQ(REAL, None), SEQ(REAL, None), SEQ(TEN(2), None)] if self.dynout else []))
            n = self.fresh("o")
            init = self.ex(t, 1)
            st.append((True, t, n, init))
            self.scope.append((n, t))
            self.outs.append((n, t))
        st.append((False, INT, "step", N("lit", INT, v=("0", 0))))
        st.append((False, REAL, "acc", N("lit", REAL, v=("0.0", mpf(0)))))
        self.scope += [("step", INT), ("acc", REAL)]
        self.sphere = self.coll and r.random() < 0.25
        if self.sphere:
            st.append((False, INT, "nb", N("lit", INT, v=("0", 0))))
            self.scope.append(("nb", INT))
        self.posvar = "pos"
        if self.sphere and self.ext and r.random() < 0.6:
            # --ext: the strands are placed for sphere() by 'at', declared
            # 'position' (an extension, language.md §9.3), k·pos with k in
            # 5/4 .. 3, so that queries through pos would find others; pos
            # stays the probes' point
            st.append((False, PT, "at", N("mul", PT, [lit_real(r, 5, 12, 4), var("pos", PT)])))
            self.posvar = "at"
            # the neighbour count is an output (not assigned by the update)
            st[st.index((False, INT, "nb", st[-2][3]))] = (True, INT, "nb", st[-2][3])
        self.state = st
        self.update = self.gen_update()
        self.near_border(self.pts_node.a)
        self.sinit = self.start = None
        if dia == 2 and r.random() < 0.25:
            n, t = r.choice(self.outs)
            self.sinit = [("assign", n, t, self.rhs(n, t, 1))]
        if dia == 2 and r.random() < 0.25:
            self.start = [("opassign", "acc", REAL, "+=", self.ex(REAL, 2))]
        self.stab = None
        if r.random() < 0.3:
            n, t = r.choice(self.outs)
            saved = self.in_strand
            if self.start and not self.ref_defects:
                self.in_strand = False     # D5: no probes in stabilize with a start method
            self.stab = [("assign", n, t, self.rhs(n, t, 1))]
            self.in_strand = saved
        self.in_strand = False
        self.gupdate = None
        if self.gupd:
            reals = [n for n, t in self.outs if t == REAL]
            if reals:
                body = var(r.choice(reals), REAL)
            else:
                body = N("realc", REAL, [var("id", INT)])
            sv = self.fresh("s")
            body = _rename_state(body, sv)
            self.gupdate = [("assign", "gacc", REAL,
                             N("sreduce", REAL, [body], v=(r.choice(["sum", "max", "min", "mean"]), sv,
                                                           r.choice(["all", "active", "stable"]))))]
            if self.gupdate[0][3].v[0] == "mean" and self.gupdate[0][3].v[2] != "all":
                self.gupdate[0][3].v = ("sum",) + self.gupdate[0][3].v[1:]
        return self

    def rhs(self, n, t, depth):
        """The right-hand side of an assignment to state variable n: it does
        not read n when n is a non-scalar tensor (D3), except in the few
        programs that exercise the original's known defects."""
        if self.ext and t == INT and self.r.random() < 0.5:
            # int ^ int is an int where an int is expected: here, and through
            # the '+' (doc/language.md §5.2); exponents -3..5
            ex = N("sub", INT, [N("mod", INT, [N("norm", INT, [self.ex_int(0)]), lit_int(self.r, 9, 9)]),
                                lit_int(self.r, 3, 3)])
            return N("add", INT, [self.ex(t, depth), N("ipow", INT, [self.ex_int(0), ex])])
        if (t[0] == "ten" and t[1] != () or t[0] == "seq") and not self.ref_defects:
            saved = self.scope
            self.scope = [(m, tt) for m, tt in self.scope if m != n]
            try:
                return self.ex(t, depth)
            finally:
                self.scope = saved
        return self.ex(t, depth)

    def near_border(self, pts):
        """Move one or two probe points close to the edge of the region where
        an image can be reconstructed without border control (§8.5)."""
        r = self.r
        if self.wide or not self.images or r.random() < 0.7:
            return
        for _ in range(r.randint(1, 2)):
            img = r.choice(list(self.images.values()))
            sup = [pf.SUPPORT[k[1]] for k in self.fieldvars if k[0] == img.name]
            if not sup:
                return
            s = max(sup)
            g = img.grid
            p = [Q(r.randint(int(n * 16), int(n * 32)), 64) for n in g.sizes]   # middle part
            a = r.randrange(g.d)
            delta = Q(r.randint(3, 20), 64)
            p[a] = Q(s - 1) + delta if r.random() < 0.5 else Q(g.sizes[a] - s) - delta
            x = [pf.dyadic(float(v), 8) for v in g.world(p)]
            j = r.randrange(len(pts))
            if self.D == 1:
                pts[j] = N("lit", REAL, v=(_dec(x[0]), _mq(x[0])))
            else:
                pts[j] = N("tcons", TEN(self.D), [N("lit", REAL, v=(_dec(v), _mq(v))) for v in x])

    def gen_update(self):
        r = self.r
        body = []
        nsc = len(self.scope)
        for _ in range(r.randint(0, 3)):
            t = r.choice([REAL, REAL, INT, BOOL, TEN(self.D) if self.D > 1 else REAL, TEN(2, 2)])
            n = self.fresh("v")
            body.append(("decl", t, n, self.ex(t, 2)))
            self.scope.append((n, t))
        if r.random() < 0.25:
            et = r.choice([REAL, REAL, TEN(2)])
            n = self.fresh("dv")
            e = N("seqlit", SEQ(et, 2), [self.ex(et, 1), self.ex(et, 1)])
            if r.random() < 0.7:
                e = N("at", SEQ(et, None), [e, self.ex(et, 1)] if r.random() < 0.5 else [self.ex(et, 1), e])
            body.append(("decl", SEQ(et, None), n, e))
            self.scope.append((n, SEQ(et, None)))
        outs = list(self.outs)
        r.shuffle(outs)
        if r.random() < 0.4:
            n, t = outs[0]
            body.append(("if", self.ex_bool(2), [("assign", n, t, self.rhs(n, t, 2))],
                         [("assign", n, t, self.rhs(n, t, 1))] if r.random() < 0.6 else None))
        if r.random() < 0.4:
            k = self.fresh("k")
            self.scope.append((k, INT))
            rng = (lit_int(r, 0, 1), lit_int(r, 1, 3)) if self.dia == 2 else "ks"
            inner = [("opassign", "acc", REAL, r.choice(["+=", "-=", "*="]), self.ex(REAL, 1))]
            if inner[0][3] == "*=":
                inner = [("opassign", "acc", REAL, "+=", self.ex(REAL, 1))]
            self.scope.pop()
            body.append(("foreach", INT, k, rng, inner))
        if self.sphere:
            sv = self.fresh("q")
            reals = [n for n, t in self.outs if t == REAL]
            inner = [("opassign", "nb", INT, "+=", N("lit", INT, v=("1", 1)))]
            if reals:
                inner.append(("opassign", "acc", REAL, "+=", N("select", REAL, [var(sv, None)], v=r.choice(reals))))
            rad = lit_real(r, 2, 12, 16)
            body.append(("sphere", sv, rad, inner))
        for n, t in outs:
            if r.random() < 0.8:
                body.append(("assign", n, t, self.rhs(n, t, r.randint(1, 3))))
        body.append(("opassign", "step", INT, "+=", N("lit", INT, v=("1", 1))))
        # a program placed by 'at' always prints its neighbour count
        if r.random() < 0.3 or self.posvar != "pos":
            pr = [N("lit", STR, v=('"p "', "p ")), var("id", INT), N("lit", STR, v=('" "', " ")), var("step", INT)]
            # --ext: a separator beyond ASCII (an extension; run.py counts it)
            sep = (SEP_UTF8 if r.random() < 0.5 else " ") if self.ext else " "
            for n, t in self.outs + [("acc", REAL)]:
                if t[0] == "ten" and len(t[1]) <= 1 or t in (INT, BOOL):
                    if r.random() < 0.6:
                        pr += [N("lit", STR, v=('"%s"' % sep, sep)), var(n, t)]
            if self.posvar != "pos":
                pr += [N("lit", STR, v=('"%s"' % sep, sep)), var("nb", INT)]
            pr.append(N("lit", STR, v=('"\\n"', "\n")))
            body.append(("if", N("eq", BOOL, [var("step", INT), lit_int(r, 1, 2)]), [("print", pr)], None))
        if r.random() < 0.15:
            body.append(("if", N("eq", BOOL, [N("mod", INT, [var("id", INT), lit_int(r, 2, 5)]), lit_int(r, 0, 1)]),
                         [("continue",)], None))
        if self.coll and r.random() < 0.3:
            body.append(("if", N("and", BOOL, [N("eq", BOOL, [N("mod", INT, [var("id", INT), lit_int(r, 3, 7)]), lit_int(r, 0, 2)]),
                                              N("eq", BOOL, [var("step", INT), lit_int(r, 1, 2)])]), [("die",)], None))
        if self.coll and r.random() < 0.25:
            body.append(("if", N("and", BOOL, [N("lt", BOOL, [var("id", INT), lit_int(r, 1, 4)]),
                                              N("eq", BOOL, [var("step", INT), N("lit", INT, v=("1", 1))])]),
                         [("new", [N("add", INT, [var("id", INT), N("lit", INT, v=("1000", 1000))])]
                           + ([] if self.coll else [N("lit", INT, v=("0", 0))]))], None))
        lim = N("add", INT, [N("lit", INT, v=("1", 1)), N("mod", INT, [var("id", INT), lit_int(r, 1, 4)])])
        body.append(("if", N("ge", BOOL, [var("step", INT), lim]), [("stabilize",)], None))
        del self.scope[nsc:]
        return body


def _pos_ten(r, s):
    if s == ():
        return lit_real(r, 0, 16)
    return N("tcons", TEN(*s), [_pos_ten(r, s[1:]) for _ in range(s[0])])


def _dec(q):
    t = pf.qdec(q)
    if "." not in t:
        t += ".0"
    return "(" + t + ")" if t.startswith("-") else t


def _mq(q):
    return mpf(q.numerator) / q.denominator


def _rename_state(e, sv):
    """Turn a strand-state expression into one over strand variable sv (s.x)."""
    if e.op == "var":
        return N("select", e.t, [var(sv, None)], v=e.v)
    return N(e.op, e.t, [_rename_state(a, sv) for a in e.a], v=e.v)


# ---------------------------------------------------------------- printing

def stmt_src(s, dia, ind):
    pad = "  " * ind
    k = s[0]
    S = lambda e: src(e, dia)  # noqa: E731
    if k == "decl":
        return [pad + "%s %s = %s;" % (tyname(s[1], dia), s[2], S(s[3]))]
    if k == "assign":
        return [pad + "%s = %s;" % (s[1], S(s[3]))]
    if k == "opassign":
        return [pad + "%s %s %s;" % (s[1], s[3], S(s[4]))]
    if k == "if":
        out = [pad + "if (%s) {" % S(s[1])]
        for x in s[2]:
            out += stmt_src(x, dia, ind + 1)
        if s[3]:
            out.append(pad + "} else {")
            for x in s[3]:
                out += stmt_src(x, dia, ind + 1)
        out.append(pad + "}")
        return out
    if k == "foreach":
        rng = s[3]
        rtxt = rng if isinstance(rng, str) else "%s..%s" % (S(rng[0]), S(rng[1]))
        out = [pad + "foreach (%s %s in %s) {" % (tyname(s[1], dia), s[2], rtxt)]
        for x in s[4]:
            out += stmt_src(x, dia, ind + 1)
        return out + [pad + "}"]
    if k == "sphere":
        out = [pad + "foreach (S %s in sphere(%s)) {" % (s[1], S(s[2]))]
        for x in s[3]:
            out += stmt_src(x, dia, ind + 1)
        return out + [pad + "}"]
    if k in ("stabilize", "die", "continue"):
        return [pad + k + ";"]
    if k == "new":
        return [pad + "new S(%s);" % ", ".join(S(a) for a in s[1])]
    if k == "print":
        return [pad + "print(%s);" % ", ".join(S(a) for a in s[1])]
    raise ValueError(k)


def program_text(g):
    dia = g.dia
    L = []
    if g.version_line:
        L.append("#version %d.0" % dia)
    L.append("// generated by tests/differential/gen.py, seed %s" % g.seed)
    for kind, t, n, e in g.decls:
        if t[0] == "img":
            ty = tyname(t, dia)
            L.append("%s%s %s = %s;" % ("input " if kind == "input" else "", ty, n, src(e, dia)))
        elif kind == "const":
            L.append("const %s %s = %s;" % (tyname(t, dia), n, src(e, dia)))
        elif kind == "kinput":   # a kernel input (an extension, doc/language.md §6.9)
            L.append("input kernel#%d %s = %s;" % (t[1], n, src(e, dia)))
        elif kind == "binput":   # a border input (an extension)
            L.append("input border %s = %s;" % (n, src(e, dia)))
        elif kind in ("input", "cinput"):   # cinput: a computed default (an extension)
            L.append("input %s %s = %s;" % (tyname(t, dia), n, src(e, dia)))
        else:
            L.append("%s %s = %s;" % (tyname(t, dia), n, src(e, dia)))
    for rt, n, params, body in g.funcs:
        L.append("function %s %s(%s) = %s;" % (tyname(rt, dia), n,
                                               ", ".join("%s %s" % (tyname(t, dia), pn) for t, pn in params),
                                               src(body, dia)))
    L.append("strand S(%s) {" % ", ".join("%s %s" % (tyname(t, dia), n) for t, n in g.params))
    for out, t, n, e in g.state:
        L.append("  %s%s%s %s = %s;" % ("output " if out else "", "position " if n == g.posvar != "pos" else "",
                                         tyname(t, dia), n, src(e, dia)))
    if g.sinit:
        L.append("  initialize {")
        for s in g.sinit:
            L += stmt_src(s, dia, 2)
        L.append("  }")
    if g.start:
        L.append("  start {")
        for s in g.start:
            L += stmt_src(s, dia, 2)
        L.append("  }")
    L.append("  update {")
    for s in g.update:
        L += stmt_src(s, dia, 2)
    L.append("  }")
    if g.stab:
        L.append("  stabilize {")
        for s in g.stab:
            L += stmt_src(s, dia, 2)
        L.append("  }")
    L.append("}")
    if g.gupdate:
        L.append(("update {" if dia == 2 else "global {"))
        for s in g.gupdate:
            L += stmt_src(s, dia, 1)
        L.append("}")
    if g.coll:
        it = "S(i) | i in 0..%d" % (g.npts - 1)
        L.append(("create_collection { %s };" if dia == 2 else "initially { %s };") % it)
    else:
        a, b = g.grid_ab
        it = "S(i, j) | i in 0..%d, j in 0..%d" % (a - 1, b - 1)
        L.append(("create_array { %s };" if dia == 2 else "initially [ %s ];") % it)
    return "\n".join(L) + "\n"


# ------------------------------------------------------------- interpreter

class View:
    __slots__ = ("st",)

    def __init__(self, st):
        self.st = st


class Interp:
    def __init__(self, g):
        self.g = g
        self.images = g.images
        self.funcs = {n: (params, body) for rt, n, params, body in g.funcs}
        self.strands = []
        self.prints = []

    def strand_set(self, which):
        if which == "all":
            return [s for s in self.strands if s.status in ("active", "stable")]
        return [s for s in self.strands if s.status == which]

    def exec(self, stmts, env, me):
        for s in stmts:
            k = s[0]
            if k == "decl":
                env.vars[s[2]] = coerce(ev(s[3], env, self), s[1])
            elif k == "assign":
                env.set(s[1], coerce(ev(s[3], env, self), s[2]))
            elif k == "opassign":
                op = {"+=": "add", "-=": "sub", "*=": "mul"}[s[3]]
                t = s[2]
                node = N(op, t, [var(s[1], t), s[4]])
                env.set(s[1], coerce(ev(node, env, self), t))
            elif k == "if":
                c = ev(s[1], env, self)
                br = s[2] if c else s[3]
                if br:
                    sig = self.exec(br, Env(env), me)
                    if sig:
                        return sig
            elif k == "foreach":
                rng = s[3]
                seq = env.get(rng) if isinstance(rng, str) else \
                    range(ev(rng[0], env, self), ev(rng[1], env, self) + 1)
                for x in seq:
                    sub = Env(env)
                    sub.vars[s[2]] = x
                    sig = self.exec(s[4], sub, me)
                    if sig:
                        return sig
            elif k == "sphere":
                rad = ev(s[2], env, self)
                mypos = self.snap_pos[id(me)]
                for other, st in self.snap:
                    if other is me:
                        continue
                    q = st[self.g.posvar]
                    a = mypos.v if isinstance(mypos, Ten) else [mypos]
                    b = q.v if isinstance(q, Ten) else [q]
                    d2 = sum((x - y) ** 2 for x, y in zip(a, b))
                    r2 = rad * rad
                    inn = decide(d2 < r2, abs(d2 - r2) > margin() * max(r2, mpf(1)))
                    if inn:
                        sub = Env(env)
                        sub.vars[s[1]] = View(st)
                        sig = self.exec(s[3], sub, me)
                        if sig:
                            return sig
            elif k in ("stabilize", "die", "continue"):
                return k
            elif k == "new":
                args = [ev(a, env, self) for a in s[1]]
                self.pending.append(self.make_strand(args))
            elif k == "print":
                vals = [ev(a, env, self) for a in s[1]]
                self.prints.append(vals)
            else:
                raise ValueError(k)
        return None

    def make_strand(self, args):
        s = Strand()
        penv = Env(self.genv)
        for (t, n), a in zip(self.g.params, args):
            penv.vars[n] = a
        senv = Env(penv)
        senv.vars = s.st
        for out, t, n, e in self.g.state:
            s.st[n] = coerce(ev(e, senv, self), t)
        if self.g.sinit:
            self.exec(self.g.sinit, Env(senv), s)
        s.params = penv  # noqa
        return s

    def run(self):
        g = self.g
        genv = self.genv = Env()
        for kk in ("tent", "ctmr", "bspln3", "bspln5", "c4hexic", "c1tent", "c2tent", "c2ctmr"):
            genv.vars[kk] = kk
        for kind, t, n, e in g.decls:
            if kind in ("kinput", "binput"):   # the name of the default kernel / border control
                genv.vars[n] = e.v
                continue
            genv.vars[n] = coerce(ev(e, genv, self), t)
        self.pending = []
        if g.coll:
            for i in range(g.npts):
                self.strands.append(self.make_strand([i]))
        else:
            a, b = g.grid_ab
            for i in range(a):
                for j in range(b):
                    self.strands.append(self.make_strand([i, j]))
        steps = 0
        while any(s.status == "active" for s in self.strands):
            steps += 1
            if steps > 30:
                raise Reject("does not terminate")
            alive = [s for s in self.strands if s.status in ("active", "stable")]
            self.snap = [(s, dict(s.st)) for s in alive]
            self.snap_pos = {id(s): st[g.posvar] for s, st in self.snap}
            if g.start:
                for s in list(self.strands):
                    if s.status == "active" and s.fresh:
                        senv = Env(s.params)
                        senv.vars = s.st
                        self.exec(g.start, Env(senv), s)
            for s in self.strands:
                s.fresh = False
            for s in list(self.strands):
                if s.status != "active":
                    continue
                senv = Env(s.params)
                senv.vars = s.st
                sig = self.exec(g.update, Env(senv), s)
                if sig == "stabilize":
                    if g.stab:
                        self.exec(g.stab, Env(senv), s)
                    s.status = "stable"
                elif sig == "die":
                    s.status = "dead"
            self.strands = [s for s in self.strands if s.status != "dead"] + self.pending
            self.pending = []
            if g.gupdate:
                self.exec(g.gupdate, Env(self.genv), None)
        self.steps = steps
        rows = self.strands if not g.coll else [s for s in self.strands if s.status == "stable"]
        outs = {}
        for out, t, n, e in g.state:
            if out:
                outs[n] = [flat(s.st[n]) for s in rows]
        ids = [s.st["id"] for s in rows]
        return {"ids": ids, "outs": outs, "prints": [[flat(v) for v in p] for p in self.prints]}


def flat(v):
    if isinstance(v, Ten):
        return list(v.v)
    if isinstance(v, list):
        return [x for e in v for x in flat(e)]
    return [v]


def evaluate(g, u, rng=None, trace=None):
    CTX.u = u
    CTX.rng = rng
    CTX.trace = trace
    CTX.tpos = 0
    return Interp(g).run()


def numeric_leaves(res):
    """All numbers of a result, in a fixed order, with their place."""
    out = []
    for n in sorted(res["outs"]):
        for r, row in enumerate(res["outs"][n]):
            for c, v in enumerate(row):
                out.append(((n, r, c), v))
    for i, p in enumerate(res["prints"]):
        for j, vs in enumerate(p):
            for c, v in enumerate(vs):
                if not isinstance(v, str):
                    out.append((("print", i, j, c), v))
    return out


def oracle(g):
    """Exact result plus per-number tolerances for float and double."""
    trace = []
    exact = evaluate(g, 2.0 ** -24, None, trace)
    tols = {}
    for name, u in (("float", 2.0 ** -24), ("double", 2.0 ** -53)):
        base = dict(numeric_leaves(exact))
        dev = {k: mpf(0) for k in base}
        for k in range(PERTURB_RUNS):
            res = evaluate(g, u, random.Random("%s/%s/%d" % (g.seed, name, k)), trace)
            for key, v in numeric_leaves(res):
                if key not in base:
                    raise Fragile("perturbed run changed the result's structure")
                if isinstance(v, bool) or isinstance(v, int):
                    if v != base[key]:
                        raise Fragile("perturbed run changed an int")
                    continue
                dev[key] = max(dev[key], abs(v - base[key]))
        tols[name] = {key: float(TOL_FACTOR * dev[key] + 4 * u * abs(base[key]) + 1e-300)
                      for key, v in base.items() if not isinstance(v, (bool, int))}
    CTX.rng = None
    CTX.trace = None
    return exact, tols


def to_json(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        return v
    return mpmath.nstr(v, 25)


# what marks a program as using an extension (--ext keeps only those):
# the text of int(x), of int ^ int or of SEP_UTF8, or a node of EXT_OPS in its trees
SEP_UTF8 = " \u2248 "     # " ≈ ": a string literal beyond ASCII
EXT_RE = re.compile(r"\bint\(|\)\^\(|\u2248")
EXT_OPS = ("dindex", "isdbl", "efield", "compose", "bapply")


def uses_ext(g):
    def walk(x):
        if isinstance(x, N):
            return x.op in EXT_OPS or any(walk(c) for c in x.a) or walk(x.v)
        if isinstance(x, (list, tuple)):
            return any(walk(c) for c in x)
        return False
    trees = (g.decls, g.funcs, g.state, g.sinit, g.start, g.update, g.stab, g.gupdate)
    return (bool(EXT_RE.search(program_text(g))) or walk(list(trees))
            or any(d[0] in ("cinput", "kinput", "binput") for d in g.decls))


def generate(seed, outdir, dialect=None, max_tries=40, ext=False):
    """Generate a well-conditioned program for seed into outdir. Returns the
    oracle dict; the sub-seed actually used is seed*1000+try. ext: one
    that uses an extension of the language (uses_ext)."""
    last = None
    for attempt in range(max_tries):
        sub = seed * 1000 + attempt
        try:
            g = Gen(sub, dialect, ext).build()
            if ext and not uses_ext(g):
                raise Reject("no extension used")
            exact, tols = oracle(g)
        except (Fragile, Reject, ZeroDivisionError, OverflowError) as ex:
            last = ex
            continue
        write_program(g, outdir, exact, tols, seed)
        return g
    raise Reject("no well-conditioned program after %d tries (last: %s)" % (max_tries, last))


def evaluate_printed(subseed, dialect, digits):
    """The exact result of program `subseed` with kernel coefficients
    rounded to `digits` significant digits, as oracle rows (the "outputs"
    and "prints" entries of oracle.json), or None if the program does not
    regenerate identically."""
    global KERNEL_DIGITS
    g = Gen(subseed, None).build()
    if g.dia != dialect:
        return None
    KERNEL_DIGITS = digits
    try:
        exact = evaluate(g, 2.0 ** -24, None, [])
    finally:
        KERNEL_DIGITS = None
        CTX.rng = None
        CTX.trace = None
    return oracle_rows(g, exact)


def oracle_rows(g, exact):
    return {"outputs": {n: {"type": list(map(str, t)), "rows": [[to_json(x) for x in row] for row in exact["outs"][n]]}
                        for n, t in [(n, t) for out, t, n, e in g.state if out]},
            "prints": [[[to_json(x) for x in vs] for vs in p] for p in exact["prints"]]}


def write_program(g, outdir, exact, tols, seed):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "prog.diderot"), "w", encoding="utf-8") as f:
        f.write(program_text(g))
    for img in g.images.values():
        nrrd.write(os.path.join(outdir, img.fname), img.nrrd())
    text = program_text(g)
    kerns = sorted(k for k in KERNELS if re.search(r"\b%s\b" % k, text))
    orc = {"seed": seed, "subseed": g.seed, "dialect": g.dia, "collection": g.coll,
           "kernels": kerns,
           "ids": exact["ids"],
           **oracle_rows(g, exact),
           "tol": {name: {"|".join(map(str, k)): v for k, v in tt.items()} for name, tt in tols.items()}}
    with open(os.path.join(outdir, "oracle.json"), "w") as f:
        json.dump(orc, f, indent=0)


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("seed", type=int)
    ap.add_argument("outdir")
    ap.add_argument("--dialect", type=int, choices=[1, 2])
    ap.add_argument("--ext", action="store_true", help="use the language's extensions")
    a = ap.parse_args()
    g = generate(a.seed, a.outdir, a.dialect, ext=a.ext)
    print(program_text(g))

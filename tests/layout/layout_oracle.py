# Copied verbatim (below this header) from ../shared/tools/layout_oracle.py, the
# project's independent Python model of CuTe/LEGO layouts (doc/layouts.md
# describes the algebra it models). Kept here so tests/layout/test_oracle.py runs
# from a clone without ../shared; refresh it if the shared copy changes.
#!/usr/bin/env python3
"""Independent reference model used to check the test vectors in layouts.md.

Two small models:
  * CuTe-style (shape, stride) layouts and their algebra
    (coalesce, composition, complement, divides, products);
  * LEGO-style bijections (GroupBy / OrderBy / RegP / GenP) with apply/inv.

Run:  python3 layouts_vectors.py      (prints every vector and asserts it)
Only plain Python 3, no dependencies.  Integers are static here; a C
implementation will also need symbolic extents.
"""
from functools import reduce
from math import isqrt
import itertools, random

# ---------------------------------------------------------------- IntTuple
def is_tup(x): return isinstance(x, tuple)

def flatten(t):
    return tuple(y for x in t for y in flatten(x)) if is_tup(t) else (t,)

def product(t):
    return reduce(lambda a, b: a * product(b), t, 1) if is_tup(t) else t

def rank(t): return len(t) if is_tup(t) else 1

def depth(t): return 1 + max((depth(x) for x in t), default=0) if is_tup(t) else 0

def congruent(a, b):
    if is_tup(a) != is_tup(b): return False
    return (not is_tup(a)) or (len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b)))

def compatible(a, b):
    """shape a is compatible with shape b: sizes agree and every coordinate of a is one of b
    (a integer => size(a)==size(b); a tuple => b tuple of same length, modes compatible)."""
    if not is_tup(a): return product(a) == product(b)
    return is_tup(b) and len(a) == len(b) and all(compatible(x, y) for x, y in zip(a, b))

# ---------------------------------------------------------------- Layout
class L:
    def __init__(self, shape, stride):
        assert congruent(shape, stride), (shape, stride)
        self.shape, self.stride = shape, stride
    def __eq__(self, o): return self.shape == o.shape and self.stride == o.stride
    def __repr__(self): return f"{fmt(self.shape)}:{fmt(self.stride)}"
    def __len__(self): return rank(self.shape)
    def __getitem__(self, i):
        return L(self.shape[i], self.stride[i]) if is_tup(self.shape) else self
    def size(self): return product(self.shape)
    def cosize(self):
        return 1 + sum((s - 1) * d for s, d in zip(flatten(self.shape), flatten(self.stride)))
    def __call__(self, *crd):
        c = crd[0] if len(crd) == 1 else tuple(crd)
        return crd2idx(c, self.shape, self.stride)

def fmt(t): return "(" + ",".join(fmt(x) for x in t) + ")" if is_tup(t) else str(t)

def crd2idx(c, shape, stride):
    """Natural (hierarchical) coord, or any coarser coord, -> index.  An integer
    coordinate for a tuple mode is split colexicographically (leftmost fastest)."""
    if is_tup(c):
        assert is_tup(shape) and len(c) == len(shape)
        return sum(crd2idx(x, s, d) for x, s, d in zip(c, shape, stride))
    if is_tup(shape):
        r = 0
        for s, d in zip(shape[:-1], stride[:-1]):
            r += crd2idx(c % product(s), s, d); c //= product(s)
        return r + crd2idx(c, shape[-1], stride[-1])
    return c * stride

def make_layout(*ls):
    return L(tuple(l.shape for l in ls), tuple(l.stride for l in ls))

def compact_left(shape, init=1):       # column-major / LayoutLeft strides
    if is_tup(shape):
        out = []
        for s in shape:
            out.append(compact_left(s, init)); init *= product(s)
        return tuple(out)
    return init

def compact_right(shape):              # row-major / LayoutRight strides (flat shapes only)
    fs = flatten(shape); out = []; acc = 1
    for s in reversed(fs): out.append(acc); acc *= s
    return tuple(reversed(out))

# ---- coalesce ---------------------------------------------------------------
def coalesce(l, profile=None):
    if profile is not None and is_tup(profile):
        modes = [coalesce(l[i], profile[i]) for i in range(len(profile))] + \
                [l[i] for i in range(len(profile), len(l))]
        return make_layout(*modes)
    rs, rd = [1], [0]
    for s, d in zip(flatten(l.shape), flatten(l.stride)):
        if s == 1: continue                      # rule 1/2: drop size-1 modes
        if rs[-1] == 1: rs[-1], rd[-1] = s, d
        elif rs[-1] * rd[-1] == d: rs[-1] *= s   # rule 3: merge
        else: rs.append(s); rd.append(d)         # rule 4: keep separate
    return L(rs[0], rd[0]) if len(rs) == 1 else L(tuple(rs), tuple(rd))

# ---- composition ------------------------------------------------------------
def ceil_div(a, b): return -(-a // b)

def composition(A, B):
    """A o B.  B may be a Layout, or a tuple ("tiler") applied by-mode, or an int (= n:1)."""
    if isinstance(B, int): B = L(B, 1)
    if isinstance(B, tuple):                     # by-mode tiler
        assert len(A) >= len(B)
        return make_layout(*([composition(A[i], B[i]) for i in range(len(B))] +
                             [A[i] for i in range(len(B), len(A))]))
    if is_tup(B.shape):                          # left-distribute over B's modes
        return make_layout(*[composition(A, B[i]) for i in range(len(B))])
    s, d = B.shape, B.stride
    if d == 0: return L(s, 0)
    Ac = coalesce(A)
    ash, ast = (flatten(Ac.shape), flatten(Ac.stride))
    rs, rd = [], []
    rest_s, rest_d = s, d
    for i, (a_s, a_d) in enumerate(zip(ash, ast)):
        last = i == len(ash) - 1
        if last:
            rs.append(rest_s); rd.append(rest_d * a_d); break
        # divide out rest_d from a_s (divisibility condition)
        assert a_s % rest_d == 0 or rest_d % a_s == 0, ("stride divisibility", A, B)
        s1 = ceil_div(a_s, rest_d)
        new_d = ceil_div(rest_d, a_s)
        # mod out rest_s
        if s1 > 1:
            assert s1 % rest_s == 0 or rest_s % s1 == 0, ("shape divisibility", A, B)
        keep = min(s1, rest_s)
        rs.append(keep); rd.append(rest_d * a_d if s1 > 1 else 0)
        rest_s = ceil_div(rest_s, s1) if s1 > 1 else rest_s
        rest_d = new_d
    return coalesce(L(tuple(rs), tuple(rd)))

# ---- complement -------------------------------------------------------------
def complement(A, M):
    pairs = sorted((d, s) for s, d in zip(flatten(A.shape), flatten(A.stride)) if s != 1 and d != 0)
    rs, rd, cur = [], [], 1
    for d, s in pairs:
        assert d % cur == 0, ("complement needs sorted strides dividing", A)
        rs.append(d // cur); rd.append(cur); cur = s * d
    rs.append(ceil_div(M, cur)); rd.append(cur)
    return coalesce(L(tuple(rs), tuple(rd)))

# ---- divide / product -------------------------------------------------------
def logical_divide(A, B):
    if isinstance(B, int): B = L(B, 1)
    if isinstance(B, tuple):
        return make_layout(*([logical_divide(A[i], B[i]) for i in range(len(B))] +
                             [A[i] for i in range(len(B), len(A))]))
    return composition(A, make_layout(B, complement(B, A.size())))

def zipped_divide(A, T):
    if not isinstance(T, tuple): return logical_divide(A, T)
    ld = logical_divide(A, T)
    tiles = [ld[i][0] for i in range(len(T))]
    rests = [ld[i][1] for i in range(len(T))] + [ld[i] for i in range(len(T), len(ld))]
    return make_layout(make_layout(*tiles), make_layout(*rests))

def tiled_divide(A, T):
    zd = zipped_divide(A, T)
    return make_layout(zd[0], *[zd[1][i] for i in range(len(zd[1]))])

def flat_divide(A, T):
    zd = zipped_divide(A, T)
    return make_layout(*[zd[0][i] for i in range(len(zd[0]))], *[zd[1][i] for i in range(len(zd[1]))])

def logical_product(A, B):
    if isinstance(B, tuple):
        return make_layout(*([logical_product(A[i], B[i]) for i in range(len(B))] +
                             [A[i] for i in range(len(B), len(A))]))
    return make_layout(A, composition(complement(A, A.size() * B.cosize()), B))

def blocked_product(A, B):
    R = max(len(A), len(B)); assert len(A) == len(B) == R
    lp = logical_product(A, B)
    z = make_layout(*[make_layout(lp[0][i], lp[1][i]) for i in range(R)])
    return coalesce(z, tuple([1] * R))

def raked_product(A, B):
    R = max(len(A), len(B)); assert len(A) == len(B) == R
    lp = logical_product(A, B)
    z = make_layout(*[make_layout(lp[1][i], lp[0][i]) for i in range(R)])
    return coalesce(z, tuple([1] * R))

def func(l, n=None):
    return [l(i) for i in range(l.size() if n is None else n)]

# ---------------------------------------------------------------- LEGO model
def B(dims, idx):                   # canonical row-major flatten
    f = 0
    for n, i in zip(dims, idx):
        assert 0 <= i < n
        f = f * n + i
    return f

def Binv(dims, f):
    out = []
    for n in reversed(dims): out.append(f % n); f //= n
    assert f == 0
    return tuple(reversed(out))

class RegP:
    def __init__(self, dims, sigma): self.d, self.s = list(dims), [k - 1 for k in sigma]
    def dims(self): return self.d
    def apply(self, i): return B([self.d[k] for k in self.s], [i[k] for k in self.s])
    def inv(self, f):
        p = Binv([self.d[k] for k in self.s], f); out = [0] * len(p)
        for pos, k in enumerate(self.s): out[k] = p[pos]       # scatter = sigma^-1
        return tuple(out)

class GenP:
    def __init__(self, dims, f, finv): self.d, self.f, self.fi = list(dims), f, finv
    def dims(self): return self.d
    def apply(self, i): return self.f(*i)
    def inv(self, x): return tuple(self.fi(x))

class OrderBy:
    def __init__(self, *perms): self.p = perms
    def dims(self): return [n for p in self.p for n in p.dims()]
    def apply(self, i):
        f, k = 0, 0
        for p in self.p:
            d = p.dims(); cur = i[k:k + len(d)]; k += len(d)
            f = p.apply(cur) + f * product(tuple(d))
        return f
    def inv(self, f):
        out = ()
        for p in reversed(self.p):
            n = product(tuple(p.dims())); out = p.inv(f % n) + out; f //= n
        return out

class GroupBy:
    """chain = [O1, O2, ...] meaning O1.O2. ... .GroupBy(dims): O_last applied first."""
    def __init__(self, dims, chain): self.d, self.c = list(dims), chain
    def apply(self, i):
        f = B(self.d, i)
        for o in reversed(self.c): f = o.apply(Binv(o.dims(), f))
        return f
    def inv(self, f):
        for o in self.c: f = B(o.dims(), o.inv(f))
        return Binv(self.d, f)

def antidiag(n, i, j):
    a = i + j + 1
    if a <= n: return i + a * (a - 1) // 2
    a = 2 * n - a
    return n * n - n + i - a * (a - 1) // 2

def antidiaginv(n, x0):
    S = n * (n + 1) // 2
    x = x0 if x0 < S else n * n - 1 - x0
    a = isqrt(2 * x)
    a += 1 if x >= a * (a + 1) // 2 else 0
    i = x - a * (a - 1) // 2; j = a - i - 1
    return (i, j) if x0 < S else (n - 1 - i, n - 1 - j)

# ---------------------------------------------------------------- checks
def check(name, got, want):
    ok = (repr(got) == want) if isinstance(want, str) else (got == want)
    print(("OK  " if ok else "FAIL"), name, "=", got, "" if ok else f"(want {want})")
    assert ok

def cute_vectors():
    print("== CuTe coalesce")
    a = L((2, (1, 6)), (1, (6, 2)))
    check("coalesce((2,(1,6)):(1,(6,2)))", coalesce(a), "12:1")
    check("coalesce(..., (1,1))", coalesce(a, (1, 1)), "(2,6):(1,2)")
    check("coalesce((2,4):(1,2))", coalesce(L((2, 4), (1, 2))), "8:1")
    print("== CuTe composition")
    A, Bl = L((6, 2), (8, 2)), L((4, 3), (3, 1))
    R = composition(A, Bl)
    check("(6,2):(8,2) o (4,3):(3,1)", R, "((2,2),3):((24,2),8)")
    check("R(0..11)", func(R), [0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42])
    check("compatible(B,R)", compatible(Bl.shape, R.shape), True)
    check("20:2 o (5,4):(4,1)", composition(L(20, 2), L((5, 4), (4, 1))), "(5,4):(8,2)")
    check("(10,2):(16,4) o (5,4):(1,5)", composition(L((10, 2), (16, 4)), L((5, 4), (1, 5))),
          "(5,(2,2)):(16,(80,4))")
    a = L((12, (4, 8)), (59, (13, 1)))
    check("(12,(4,8)):(59,(13,1)) o <3:4,8:2>", composition(a, (L(3, 4), L(8, 2))),
          "(3,(2,4)):(236,(26,1))")
    check("(12,(4,8)):(59,(13,1)) o <3,8>", composition(a, (L(3, 1), L(8, 1))),
          "(3,(4,2)):(59,(13,1))")
    print("== shape_div / shape_mod tables are checked inside composition's asserts")
    print("== shape_div / shape_mod (seed tables)")
    def shape_div(sh, d):
        out = []
        for s in sh:
            assert s % d == 0 or d % s == 0
            out.append(ceil_div(s, d)); d = ceil_div(d, s)
        return tuple(out)
    def shape_mod(sh, m):
        out = []
        for s in sh:
            assert s % m == 0 or m % s == 0
            out.append(min(s, m)); m = ceil_div(m, s)
        return tuple(out)
    for sh, d, want in [((6,2),2,(3,2)),((6,2),3,(2,2)),((6,2),6,(1,2)),((6,2),12,(1,1)),((3,6,2,8),6,(1,3,2,8)),
                        ((3,6,2,8),9,(1,2,2,8)),((42,16,3),2,(21,16,3)),((42,16,3),6,(7,16,3))]:
        check(f"{sh} / {d}", shape_div(sh, d), want)
    for sh, m, want in [((6,2),2,(2,1)),((6,2),3,(3,1)),((6,2),6,(6,1)),((6,2),12,(6,2)),((3,6,2,8),6,(3,2,1,1)),
                        ((3,6,2,8),9,(3,3,1,1)),((1,2,2,8),2,(1,2,1,1)),((1,2,2,8),16,(1,2,2,4))]:
        check(f"{sh} % {m}", shape_mod(sh, m), want)
    print("== dynamic-int representation of example 2 is the same function")
    check("((5,1),(2,2)):((16,4),(80,4)) == (5,(2,2)):(16,(80,4)) as functions",
          func(L(((5, 1), (2, 2)), ((16, 4), (80, 4)))) == func(L((5, (2, 2)), (16, (80, 4)))), True)
    print("== inadmissible composition counterexample (injective B, overlapping digits)")
    A, Bx = L((6, 3), (16, 1)), L((6, 2), (2, 3))
    Rx = composition(A, Bx)
    check("naive by-mode result", Rx, "((3,2),2):((32,1),48)")
    check("differs from A(B(i)) at i=8", (Rx(8), A(Bx(8))), (112, 17))
    print("== CuTe complement")
    check("complement(4:1,24)", complement(L(4, 1), 24), "6:4")
    check("complement(6:4,24)", complement(L(6, 4), 24), "4:1")
    check("complement((4,6):(1,4),24)", complement(L((4, 6), (1, 4)), 24), "1:0")
    check("complement(4:2,24)  [seed text says (2,4):(1,8): erratum]", complement(L(4, 2), 24), "(2,3):(1,8)")
    check("complement((2,4):(1,6),24)", complement(L((2, 4), (1, 6)), 24), "3:2")
    check("complement((2,2):(1,6),24)", complement(L((2, 2), (1, 6)), 24), "(3,2):(2,12)")
    print("== CuTe logical_divide")
    A = L((2, 4, 3), (4, 1, 8))
    # Seed text claims ((2,2),(2,3)):((4,1),(2,8)); that contradicts A(B(i)) (A(2)=1, not 4).
    check("(2,4,3):(4,1,8) / 4:2  [seed result is an erratum]", logical_divide(A, L(4, 2)), "(4,(2,3)):(1,(4,8))")
    check("  function check A((B,B*)(i))", func(logical_divide(A, L(4, 2))),
          [A(make_layout(L(4, 2), complement(L(4, 2), 24))(i)) for i in range(24)])
    A2 = L((4, 2, 3), (2, 1, 8))      # the A for which the seed's stated result is exact
    check("(4,2,3):(2,1,8) / 4:2  (seed's stated result)", logical_divide(A2, L(4, 2)), "((2,2),(2,3)):((4,1),(2,8))")
    A = L((9, (4, 8)), (59, (13, 1)))
    T = (L(3, 3), L((2, 4), (1, 8)))
    ld = logical_divide(A, T)
    check("(9,(4,8)):(59,(13,1)) / <3:3,(2,4):(1,8)>", ld, "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))")
    zd = zipped_divide(A, T)
    check("zipped_divide", zd, "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))")
    check("zd mode0 == composition(A,T)", zd[0], repr(composition(A, T)))
    check("composition(A,T)  [seed text says (3,(2,4)):(236,(13,52)): erratum]", composition(A, T), "(3,(2,4)):(177,(13,2))")
    check("tiled_divide", tiled_divide(A, T), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))")
    check("zd(0,3), zd(0,7), zd(0,(1,2))", (zd(0, 3), zd(0, 7), zd(0, (1, 2))), (26, 60, 60))
    print("== LEGO eq.6 / eq.8 (Graphene .tile) == CuTe zipped_divide")
    check("zipped_divide((6,6):(6,1), <3:1,3:1>)", zipped_divide(L((6, 6), (6, 1)), (L(3, 1), L(3, 1))), "((3,3),(2,2)):((6,1),(18,3))")
    check("zipped_divide((4,8):(1,4), <2:2,(2,2):(1,4)>)", zipped_divide(L((4, 8), (1, 4)), (L(2, 2), L((2, 2), (1, 4)))),
          "((2,(2,2)),(2,2)):((2,(4,16)),(1,8))")
    check("flat_divide", flat_divide(A, T), "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))")
    print("== CuTe logical_product")
    A = L((2, 2), (4, 1))
    check("complement((2,2):(4,1),24)", complement(A, 24), "(2,3):(2,8)")
    check("(2,2):(4,1) x 6:1", logical_product(A, L(6, 1)), "((2,2),(2,3)):((4,1),(2,8))")
    check("(2,2):(4,1) x (4,2):(2,1)", logical_product(A, L((4, 2), (2, 1))),
          "((2,2),(4,2)):((4,1),(8,2))")
    A, Bt = L((2, 5), (5, 1)), L((3, 4), (1, 3))
    check("by-mode (2,5):(5,1) x <3:5,4:6>", logical_product(A, (L(3, 5), L(4, 6))),
          "((2,3),(5,4)):((5,10),(1,30))")
    check("blocked_product((2,5):(5,1),(3,4):(1,3))", blocked_product(A, Bt), "(6,(5,4)):(5,(1,30))")
    check("raked_product((2,5):(5,1),(3,4):(1,3))", raked_product(A, Bt), "((3,2),(4,5)):((10,5),(30,1))")
    print("== Diderot-flavoured vectors (computed, not from the seeds)")
    aosoa = blocked_product(L((8, 7), (1, 8)), L((125, 1), (1, 1)))
    check("AoSoA W=8,F=7,N=1000 = blocked_product((8,7):(1,8),(125,1):(1,1))", aosoa, "((8,125),7):((1,56),8)")
    check("AoSoA(s=9,f=2)", aosoa(9, 2), 73)
    g = zipped_divide(L((64, 48), (1, 64)), (L(16, 1), L(16, 1)))
    check("64x48 strand grid in 16x16 CUDA blocks", g, "((16,16),(4,3)):((1,64),(16,1024))")
    check("strand id of thread (3,5) in block (2,1)", g((3, 5), (2, 1)), 3 + 64 * 5 + 16 * 2 + 1024)
    check("OpenMP cyclic chunk=2,P=4,N=24 = logical_divide(24:1,(2,3):(1,8))", logical_divide(L(24, 1), L((2, 3), (1, 8))),
          "((2,3),4):((1,8),2)")
    br = blocked_product(L((8, 8, 8), (1, 8, 64)), L((4, 4, 4), (1, 4, 16)))
    check("32^3 volume in 8^3 bricks (bricks col-major)", br, "((8,4),(8,4),(8,4)):((1,512),(8,2048),(64,8192))")
    check("bricked(x=9,y=17,z=30)", br(9, 17, 30), (9 % 8) + 8 * (17 % 8) + 64 * (30 % 8) + 512 * ((9 // 8) + 4 * (17 // 8) + 16 * (30 // 8)))
    pidl = L(((2, 2), 3), ((1, 6), 2))
    check("Triton grouped pid (M=4 tiles,N=3 tiles,GM=2): (pid_m,pid_n)->pid", [[pidl(m, n) for n in range(3)] for m in range(4)],
          [[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9, 11]])
    def triton_group(pid, npm, npn, GM):          # Triton tutorial's grouped ordering (reference)
        nig = GM * npn; gid = pid // nig; first = gid * GM; gsz = min(npm - first, GM)
        return (first + (pid % nig) % gsz, (pid % nig) // gsz)
    check("pidl^-1 == Triton grouped ordering", all(triton_group(pidl(m, n), 4, 3, 2) == (m, n) for m in range(4) for n in range(3)), True)

def lego_vectors():
    print("== LEGO")
    O2 = OrderBy(RegP([2, 3, 2, 3], [1, 3, 2, 4]))
    O1 = OrderBy(RegP([2, 2], [2, 1]), GenP([3, 3], lambda i, j: antidiag(3, i, j), lambda x: antidiaginv(3, x)))
    G = GroupBy([6, 6], [O1, O2])
    G2 = GroupBy([6, 6], [O2])
    check("fig9: B([6,6],[4,2])", B([6, 6], (4, 2)), 26)
    check("fig9: O2(26)", O2.apply(Binv(O2.dims(), 26)), 23)
    check("fig9: O1(23)", O1.apply(Binv(O1.dims(), 23)), 15)
    check("fig9: apply([4,2])", G.apply((4, 2)), 15)
    check("fig9: inv(15)", G.inv(15), (4, 2))
    # simplified symbolic forms of fig.9, checked exhaustively on the 6x6 domain
    x = lambda i, j: 18 * (i // 3) + 9 * (j // 3) + 3 * (i % 3) + j % 3
    assert all(G2.apply((i, j)) == x(i, j) for i in range(6) for j in range(6))
    assert all(x(i, j) // 18 == i // 3 and (x(i, j) // 9) % 2 == j // 3 and (x(i, j) // 3) % 3 == i % 3
               and x(i, j) % 3 == j % 3 for i in range(6) for j in range(6))
    assert all(G.apply((i, j)) == 9 * (2 * (j // 3) + i // 3) + antidiag(3, i % 3, j % 3) for i in range(6) for j in range(6))
    print("OK   fig9 simplified forms: O2 = 18(i/3)+9(j/3)+3(i%3)+j%3 ; full = 9(2(j/3)+i/3)+antidiag3(i%3,j%3)")
    check("fig9 G.O2 == CuTe ((3,2),(3,2)):((3,18),(1,9))",
          all(G2.apply((r, c)) == L(((3, 2), (3, 2)), ((3, 18), (1, 9)))(r, c) for r in range(6) for c in range(6)), True)
    check("antidiag n=3 row-major table", [antidiag(3, i, j) for i in range(3) for j in range(3)],
          [0, 1, 3, 2, 4, 6, 5, 7, 8])
    for n in range(1, 40):
        assert sorted(antidiag(n, i, j) for i in range(n) for j in range(n)) == list(range(n * n))
        assert all(antidiaginv(n, antidiag(n, i, j)) == (i, j) for i in range(n) for j in range(n))
    print("OK   antidiag bijective & inverse for n=1..39")
    full = [[G.apply((r, c)) for c in range(6)] for r in range(6)]
    print("     fig9 full physical index table (row r, col c):")
    for row in full: print("      ", row)
    assert sorted(sum(full, [])) == list(range(36))
    # eq.7 / fig 10
    G7 = GroupBy([2, 2, 2, 2, 2], [OrderBy(RegP([2, 2, 2, 2, 2], [5, 2, 4, 3, 1]))])
    check("eq7 strides of i1..i5", [G7.apply(tuple(1 if k == m else 0 for k in range(5))) for m in range(5)],
          [1, 8, 2, 4, 16])
    D = L(((2, 2), (2, (2, 2))), ((1, 8), (2, (4, 16))))
    # Graphene D = ([2,2]:[1,8]) . ([2,(2,2)]:[2,(4,16)]): outer (2,2):(1,8), inner (2,(2,2)):(2,(4,16))
    check("eq8 offsets as a set == eq7 offsets", sorted(func(D)) == list(range(32)), True)
    # TileBy sugar
    def sigma_dxq(d, q): return [k + 1 + d * h for k in range(d) for h in range(q)]
    check("sigma for TileBy3x2 (d=2,q=3)", sigma_dxq(2, 3), [1, 3, 5, 2, 4, 6])
    check("sigma for TileBy2x3 (d=3,q=2)", sigma_dxq(3, 2), [1, 4, 2, 5, 3, 6])
    T = GroupBy([2, 2, 3, 3], [OrderBy(RegP([2, 2, 3, 3], sigma_dxq(2, 2)))])
    check("TileBy2x2([2,2],[3,3]) == CuTe (2,2,3,3):(18,3,6,1) (eq.6)",
          all(T.apply(c) == L((2, 2, 3, 3), (18, 3, 6, 1))(c) for c in itertools.product(range(2), range(2), range(3), range(3))), True)
    # Row / Col sugar
    Col = RegP([4, 3], [2, 1])          # Col([3,4]) == RegP([4,3],[2,1])
    check("Col([3,4]).apply(i1,i2) == i1 + 4*i2 (first logical index fastest)",
          all(Col.apply((i, j)) == i + 4 * j for i in range(4) for j in range(3)), True)
    # Figure 4 style: logical 6x4, reshape (2x2)x(3x2), outer RegP transpose, inner reversal GenP
    p = lambda i, j: (3 - 1 - i) * 2 + (2 - 1 - j)
    pinv = lambda x: (3 - 1 - x // 2, 2 - 1 - x % 2)
    G4 = GroupBy([6, 4], [OrderBy(RegP([2, 2], [2, 1]), GenP([3, 2], p, pinv))])
    tab = [[G4.apply((r, c)) for c in range(4)] for r in range(6)]
    print("     fig4-style table (computed):", tab)
    assert sorted(sum(tab, [])) == list(range(24))
    assert all(G4.inv(G4.apply((r, c))) == (r, c) for r in range(6) for c in range(4))

def random_layout(rng, maxmodes=3):
    n = rng.randint(1, maxmodes)
    shape = tuple(rng.choice([1, 2, 3, 4, 6, 8]) for _ in range(n))
    stride = tuple(rng.choice([0, 1, 2, 3, 4, 6, 8, 12, 16]) for _ in range(n))
    return L(shape, stride)

def random_injective_sorted(rng, n_max=3):
    n = rng.randint(1, n_max); d = 1; sh = []; st = []
    for _ in range(n):
        gap = rng.choice([1, 1, 2, 3]); d *= gap; s = rng.choice([2, 3, 4]); sh.append(s); st.append(d); d *= s
    return L(tuple(sh), tuple(st))

def admissible_composition_ok(A, Bl):
    """True if composition succeeds AND matches A(B(i)); None if rejected by divisibility."""
    try:
        R = composition(A, Bl)
    except AssertionError:
        return None
    return func(R) == [A(Bl(i)) for i in range(Bl.size())] and compatible(Bl.shape, R.shape) or \
           (func(R) == [A(Bl(i)) for i in range(Bl.size())] and rank(R.shape) == rank(Bl.shape))

def properties(trials=3000):
    rng = random.Random(1)
    nco = ncomp = ncompl = nbad = 0
    for _ in range(trials):
        A = random_layout(rng)
        C = coalesce(A)
        assert C.size() == A.size() and depth(C.shape) <= 1 and func(C) == func(A); nco += 1
        assert coalesce(C) == C                          # idempotent
    for _ in range(trials):
        # admissible B: a tile T plus its complement w.r.t. size(A), as used by logical_divide
        A = random_layout(rng)
        T = random_injective_sorted(rng, 2)
        if T.cosize() > A.size(): continue
        Bl = make_layout(T, complement(T, A.size()))
        if Bl.size() != A.size(): continue          # T does not tile A exactly: padding/masking case
        r = admissible_composition_ok(A, Bl)
        if r is None: continue
        assert r, (A, Bl); ncomp += 1
    for _ in range(20 * trials):
        # arbitrary injective B can violate A(x+y)=A(x)+A(y): the result is then NOT A o B
        A = random_layout(rng); Bl = random_layout(rng, 3); f = func(Bl)
        if len(set(f)) != len(f) or max(f) >= A.size(): continue
        r = admissible_composition_ok(A, Bl)
        if r is False: nbad += 1
    for _ in range(trials):
        A = random_injective_sorted(rng); M = A.cosize() * rng.choice([1, 2, 3])
        Rc = complement(A, M)
        vals = func(Rc)
        assert all(vals[i - 1] < vals[i] for i in range(1, len(vals)))
        img = set(func(A))
        assert all(v not in img for v in vals[1:])
        AB = make_layout(A, Rc)
        assert len(set(func(AB))) == AB.size() and AB.cosize() >= M; ncompl += 1
    print(f"OK   properties: coalesce x{nco}, composition(A,(T,T*)) x{ncomp}, complement x{ncompl}")
    print(f"NOTE {nbad} random injective-but-inadmissible B gave a layout != A(B(i)) (must be rejected)")

if __name__ == "__main__":
    cute_vectors(); lego_vectors(); properties()

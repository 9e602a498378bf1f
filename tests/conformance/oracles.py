"""oracles.py -- independent oracles for the conformance cases whose examples
ship no reference output (used by suite.toml through `func = "oracles.py:NAME"`).

Each function gets the path of the output being checked and diderot-regress's
helpers `h` (h.load(path) -> numpy array, h.compare_text(ours, expected, abs,
rel) -> (ok, message), h.casedir) and returns a list of problems (empty: the
check passes). Nothing here was produced by running a Diderot compiler: the
expected values are computed from the programs' documented meaning.
"""

import numpy as np


# ---------------------------------------------------------------- tensor
def _fmt(x):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        return "%.9g" % float(x)
    return "[" + ",".join(_fmt(v) for v in x) + "]"


def _pmat(m):
    return "".join(" %s   %s   %s\n" % (_fmt(m[i, 0]), _fmt(m[i, 1]), _fmt(m[i, 2]))
                   for i in range(3))


def tensor_stdout():
    """What tensor.diderot prints, computed with numpy from its source."""
    r0, r1, r2 = np.array([3., 5, 7]), np.array([4., 9, 2]), np.array([8., 1, 6])
    f = _fmt
    o = ["\nGiven vec3 r0, r1, r2:\n"]
    for n, r in (("r0", r0), ("r1", r1), ("r2", r2)):
        o.append("%s = [%s,%s,%s] = %s\n" % (n, f(r[0]), f(r[1]), f(r[2]), f(r)))
    o.append("r00 = %s\n" % f(r0[0]))
    o.append("\ntensor[3,3] mm=[r0,r1,r2]:\n")
    mm = np.array([r0, r1, r2])
    for i, r in enumerate((r0, r1, r2)):
        o.append("mm[%d,:] = [%s,%s,%s] = %s = %s\n" % (i, f(mm[i, 0]), f(mm[i, 1]), f(mm[i, 2]),
                                                       f(mm[i, :]), f(r)))
    o.append("mm[:,:] = %s = %s =\n" % (f(mm), f(mm)))
    o.append(_pmat(mm))
    o.append("(foo=1)\n")
    o.append("\nNon-square tensor[2,3] ll=[r0,r1]:\n")
    ll = np.array([r0, r1])
    o.append("ll[0,:] = %s = %s\n" % (f(ll[0]), f(r0)))
    o.append("ll[1,:] = %s = %s\n" % (f(ll[1]), f(r1)))
    o.append("ll = %s\n" % f(ll))
    o.append("\nContracting out and selecting on first index:\n")
    e = np.eye(3)
    rr = [e[i] @ mm for i in range(3)]
    for i in range(3):
        o.append("rr%d = %s (*) mm = %s\n" % (i, f(e[i]), f(rr[i])))
    rr0 = np.array([3.5, rr[0][1], rr[0][2]])
    o.append("\nNew rr0 = %s\n" % f(rr0))
    o.append("\nContracting out and selecting on second index:\n")
    for i in range(3):
        o.append("cc%d = mm (*) %s = %s\n" % (i, f(e[i]), f(mm @ e[i])))
    o.append("\nContracting out two indices to get a scalar, and matrix-matrix multiplication\n")
    ss = np.zeros((3, 3))
    o.append("ss = zeros[3,3] = %s\n" % f(ss))
    o.append("mm:zeros[3,3] = %s\n" % f((mm * ss).sum()))
    first = True
    for (i, j) in ((0, 0), (0, 1), (0, 2), (2, 0)):
        ss = np.zeros((3, 3))
        ss[i, j] = 1
        o.append("%sNow ss[%d,%d] = %s => mm:ss = %s => ss:mm = %s\n"
                 % ("" if first else "\n", i, j, f(ss[i, j]), f((mm * ss).sum()), f((ss * mm).sum())))
        first = False
        o.append("mm (*) ss = %s = \n" % f(mm @ ss))
        o.append(_pmat(mm @ ss))
        o.append("ss (*) mm = %s = \n" % f(ss @ mm))
        o.append(_pmat(ss @ mm))
    o.append("\nTensor (outer) product of two or three vectors:\n")
    aa, bb, cc = np.array([0., 1, 2]), np.array([2., 3, 4]), np.array([1, 0.5, 0.25])
    ab = np.multiply.outer(aa, bb)
    o.append("aa = %s; bb = %s; aa (x) bb = %s =\n" % (f(aa), f(bb), f(ab)))
    o.append(_pmat(ab))
    o.append("ab[1,2] = %s\n" % f(ab[1, 2]))
    abc = np.multiply.outer(ab, cc)
    o.append("cc = %s; aa (x) bb (x) cc = %s\n" % (f(cc), f(abc)))
    return "".join(o), abc


def tensor(path, h):
    with open(path) as fh:
        ours = fh.read()
    want, _ = tensor_stdout()
    ok, msg = h.compare_text(ours, want, 0, 1e-6)
    return [] if ok else ["printed output differs from the oracle: " + msg]


def tensor_out(path, h):
    """out.nrrd holds the 27 values of abc = aa⊗bb⊗cc, slow to fast (the source's
    comment); the original writes them as a 27x1 list."""
    a = h.load(path)
    _, abc = tensor_stdout()
    probs = []
    if a.size != 27:
        probs.append("sizes %s: not 27 values" % list(reversed(a.shape)))
    elif not np.allclose(a.ravel(), abc.ravel()):
        probs.append("values %s, expected %s" % (a.ravel().tolist(), abc.ravel().tolist()))
    return probs


# ---------------------------------------------------------------- sieve
def primes_upto(n):
    flags = np.ones(n + 1, bool)
    flags[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if flags[i]:
            flags[i * i::i] = False
    return np.nonzero(flags)[0]


def sieve_1000(path, h):
    a = h.load(path).ravel()
    want = primes_upto(1000)
    if a.shape != want.shape or not (a == want).all():
        return ["%d values %s..., expected the %d primes up to 1000 %s..."
                % (a.size, a[:12].tolist(), want.size, want[:12].tolist())]
    return []

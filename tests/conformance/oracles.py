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


# ---------------------------------------------------------------- fs2d / fs3d
def _vectors(text):
    import re
    return [[float(v) for v in g.split(",")] for g in re.findall(r"\(([^)]*)\)", text)]


def world_positions(nrrd):
    """World position of every sample of a scalar NRRD (shape of the data +
    a last axis for the coordinates), from its space origin and directions."""
    hdr = nrrd.header
    origin = np.array(_vectors(hdr["space origin"])[0])
    dirs = [np.array(d) for d in _vectors(hdr["space directions"])]
    sizes = [int(s) for s in hdr["sizes"].split()]
    idx = np.meshgrid(*[np.arange(s) for s in reversed(sizes)], indexing="ij")
    pos = np.zeros(tuple(reversed(sizes)) + (len(origin),))
    for axis, d in enumerate(dirs):       # NRRD axis 0 is the fastest
        pos += idx[len(sizes) - 1 - axis][..., None] * d
    return pos + origin


def _check_field(path, h, func, atol, rtol=1e-5, sizes=None):
    from importlib import import_module  # noqa: F401  (keep the namespace small)
    n = h.load_nrrd(path)
    probs = []
    if sizes is not None and [int(s) for s in n.header["sizes"].split()] != sizes:
        probs.append("sizes %s, expected %s" % (n.header["sizes"], sizes))
        return probs
    pos = world_positions(n)
    want = func(pos)
    got = n.data.astype(np.float64)
    if got.shape != want.shape:
        return ["data shape %s, oracle %s" % (got.shape, want.shape)]
    bad = ~(np.abs(got - want) <= atol + rtol * np.abs(want))
    if bad.any():
        i = np.unravel_index(int(np.argmax(bad)), bad.shape)
        probs.append("%d of %d samples differ from the function at their world position "
                     "(first at %s: %r, expected %r)" % (bad.sum(), bad.size, list(i),
                                                          float(got[i]), float(want[i])))
    return probs


def fs2d_parab(path, h):
    """`fs2d-scl -which parab`: x^2 + y^2 on a 101x100 grid of width 1
    centred on the origin (the program's defaults and its own header)."""
    probs = _check_field(path, h, lambda p: (p ** 2).sum(axis=-1), 1e-6, sizes=[101, 100])
    n = h.load_nrrd(path)
    centre = world_positions(n).reshape(-1, 2).mean(axis=0)
    if np.abs(centre).max() > 1e-5:
        probs.append("grid not centred on the origin: mean position %s" % centre)
    return probs


def fs3d_parab(path, h):
    """`fs3d-scl -which parab`: x^2 + y^2 + z^2 at each sample's world position."""
    return _check_field(path, h, lambda p: (p ** 2).sum(axis=-1), 1e-6)


def fs3d_vec_foo(path, h):
    """`fs3d-vec -which foo` (tensor2's vec.nrrd):
    F(x,y,z) = [x,2y,4z] + x[0.4,0.2,0.1] + x^2[0,0.5,0] + yz[0,0,1]."""
    n = h.load_nrrd(path)
    hdr = n.header
    sizes = [int(s) for s in hdr["sizes"].split()]
    if sizes[0] != 3:
        return ["not a 3-vector field: sizes %s" % sizes]
    origin = np.array(_vectors(hdr["space origin"])[0])
    dirs = [np.array(d) for d in _vectors(hdr["space directions"]) if d]
    grid = np.meshgrid(*[np.arange(s) for s in reversed(sizes[1:])], indexing="ij")
    pos = np.zeros(tuple(reversed(sizes[1:])) + (3,)) + origin
    for axis, d in enumerate(dirs):
        pos = pos + grid[len(sizes) - 2 - axis][..., None] * d
    x, y, z = pos[..., 0], pos[..., 1], pos[..., 2]
    want = np.stack([1.4 * x, 0.2 * x + 0.5 * x * x + 2 * y, 0.1 * x + y * z + 4 * z], axis=-1)
    got = n.data.astype(np.float64)
    err = np.abs(got - want) / (1 + np.abs(want))
    if err.max() > 1e-5:
        return ["vec.nrrd differs from F at the sample positions by up to %.3g (relative)" % err.max()]
    return []


# ---------------------------------------------------------------- tensor2
def tensor2(path, h):
    """tensor2 probes F (the field above, reconstructed with c4hexic, which
    is exact for these quadratics up to float rounding) and its first and
    second derivatives at the origin; the expected values are the analytic
    ones."""
    import re
    with open(path) as fh:
        text = fh.read()
    F = {"[0,0,0]": [0, 0, 0], "[1,0,0]": [1.4, 0.7, 0.1], "[0,1,0]": [0, 2, 0], "[0,0,1]": [0, 0, 4]}
    J = [[1.4, 0, 0], [0.2, 2, 0], [0.1, 0, 4]]
    K = np.zeros((3, 3, 3))
    K[1, 0, 0] = 1
    K[2, 1, 2] = K[2, 2, 1] = 1
    want = {}
    for k, v in F.items():
        want["F(%s) = " % k] = v
    for i in range(3):
        want["J[%d,:] = " % i] = J[i]
        want["K[%d,:,:] = " % i] = K[i].ravel().tolist()
    want["K = "] = K.ravel().tolist()
    probs = []
    for prefix, vals in want.items():
        line = next((l for l in text.splitlines() if l.startswith(prefix)), None)
        if line is None:
            probs.append("no line starting %r" % prefix)
            continue
        got = [float(t) for t in re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", line[len(prefix):])]
        if len(got) != len(vals) or not np.allclose(got, vals, atol=1e-4, rtol=0):
            probs.append("%s%s, expected %s" % (prefix, got, vals))
    return probs


# ---------------------------------------------------------------- particle systems
def halftone_ramp(path, h):
    """halftone on the linear ramp (0 at x=-1, 1 at x=1): particles stay in
    the (padded) image domain and their density grows with x."""
    a = h.load(path)
    probs = []
    if a.ndim != 2 or a.shape[1] != 2:
        return ["pos.nrrd is not a list of 2-vectors: shape %s" % (a.shape,)]
    x, y = a[:, 0], a[:, 1]
    # img.nrrd is [-1,1]x[-0.5,0.5] padded by 2 samples of 0.005 (inside() holds there)
    if np.abs(x).max() > 1.0 + 0.011 or np.abs(y).max() > 0.5 + 0.011:
        probs.append("positions outside the image domain: x in [%.4f, %.4f], y in [%.4f, %.4f]"
                     % (x.min(), x.max(), y.min(), y.max()))
    counts = np.histogram(x, bins=8, range=(-1, 1))[0]
    centres = np.linspace(-1, 1, 9)[:-1] + 0.125
    r = np.corrcoef(centres, counts)[0, 1]
    if not r > 0.9:
        probs.append("x histogram %s does not grow with x (correlation %.3f)" % (counts.tolist(), r))
    if not counts[-1] > 3 * max(counts[0], 1):
        probs.append("x histogram %s: the bright end is not denser than the dark end" % counts.tolist())
    return probs


# ---------------------------------------------------------------- plot1d
def _plot_check(path, h, f, xmm, ymm, margin=0.3, maxslope=2.0, tol=1.0, xsize=None, ysize=None):
    """plot1d's rgb.nrrd (3 x xsize x ysize): in each column whose world x is
    in a region where f is smooth, the plotted curve (pixels drawn towards
    plotrgb [0.4,0,0] over the white background: membership 1 - G) is
    centred on row yw2i(f(x)), within tol pixels."""
    a = h.load(path).astype(np.float64)          # (ysize, xsize, 3)
    ys, xs = a.shape[0], a.shape[1]
    xw = xmm[0] + (np.arange(xs) + 0.5) * (xmm[1] - xmm[0]) / xs      # xi2w
    fy = f(xw)
    slope = np.gradient(fy, xw) * ((ys - 1) / (ymm[1] - ymm[0])) / ((xs - 1) / (xmm[1] - xmm[0]))
    want = -0.5 + (fy - ymm[1]) * ys / (ymm[0] - ymm[1])               # yw2i
    member = np.clip(1 - a[:, :, 1], 0, 1)
    # ignore the axes and tick marks: only strongly red pixels count
    red = (a[:, :, 0] - a[:, :, 1]) > 0.05
    member = member * red
    rows = np.arange(ys)[:, None]
    probs = []
    checked = 0
    worst = 0.0
    for x in range(xs):
        if not (np.isfinite(fy[x]) and abs(slope[x]) <= maxslope
                and ymm[0] + margin < fy[x] < ymm[1] - margin):
            continue
        m = member[:, x]
        if m.sum() < 1:
            probs.append("column %d (x=%.3f): no curve; expected at row %.1f" % (x, xw[x], want[x]))
            break
        got = (m * rows[:, 0]).sum() / m.sum()
        worst = max(worst, abs(got - want[x]))
        checked += 1
        if abs(got - want[x]) > tol:
            probs.append("column %d (x=%.3f): curve centred on row %.2f, expected %.2f (f=%.4f)"
                         % (x, xw[x], got, want[x], fy[x]))
            break
    if not checked:
        probs.append("no column to check")
    return probs


def plot1d_ramp12_v1(path, h):
    """README: data is the line y=x (M=12); plotted with -xmm -12 12 -ymm -4 4."""
    return _plot_check(path, h, lambda x: x, (-12, 12), (-4, 4))


def plot1d_ramp12_v2(path, h):
    """plot1d-2.0 README: the same line plotted with -xmm -12 12 -ymm -2 2."""
    return _plot_check(path, h, lambda x: x, (-12, 12), (-2, 2), maxslope=4.0)


def _fsweep(k):
    """The .test.sh's lifted functions of F0, where F0 = c4hexic ⊛ (0 for
    x <= -2, a ramp x for x >= -1): exactly 0 for x < -4 and x for x > 3
    (c4hexic has support [-3,3] and reproduces lines)."""
    def region(x, inner):
        out = np.full_like(x, np.nan)
        left, right = x < -4.2, x > 3.2
        out[left] = inner(np.zeros_like(x[left]), np.zeros_like(x[left]))
        out[right] = inner(x[right], np.ones_like(x[right]))
        return out
    fs = [lambda v, d: v, lambda v, d: -v, lambda v, d: np.abs(v), lambda v, d: np.sin(v),
          lambda v, d: np.cos(v) * d, lambda v, d: np.abs(np.cos(v) * d),
          lambda v, d: -np.sin(v) * np.sign(np.cos(v)) * d * d]
    f = fs[k]

    def g(x):
        y = region(x, f)
        if k == 6:      # |cos| has corners where cos = 0: skip their neighbourhood
            y[np.abs(np.cos(x)) < 0.15] = np.nan
        return y
    return g


def plot1d_fsweep(path, h):
    import os
    k = int(os.path.basename(path)[len("rgb-f"):len("rgb-f") + 2])
    return _plot_check(path, h, _fsweep(k), (-10, 10), (-3, 3))


def circle_angles(path, h):
    """angles.png (one row per snapshot, an 800-bin histogram of the
    particles' angles): the last row has 60 occupied bins (60 particles,
    evenly spread, never two in a bin); rows 0-9 equal the reference's: the
    initial positions are the same vec2.nrrd and, computing in double,
    rounding differences cannot move a particle by a bin (2pi/800) in ten
    steps; a different algorithm does."""
    import os
    name = os.path.basename(h.casedir)
    ref = {"circle": "{corpus}/circle/ref/angles.png",
           "circle-2.0": "{corpus}/circle-2.0/angles-ref.png"}[name]
    a = h.load(path)
    b = h.load(ref)
    if b.ndim == 3:
        b = b[..., 0]
    if a.ndim == 3:
        a = a[..., 0]
    probs = []
    if a.shape[1] != 800:
        return ["angles.png is %s, expected 800 columns" % (a.shape,)]
    occupied = int((a[-1] > 0).sum())
    if occupied != 60:
        probs.append("last row has %d occupied angle bins, expected 60" % occupied)
    rows = min(10, a.shape[0], b.shape[0])
    for r in range(rows):
        if not (a[r] == b[r]).all():
            probs.append("row %d (snapshot %d) differs from the reference in %d bins"
                         % (r, r, int((a[r] != b[r]).sum())))
            break
    if not 0.5 * b.shape[0] <= a.shape[0] <= 500:
        probs.append("%d snapshots; the reference converged after %d" % (a.shape[0], b.shape[0]))
    return probs


def sphere_points(path, h):
    """sphere (README: -rad 0.15, from 2 particles): hundreds of particles
    on the unit sphere, evenly spaced (the program's own criterion is a
    coefficient of variation of closest distances below 0.033)."""
    a = h.load(path)
    probs = []
    if a.ndim != 2 or a.shape[1] != 3:
        return ["pos.nrrd is not a list of 3-vectors: %s" % (a.shape,)]
    n = a.shape[0]
    if not 800 <= n <= 2500:
        probs.append("%d particles; rad 0.15 packs roughly 1300 on the unit sphere" % n)
    r = np.sqrt((a ** 2).sum(axis=1))
    if np.abs(r - 1).max() > 1e-6:
        probs.append("particles off the unit sphere by up to %.3g" % np.abs(r - 1).max())
    d = h.nn(a)
    cv = d.std() / d.mean()
    if cv > 0.05:
        probs.append("closest-neighbour distances vary too much: COV %.4f" % cv)
    if not 0.07 < d.mean() < 0.13:
        probs.append("mean closest distance %.4f, expected about 0.1 (2/3 of rad)" % d.mean())
    return probs


def dvr_same_sphere(path, h):
    """dvr README: the three samplings (sphere-0/1/2: plain, rotated, rotated
    and sheared grids) of the same paraboloid, reconstructed with ctmr (exact
    for quadratics), must show "the same sphere (with the same shading and
    same specular highlight)", surrounded by different fog. Where all three
    renderings are opaque (the sphere), their colours agree."""
    imgs = [h.load("rgba-%d.nrrd" % i).astype(np.float64) for i in range(3)]
    if any(im.shape != imgs[0].shape or im.shape[-1] != 4 for im in imgs):
        return ["rgba-?.nrrd: shapes %s" % [im.shape for im in imgs]]
    opaque = np.ones(imgs[0].shape[:2], bool)
    for im in imgs:
        opaque &= im[..., 3] > 0.98
    n = int(opaque.sum())
    if n < 5000:
        return ["only %d pixels are opaque in all three renderings: no common sphere" % n]
    # sphere-1 (rotated grid) agrees within 0.03 almost everywhere; sphere-2
    # (rotated and sheared, 19 samples along its slow axis) less well: the
    # original compiler's own renderings differ by up to 0.095 there, so its
    # bound is 0.12. A wrong world-space gradient (shading) differs by far more.
    probs = []
    for i, thr, allowed in ((1, 0.03, 0.01), (2, 0.12, 0.0)):
        d = np.abs(imgs[i][..., :3] - imgs[0][..., :3])[opaque].max(axis=1)
        frac = float((d > thr).mean())
        if frac > allowed:
            probs.append("sphere-%d differs from sphere-0 by more than %g in %.2f%% of the %d "
                         "sphere pixels (max %.3f)" % (i, thr, 100 * frac, n, d.max()))
    return probs

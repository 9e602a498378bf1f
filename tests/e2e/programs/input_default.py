"""input_default: input defaults computed by the program (doc/language.md
§3, an extension): world_min/world_max/sample_min/sample_max/size of an
input image, and defaults that read earlier inputs. Each default is
evaluated after the inputs it reads are set (the command line first) and
only when its own input is not given.

Oracle: the world box from the 2^d corners of the index box in exact
rationals, Python's min and max over the samples written (a NaN left
out), and the defaults' formulas applied in declaration order to the
values given on the command line or computed before. Directions, origins
and samples are dyadic rationals of few bits: float holds every answer."""

import itertools
import math
import os
import shutil
from fractions import Fraction as Q

import e2elib
from e2elib import nrrd

VARIANTS = ["float", "double"]
NAN = float("nan")


class Img:
    def __init__(self, sizes, dirs, origin, samples):
        self.sizes, self.dirs, self.origin, self.samples = sizes, dirs, origin, samples

    def write(self, t, name):
        n = nrrd.Nrrd(t.real, self.sizes, [float(v) for v in self.samples],
                      kinds=["space"] * len(self.sizes), space_dim=len(self.sizes),
                      space_directions=[tuple(float(x) for x in v) for v in self.dirs],
                      space_origin=tuple(float(x) for x in self.origin))
        t.write_nrrd(name, n)

    def box(self):
        d = len(self.sizes)
        pts = [[Q(self.origin[r]) + sum(Q(self.dirs[a][r]) * idx[a] for a in range(d))
                for r in range(d)]
               for idx in itertools.product(*[(0, n - 1) for n in self.sizes])]
        return [min(p[r] for p in pts) for r in range(d)], [max(p[r] for p in pts) for r in range(d)]

    def srange(self):
        vals = [v for v in self.samples if not math.isnan(v)]
        return min(vals), max(vals)


def samples(n, k):
    return [((7 * j + k) % 11 - 5) * 0.375 + (0.0625 if j % 3 == 0 else 0.0) for j in range(n)]


# sheared, one direction negative: the box is not origin .. origin + M·(N-1)
QIMG = Img([4, 3], [[Q(1, 2), Q(1, 4)], [Q(-1), Q(2)]], [Q(3, 2), Q(-13, 4)],
           samples(12, 2)[:5] + [NAN] + samples(12, 2)[6:])
OTHER = Img([5, 2], [[Q(0), Q(-3, 2)], [Q(5, 4), Q(0)]], [Q(-7, 8), Q(1, 16)], samples(10, 7))
OUTS = [n + ".nrrd" for n in ("lo_", "hi_", "range", "mid_", "n", "span_")]


def expected(img, given):
    """The inputs in declaration order: given ones as given, the others by
    their default's formula over the values before them."""
    v = {}
    lo, hi = img.box()
    v["lo"] = given.get("lo", lo)
    v["hi"] = given.get("hi", hi)
    smin, smax = img.srange()
    v["vmin"] = given.get("vmin", smin)
    v["vmax"] = given.get("vmax", smax)
    v["mid"] = given.get("mid", (Q(v["vmin"]) + Q(v["vmax"])) / 2)
    v["nx"] = given.get("nx", img.sizes[0] * 2)
    v["ny"] = given.get("ny", v["nx"] + img.sizes[1])
    return v


def check(t, v, label):
    want = {"lo_": ([2], v["lo"]), "hi_": ([2], v["hi"]), "range": ([2], [v["vmin"], v["vmax"]]),
            "mid_": ([], [v["mid"]]), "span_": ([], [Q(v["vmax"]) - Q(v["vmin"])])}
    for name, (shp, vals) in want.items():
        n = e2elib.grid_output(t, name, [1], shp)
        t.equal("%s %s" % (label, name), n.data, [float(x) for x in vals], convert=float)
    n = e2elib.grid_output(t, "n", [1], [2], type="int",
                           seq=True)
    t.equal("%s n" % label, n.data, [v["nx"], v["ny"]])


CASES = [
    ("defaults", [], None, {}),
    ("another image", ["-img", "other.nrrd"], OTHER, {}),
    ("vmin given", ["-img", "other.nrrd", "-vmin", "2.5"], OTHER, {"vmin": Q(5, 2)}),
    ("nx given", ["-nx", "5"], None, {"nx": 5}),
    ("mid, ny, lo given", ["-mid", "0.25", "-ny", "3", "-lo", "-1", "0.5"], None,
     {"mid": Q(1, 4), "ny": 3, "lo": [Q(-1), Q(1, 2)]}),
]


def run_lib(t):
    """The library (input_default_client.c): the image and vmin set before
    Def_create_strands, the other inputs computed by it (the getters)."""
    if t.fake:   # (the harness check: the executable's zero outputs fail already)
        return
    if any(f.startswith("--target=") for f in t.flags()) or t.run_args:
        return   # the C target's library only (the other modes check the executable)
    shutil.copyfile(os.path.join(os.path.dirname(t.program), "input_default_client.c"),
                    t.path("client.c"))
    env = dict(os.environ, DIDEROT_RT_DIR=t.builddir)
    env.update(t.env)

    def tool(argv, what):
        r = e2elib.run_killable(argv, t.dir, e2elib.COMPILE_TIMEOUT, env)
        if isinstance(r, str):
            raise e2elib.Abort(r)
        if r[0] != 0:
            for line in r[2].splitlines():
                if e2elib.NOT_YET_RE.search(line):
                    raise e2elib.Skip(line.strip())
            t.failures += ["%s failed (exit %d): %s" % (what, r[0], " ".join(argv))] \
                + e2elib.excerpt(r[2] or r[1])
            raise e2elib.Abort(None)
    # (products named prog*: run_e2e.py compares every other file between modes)
    tool([t.diderotc, "--namespace=Def"] + t.flags() + ["-o", "proglib",
                                                        os.path.basename(t.program)],
         "diderotc (library)")
    cc = (os.environ.get("CC") or "cc").split()
    cflags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + t.dir, '-DLIBH="proglib.h"',
              "-DREAL=" + t.real] + os.environ.get("CFLAGS_DIDEROT_EXTRA", "").split()
    tool(cc + cflags + ["client.c", "proglib.o", "-lteem", "-lm", "-o", "progclient"],
         "the C client")
    p = t.exec(["other.nrrd", "-"], expect_rc=None, exe=t.path("progclient"))
    got = {}
    for line in p.out.splitlines():
        if line.startswith("FAIL"):
            t.fail("library client: " + line)
        w = line.split()
        if len(w) >= 2:
            got[w[0]] = [float(x) for x in w[1:]]
    if p.rc != 0:
        t.fail("library client: exit status %d" % p.rc)
        return
    v = expected(OTHER, {"vmin": Q(5, 2)})
    for name in ("lo", "hi", "vmin", "vmax", "mid", "nx", "ny"):
        want = v[name] if isinstance(v[name], list) else [v[name]]
        t.equal("library " + name, got.get(name, []), [float(x) for x in want], convert=float)


def run(t):
    QIMG.write(t, "q.nrrd")
    OTHER.write(t, "other.nrrd")
    t.compile()
    for label, args, img, given in CASES:
        e2elib.remove_outputs(t, OUTS)
        t.exec(args)
        check(t, expected(img or QIMG, given), label)
    # the usage shows a computed default's expression, not a value
    p = t.exec(["--help"], expect_rc=None)
    text = " ".join(p.out.split())
    for want in ('-lo <x y> = lower corner (2 %ss); default: "world_min(img)"' % t.real,
                 '-ny <int> = (int); default: "nx + size(img)[1]"'):
        if not t.fake and (want not in text) != t.perturb:
            t.fail("--help: no %r in %r" % (want, text[-600:]))
    run_lib(t)

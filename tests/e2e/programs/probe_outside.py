"""probe_outside: probes without border control outside the image (§8.5) are
a run-time error, never a read outside the samples.

The image samples P = 1 + 2x - 3y on an axis-aligned 8 x 7 grid (spacings
1/2, 1/4, origin (-2, -1)); tent and ctmr reproduce it exactly. Oracle: the
exact index positions p = W·(x - o); a probe of support s is valid when
s-1 <= floor(p_a) <= N_a-1-s on every axis (all its taps are samples).

  * good runs: index positions (1, 1) (ctmr's first valid position, where
    inside() is still false: it is strict) and (N-2-1/4) (the last
    dyadic one before ctmr's end), and tent at (0, 0) and N-1-1/4: t and c
    are exactly P; g (the inside()-guarded probe) is P where inside() holds;
  * bad runs (strand 2 probes at `bad`): index (N_0-2, 3) (ctmr's first
    invalid index on axis 0; tent is still valid there), far away, NaN and
    +inf: exit status 1, no output file, one message on stderr naming the
    strand, the image 'img', the source line, the position as given and the
    index and size of the image;
  * the guarded program with a NaN position runs: g = -1 for strand 2;
  * the library: the same error through NS_get_errors, NS_run returns 0,
    no crash (a C client, -Wall -Wextra -Werror).
"""

import os
import re
from fractions import Fraction as Q

import e2elib
from polyfield import Grid, variables

VARIANTS = ["float", "double"]
x, y = variables(2)
P = 1 + 2 * x - 3 * y
G = Grid.aligned([8, 7], [Q(1, 2), Q(1, 4)], [-2, -1])
N0, N1 = G.sizes
NS = 4
LINE_T, LINE_C = 26, 27   # the lines of `t = T(x);` and `c = C(x);` in the program


def world(p):
    return G.world([Q(v) for v in p])


def value(p):
    return P(world(p))


def fmt(v):
    """The runtime's %.7g of a coordinate."""
    return "%.7g" % float(v)


OUTS = ("t.nrrd", "c.nrrd", "g.nrrd")


# Reals are compared exactly (t.equal with convert=float): dyadic positions
# and kernel weights of few bits, so every product and sum is exact in float
# too.



def good_run(t, p, tent_p=None, guarded=False):
    """All strands probe at index position p; t, c (and g) must be exact."""
    e2elib.remove_outputs(t, OUTS)
    xw = world(p)
    args = ["-good", xw[0], xw[1]] + (["-guarded", "true"] if guarded else [])
    t.exec(args)
    exp = float(value(p))
    if not guarded:
        for name in ("t", "c"):
            n = e2elib.grid_output(t, name, [NS], [])
            t.equal("%s at index %s" % (name, p), n.data, [exp] * NS, convert=float)
    ins = G.inside(xw, 2)
    n = e2elib.grid_output(t, "g", [NS], [])
    t.equal("g at index %s" % (p,), n.data, [exp if guarded and ins else -1.0] * NS, convert=float)


def bad_run(t, bad_text, pos_re, idx_re, line):
    e2elib.remove_outputs(t, OUTS)
    good = world([3, 3])
    p = t.exec(["-good", good[0], good[1], "-which", 2, "-bad"] + bad_text, expect_rc=1)
    left = [f for f in OUTS if os.path.exists(t.path(f))]
    if left:
        t.fail("bad position %s: outputs written: %s" % (bad_text, left))
    want = (r"^\S+: error: strand 2: probe at line %d of a field outside its image 'img' at "
            r"position \(%s\) \[index \(%s\), image is %dx%d\]: use inside\(pos, F\) or border "
            r"control \(clamp/wrap/mirror\)$" % (line, pos_re, idx_re, N0, N1))
    lines = [l for l in p.err.splitlines() if l.strip()]
    if len(lines) != 1 or not re.match(want, lines[0]):
        t.fail("bad position %s: stderr %r does not match %r" % (bad_text, p.err, want))


CLIENT = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"
int main(void) {
  int fail = 0;
  P_world_t *w = P_new_world();
  if (!w || P_init_world(w)) return 2;
  REAL good[2] = {GX, GY}, bad[2] = {BX, BY};
  if (P_input_set_good(w, good) || P_input_set_bad(w, bad) || P_input_set_which(w, 2)) fail = 1;
  if (P_create_strands(w)) { printf("FAIL create_strands\n"); fail = 1; }
  if (P_run(w, 0) != 0) { printf("FAIL run returned steps\n"); fail = 1; }
  if (!P_any_errors(w)) { printf("FAIL no error recorded\n"); fail = 1; }
  char *e = P_get_errors(w);
  if (!e || !strstr(e, "strand 2: probe at line") || !strstr(e, "outside its image 'img'") ||
      !strstr(e, "image is 8x7")) {
    printf("FAIL errors: %s\n", e ? e : "(none)");
    fail = 1;
  }
  free(e);
  /* the world refuses to go on, with an error, and shuts down cleanly */
  if (P_run(w, 0) != 0 || !P_any_errors(w)) { printf("FAIL second run\n"); fail = 1; }
  free(P_get_errors(w));
  P_shutdown(w);
  return fail;
}
"""


def library(t):
    dc = t.diderotc
    src = os.path.basename(t.program)
    rc, out, err = run_tool(t, [dc, "--namespace=P"] + t.flags() + ["-o", "lib", src])
    if rc != 0:
        t.fail("library build failed: %s" % err)
        return
    t.write_text("client.c", CLIENT)
    good, bad = world([3, 3]), world([N0 - 2, 3])
    cc = (os.environ.get("CC") or "cc").split()
    defs = ["-DREAL=" + t.real, "-DGX=%r" % float(good[0]), "-DGY=%r" % float(good[1]),
            "-DBX=%r" % float(bad[0]), "-DBY=%r" % float(bad[1])]
    rc, out, err = run_tool(t, cc + ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + t.dir]
                            + defs + os.environ.get("CFLAGS_DIDEROT_EXTRA", "").split()
                            + ["-o", "client", "client.c", "lib.o", "-lteem", "-lm"])
    if rc != 0:
        t.fail("client build failed: %s" % err)
        return
    p = t.exec([], expect_rc=None, exe=t.path("client"))
    if p.rc != 0:
        t.fail("library client: exit status %d: %s" % (p.rc, p.out))
    # the modes compare the work directory's files with another target's
    for f in ("client", "client.c", "lib.h", "lib.o"):
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))


def run_tool(t, argv):
    e = dict(os.environ, DIDEROT_RT_DIR=t.builddir)
    e.update(t.env)
    r = e2elib.run_killable(argv, t.dir, e2elib.COMPILE_TIMEOUT, e)
    if isinstance(r, str):
        raise e2elib.Abort(r)
    if r[0] < 0:
        raise e2elib.Abort("%s crashed with signal %d" % (argv[0], -r[0]))
    return r


def run(t):
    G.write(t.path("lin.nrrd"), P, t.real)
    # the index positions are exact in the real type (dyadic)
    assert not G.inside(world([1, 1]), 2) and G.inside(world([N0 - Q(9, 4), N1 - Q(9, 4)]), 2)
    t.compile()
    good_run(t, [1, 1])                               # ctmr's first valid index position
    good_run(t, [N0 - Q(9, 4), N1 - Q(9, 4)])         # ctmr's last dyadic valid one (N-2-1/4)
    good_run(t, [N0 - Q(9, 4), N1 - Q(9, 4)], guarded=True)
    bp = world([N0 - 2, 3])                            # ctmr: floor(p_0) = N_0-2 > N_0-3
    bad_run(t, [bp[0], bp[1]], re.escape("%s, %s" % (fmt(bp[0]), fmt(bp[1]))),
            "%d, 3" % (N0 - 2), LINE_C)                # tent is valid there
    bad_run(t, [1e30, 0], r"1e\+30, 0", r"out of range, \d+", LINE_T)
    bad_run(t, ["nan", "nan"], r"-?nan, -?nan", "out of range, out of range", LINE_T)
    # (axis 1's index is 0·inf = NaN: the transform mixes the axes)
    bad_run(t, ["inf", 1], r"inf, 1", r"out of range, out of range", LINE_T)
    # inside() guards: the NaN strand skips its probe
    e2elib.remove_outputs(t, OUTS)
    good = world([3, 3])
    t.exec(["-good", good[0], good[1], "-which", 2, "-bad", "nan", "nan", "-guarded", "true"])
    n = e2elib.grid_output(t, "g", [NS], [])
    t.equal("guarded g", n.data, [value([3, 3])] * 2 + [-1.0] + [value([3, 3])], convert=float)
    if not any(f.startswith("--target") for f in t.flags()) and not t.fake:
        library(t)   # (the sequential library; the modes test the executables)

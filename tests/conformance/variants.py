#!/usr/bin/python3
"""variants.py -- the conformance corpus (tests/conformance, the public
Diderot examples) under other schedules: every case's script run by
tools/regress/diderot-regress once as it is and once for each variant,
a variant being diderotc flags added to every compilation of a program
(--image-layout=halo:8, --strand-layout=soa, ...); the cases must pass
their checks, and every file the scripts write (outputs, text, pictures)
must be byte-identical to the default run's: a layout changes where data
lives, never a result.

    variants.py --diderotc PATH --out DIR [--variant "FLAGS"]... [-k CASE]... [-j N]

Prints `N passed, N failed` (a case under one variant is one test) and
exits 1 on a failure. Without --variant: the image layouts brick:4, halo:4
and halo:8.

As the compiler (diderot-regress --diderotc) this file is its own wrapper:
`variants.py --wrap ...diderotc arguments...` (with CONF_VARIANT_REAL and
CONF_VARIANT_FLAGS in the environment) runs the real diderotc with the
flags added where it compiles a .diderot file.
"""

import argparse
import os
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus_runs import compare_with_base  # noqa: E402

DEFAULT_VARIANTS = ["--image-layout=brick:4", "--image-layout=halo:4", "--image-layout=halo:8"]


def wrap(argv):
    real = os.environ["CONF_VARIANT_REAL"]
    flags = shlex.split(os.environ.get("CONF_VARIANT_FLAGS", ""))
    if any(a.endswith(".diderot") for a in argv):
        argv = flags + argv
    os.execv(real, [real] + argv)


def main(argv):
    if argv[:1] == ["--wrap"]:
        return wrap(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--diderotc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("-k", dest="select", action="append", default=[])
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    a = ap.parse_args(argv)
    dc = os.path.abspath(a.diderotc)
    variants = [(flags, "v%d" % k, dict(os.environ, CONF_VARIANT_REAL=dc, CONF_VARIANT_FLAGS=flags))
                for k, flags in enumerate(a.variant or DEFAULT_VARIANTS)]
    return compare_with_base("variants.py", dc, a.out, a.select,
                             ("default", dict(os.environ), "the default run's"), variants, __file__,
                             a.jobs)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

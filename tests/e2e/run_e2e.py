#!/usr/bin/env python3
"""run_e2e.py -- the end-to-end test suite of diderotc.

    python3 tests/e2e/run_e2e.py --srcdir=SRC --builddir=BUILD [-k FILTER]
                                 [-j N] [-v] [--keep] [--perturb]

Tests (all names start with e2e/, so that tests/run.py -k can select them):
  e2e/oracle/NAME    self-checks of the oracles (tests/e2e/selftest.py):
                     they need no compiler and show that the oracles agree
                     with closed forms, with Teem and can tell right from wrong;
  e2e/NAME[VARIANT]  tests/e2e/programs/NAME.diderot with its companion
                     NAME.py (see e2elib.py): inputs are generated, the program
                     is compiled with BUILD/diderotc --exec (DIDEROT_RT_DIR=BUILD),
                     run in BUILD/tests/e2e/NAME-VARIANT/, and its outputs are
                     checked against oracle values computed in Python.

  e2e/layouts/NAME[VARIANT]
                     layout mode: the program runs once as above, then again
                     under every strand layout (--strand-layout=soa, aosoa:4,
                     aosoa:8; aos is the default) and, if it reads images,
                     every image layout (--image-layout=brick:4, brick:8,
                     halo:4; in
                     pairs with the strand layouts, or also alone with
                     --layouts=all); each run must pass the companion's checks
                     AND write output files byte-identical to the default
                     run's. --layouts=subset (the default: LAYOUT_SUBSET, first
                     variant), all (every program), or none; the environment
                     variable DIDEROT_E2E_LAYOUTS overrides it.

  e2e/simd/NAME[VARIANT]
                     simd mode: the program runs built with --simd=within (no
                     groups), then with --simd=strands (the update of groups of strands at once,
                     src/backend/emit_c_simd.c); both builds with
                     CFLAGS_DIDEROT=-O3 -march=native -ffp-contract=off (FMA
                     contraction may differ between the two forms), both must
                     pass the companion's checks and the output files must be
                     byte-identical. --simd=subset (the default: SIMD_SUBSET,
                     first variant), all, or none; DIDEROT_E2E_SIMD overrides
                     it.

  e2e/cuda/NAME[VARIANT]
                     cuda mode: the program runs as above with the C target and
                     again as CUDA in host emulation (--target=cuda
                     --cuda-emulate); both must pass the companion's checks and
                     the outputs must be byte-identical (within CUDA_RTOL for
                     companions that set it: reductions over strands); the
                     layout subset's programs with images also as CUDA under
                     --image-layout=halo:4. All are
                     built with CFLAGS_DIDEROT=-O1 -ffp-contract=off. --cuda=all
                     (default, first variant) or none; DIDEROT_E2E_CUDA
                     overrides it. Programs the CUDA target refuses are skipped
                     with its "not yet supported" message.

  e2e/omp/NAME[VARIANT]
                     omp mode: the program runs as above (sequential target),
                     then built with --target=omp and run with -n 1, 2 and 4
                     worker threads; every run must pass the companion's
                     checks and write output files byte-identical to the
                     sequential run's (the runtime merges per-chunk results in
                     chunk order, reductions included: see rt/diderot_world.h).
                     --omp=subset (the default: OMP_SUBSET, first variant),
                     all, or none; DIDEROT_E2E_OMP overrides it.

  e2e/scalar/NAME[VARIANT]
                     scalar mode: SCALAR_SUBSET built with --scalar (structs
                     instead of vector extensions) must pass the companion's
                     checks; --scalar=subset (default) or none.

  e2e/valgrind/NAME[VARIANT]
                     valgrind mode: the program (and any executable the
                     companion runs) under `valgrind -q --leak-check=full`:
                     no memory errors, no leaks. --valgrind=subset (default:
                     VALGRIND_SUBSET) or none (DIDEROT_E2E_VALGRIND); skipped
                     when valgrind is not installed.

A program whose compilation fails with "not yet supported" is skipped with
that reason. --perturb shifts every expected value (and the last expected
size of every layout check) so that every program test that runs must fail:
a check on the checks. --keep keeps the work directories of passing tests
(those of failing tests are always kept).

One line per failure (details indented), a line per test with -v, and the
last line `N passed, N failed, N skipped`; exit status 1 when anything failed.
Python 3 standard library only.
"""

import argparse
import concurrent.futures
import importlib.util
import os
import shutil
import sys
import traceback

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(HERE, "programs"))  # companions may share code
import e2elib  # noqa: E402

sys.path.insert(2, os.path.dirname(HERE))
from progress import Progress, timed_call  # noqa: E402
from e2elib import Abort, Skip  # noqa: E402


class Outcome:
    def __init__(self, name, status, details=()):
        self.name, self.status, self.details = name, status, list(details)


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Layout mode: a representative subset (state of many shapes, probes in 1-3
# D, scalar and vector images, border control, grids and collections, new
# and die), kept small because every program is compiled 4-6 more times.
STRAND_LAYOUTS = ["soa", "aosoa:4", "aosoa:8"]
IMAGE_LAYOUTS = ["brick:4", "brick:8", "halo:4"]
LAYOUT_SUBSET = ["probe_1d", "probe_2d", "probe_3d", "vector_3d", "inside_2d", "matrix_2d",
                 "layout_grid", "layout_collection", "life", "collatz_v1", "any_size",
                 "image_query", "trace", "life_unbounded"]
# (not eigen_field: without -ffp-contract=off the C compiler contracts the
# Hessian's sums into fused multiply-adds differently under other layouts,
# and its eigenvalues differ in the last bits from the default run's, as
# those of the tensor evals of the same Hessian do; its oracle held under
# every layout when tried, and with -ffp-contract=off the files were equal)


# SIMD mode: probes and if-convertible updates (the group path), loops,
# print, new and die, run-time errors (the scalar fallbacks).
SIMD_SUBSET = ["probe_1d", "probe_2d", "probe_3d", "vector_3d", "inside_2d", "matrix_2d",
               "layout_grid", "layout_collection", "life", "collatz_v1", "any_size",
               "probe_outside", "print_format", "composite_3d", "tensor_ops", "group_walk",
               "border_lanes", "group_loops", "eigen", "tensor_index_range", "image_query", "trace",
               "eigen_field"]
SIMD_CFLAGS = "-O3 -march=native -ffp-contract=off"


# OpenMP mode: programs with grids and collections, new and die, global
# updates and reductions, sequences and print, run-time errors from parallel
# strands (probe_outside); each is built twice more.
OMP_SUBSET = ["life", "life_seq", "primes", "collatz_v1", "probe_3d", "composite_2d",
              "layout_collection", "sequences", "print_format", "bad_input", "probe_outside",
              "sequence_index", "tensor_index_range", "image_query", "trace", "eigen_field",
              "input_default", "compose", "kernel_input", "life_unbounded"]
OMP_THREADS = [1, 2, 4]
# scalar mode: vector-heavy programs built with --scalar (no vector
# extensions) must pass their oracles too.
SCALAR_SUBSET = ["probe_3d", "vector_3d", "matrix_2d", "composite_3d", "tensor_ops", "eigen",
                 "eigen_field"]
# valgrind mode: images and fields, dynamic sequences, the error paths of bad
# inputs, and the library API (its C client runs under valgrind too).
VALGRIND_SUBSET = ["probe_2d", "sequences", "bad_input", "library_api", "any_size"]
VALGRIND = ["valgrind", "-q", "--leak-check=full", "--show-leak-kinds=definite,indirect,possible",
            "--errors-for-leak-kinds=definite,indirect,possible",
            # Teem's own leak on a header that fails its checks, with its reason
            "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "valgrind.supp")]


def layout_variants(program, full):
    """The extra flags of each layout run of a program: every strand layout
    and, for programs with images, every brick size, paired up so that
    three runs cover them all; `full`: each layout alone, then the pairs."""
    with open(program, encoding="utf-8") as f:
        uses_images = "image(" in f.read()
    strands = [["--strand-layout=" + s] for s in STRAND_LAYOUTS]
    if not uses_images:
        return strands
    images = [["--image-layout=" + b] for b in IMAGE_LAYOUTS]
    pairs = [strands[0] + images[2], strands[1] + images[1], strands[2] + images[0]]
    return strands + images + pairs[1:] if full else pairs


def collect(args):
    """(test name, callable returning an Outcome) for every test."""
    tests = []
    selftest = load_module(os.path.join(HERE, "selftest.py"), "e2e_selftest")
    for name, fn in selftest.TESTS:
        n = "e2e/oracle/" + name
        tests.append((n, lambda n=n, f=fn: run_selftest(n, f, args)))
    progdir = os.path.join(HERE, "programs")
    for f in sorted(os.listdir(progdir)):
        if not f.endswith(".diderot"):
            continue
        stem = f[:-len(".diderot")]
        companion = os.path.join(progdir, stem + ".py")
        if not os.path.exists(companion):
            tests.append(("e2e/" + stem, lambda n="e2e/" + stem:
                          Outcome(n, "fail", ["no companion .py"])))
            continue
        try:
            mod = load_module(companion, "e2e_prog_" + stem)
        except Exception as e:  # a broken companion is one failure, not a crash
            tests.append(("e2e/" + stem, lambda n="e2e/" + stem, e=e:
                          Outcome(n, "fail", ["cannot load companion: %r" % e])))
            continue
        for variant in getattr(mod, "VARIANTS", ["float"]):
            name = "e2e/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_program(n, m, v, os.path.join(progdir, s + ".diderot"), args)))
        if args.cuda == "all":
            variant = getattr(mod, "VARIANTS", ["float"])[0]
            name = "e2e/cuda/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_cuda(n, m, v, os.path.join(progdir, s + ".diderot"), args)))
        if args.omp == "all" or (args.omp == "subset" and stem in OMP_SUBSET):
            variant = getattr(mod, "VARIANTS", ["float"])[0]
            name = "e2e/omp/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_omp(n, m, v, os.path.join(progdir, s + ".diderot"), args)))
        if args.scalar == "subset" and stem in SCALAR_SUBSET:
            variant = getattr(mod, "VARIANTS", ["float"])[0]
            name = "e2e/scalar/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_program(n, m, v, os.path.join(progdir, s + ".diderot"), args,
                                      layout_flags=["--scalar"], tag="-scalar")))
        if args.valgrind == "subset" and stem in VALGRIND_SUBSET:
            variant = getattr(mod, "VARIANTS", ["float"])[0]
            name = "e2e/valgrind/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_valgrind(n, m, v, os.path.join(progdir, s + ".diderot"), args)))
        if args.simd == "all" or (args.simd == "subset" and stem in SIMD_SUBSET):
            variant = getattr(mod, "VARIANTS", ["float"])[0]
            name = "e2e/simd/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_simd(n, m, v, os.path.join(progdir, s + ".diderot"), args)))
        if args.layouts == "all" or (args.layouts == "subset" and stem in LAYOUT_SUBSET):
            variant = getattr(mod, "VARIANTS", ["float"])[0]
            name = "e2e/layouts/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_layouts(n, m, v, os.path.join(progdir, s + ".diderot"), args)))
    return tests


def run_selftest(name, fn, args):
    try:
        problems = fn()
    except Skip as e:
        return Outcome(name, "skip", [str(e)])
    except Exception:
        return Outcome(name, "fail", ["harness error:"] + traceback.format_exc().splitlines())
    return Outcome(name, "fail", problems) if problems else Outcome(name, "pass")


def run_program(name, mod, variant, program, args, layout_flags=(), tag="", keep=False,
                env=None, run_args=(), wrap=()):
    for exe in getattr(mod, "REQUIRES", []):
        if shutil.which(exe) is None:
            return Outcome(name, "skip", ["needs %s" % exe])
    diderotc = os.path.abspath(args.diderotc or os.path.join(args.builddir, "diderotc"))
    if not os.access(diderotc, os.X_OK):
        return Outcome(name, "fail", ["no compiler at %s" % diderotc])
    workdir = os.path.join(args.builddir, "tests", "e2e", name[len("e2e/"):].replace(
        "[", "-").replace("]", "").replace("+", "-").replace("/", "-") + tag)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    t = e2elib.T(name, program, workdir, variant, args.srcdir, args.builddir, diderotc,
                 perturb=args.perturb, fake=args.fake, layout_flags=layout_flags, env=env,
                 run_args=run_args, wrap=wrap)
    status, details = "pass", []
    try:
        mod.run(t)
    except Skip as e:
        status, details = "skip", [str(e)]
    except Abort as e:
        if e.args and e.args[0]:
            t.failures.append(str(e.args[0]))
        if not t.failures:
            t.failures.append("aborted")
    except Exception:
        t.failures += ["harness error:"] + traceback.format_exc().splitlines()
    if status == "pass" and t.failures:
        status, details = "fail", t.failures + ["(work directory %s)" % workdir]
    if status != "fail" and not args.keep and not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    o = Outcome(name, status, details)
    o.workdir = workdir
    return o


def output_files(d):
    """What a run wrote that a layout may change: every file but the
    compiler's products and inputs shared by all runs are compared."""
    return sorted(f for f in os.listdir(d)
                  if not f.startswith("prog") and not f.endswith((".diderot", ".c")))


def run_layouts(name, mod, variant, program, args):
    """The layout mode: the default run, then one run per layout variant;
    every run passes the companion's checks and writes the same bytes."""
    base = run_program(name, mod, variant, program, args, tag="-default", keep=True)
    if base.status != "pass":
        return Outcome(name, base.status, ["default layouts: " + (base.details[0] if
                                                                  base.details else "")]
                       + base.details[1:])
    problems, dirs = [], [base.workdir]
    want = output_files(base.workdir)
    for k, flags in enumerate(layout_variants(program, args.layouts == "all")):
        o = run_program(name, mod, variant, program, args, layout_flags=flags,
                        tag="-L%d" % k, keep=True)
        dirs.append(o.workdir)
        label = " ".join(flags)
        if o.status != "pass":
            problems += ["%s: %s" % (label, o.details[0] if o.details else o.status)] + \
                ["  " + d for d in o.details[1:]]
            continue
        got = output_files(o.workdir)
        if got != want:
            problems.append("%s: output files %s, default run wrote %s" % (label, got, want))
            continue
        for f in want:
            with open(os.path.join(base.workdir, f), "rb") as a, \
                    open(os.path.join(o.workdir, f), "rb") as b:
                if a.read() != b.read():
                    problems.append("%s: %s differs from the default run's" % (label, f))
    if problems:
        return Outcome(name, "fail", problems + ["(work directories %s-*)" % dirs[0][:-8]])
    if not args.keep:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    return Outcome(name, "pass")


def run_simd(name, mod, variant, program, args):
    """The simd mode: the --simd=within build (no groups) and the
    --simd=strands build, both without FMA contraction; both pass the
    companion's checks and write the same bytes."""
    env = {"CFLAGS_DIDEROT": SIMD_CFLAGS}
    base = run_program(name, mod, variant, program, args, layout_flags=["--simd=within"],
                       tag="-within", keep=True, env=env)
    if base.status != "pass":
        return Outcome(name, base.status, ["default build: " + (base.details[0] if
                                                                base.details else "")]
                       + base.details[1:])
    o = run_program(name, mod, variant, program, args, layout_flags=["--simd=strands"],
                    tag="-strands", keep=True, env=env)
    problems = []
    if o.status != "pass":
        problems += ["--simd=strands: %s" % (o.details[0] if o.details else o.status)] + \
            ["  " + d for d in o.details[1:]]
    else:
        want, got = output_files(base.workdir), output_files(o.workdir)
        if got != want:
            problems.append("--simd=strands: output files %s, default build wrote %s" % (got, want))
        for f in want if got == want else []:
            with open(os.path.join(base.workdir, f), "rb") as a, \
                    open(os.path.join(o.workdir, f), "rb") as b:
                if a.read() != b.read():
                    problems.append("--simd=strands: %s differs from the default build's" % f)
    if problems:
        return Outcome(name, "fail", problems + ["(work directories %s, %s)" %
                                                 (base.workdir, o.workdir)])
    if not args.keep:
        for d in (base.workdir, o.workdir):
            shutil.rmtree(d, ignore_errors=True)
    return Outcome(name, "pass")


def run_omp(name, mod, variant, program, args):
    """The omp mode: the sequential run, then --target=omp at each of
    OMP_THREADS workers; every run passes the companion's checks and writes
    the sequential run's bytes (OMP_RTOL in a companion allows a relative
    difference instead, for a program whose results may legitimately
    depend on the thread count)."""
    base = run_program(name, mod, variant, program, args, tag="-seq", keep=True)
    if base.status != "pass":
        return Outcome(name, base.status, ["sequential: " + (base.details[0] if base.details
                                                            else "")] + base.details[1:])
    problems, dirs = [], [base.workdir]
    want = output_files(base.workdir)
    for k in OMP_THREADS:
        label = "--target=omp --nworkers %d" % k
        o = run_program(name, mod, variant, program, args, layout_flags=["--target=omp"],
                        tag="-omp%d" % k, keep=True, run_args=["--nworkers", str(k)])
        dirs.append(o.workdir)
        if o.status != "pass":
            problems += ["%s: %s" % (label, o.details[0] if o.details else o.status)] + \
                ["  " + d for d in o.details[1:]]
            continue
        got = output_files(o.workdir)
        if got != want:
            problems.append("%s: output files %s, the sequential run wrote %s" % (label, got, want))
            continue
        for f in want:
            why = same_outputs(os.path.join(base.workdir, f), os.path.join(o.workdir, f),
                               getattr(mod, "OMP_RTOL", None))
            if why:
                problems.append("%s: %s %s from the sequential run's" % (label, f, why))
    if problems:
        return Outcome(name, "fail", problems + ["(work directories %s-*)" % dirs[0][:-4]])
    if not args.keep:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    return Outcome(name, "pass")


def run_valgrind(name, mod, variant, program, args):
    """The valgrind mode: the companion's run with every executable under
    valgrind (T.exec fails on any valgrind report)."""
    if shutil.which("valgrind") is None:
        return Outcome(name, "skip", ["needs valgrind (not installed)"])
    if "sanitize" in os.environ.get("CFLAGS_DIDEROT_EXTRA", ""):
        return Outcome(name, "skip", ["a sanitizer build (valgrind cannot run ASan programs)"])
    # no -march=native: valgrind does not know every vector extension (AVX-512)
    return run_program(name, mod, variant, program, args, tag="-valgrind", wrap=VALGRIND,
                       env={"CFLAGS_DIDEROT": "-O1 -g"})


# CUDA mode: the program's CUDA device code in host emulation
# (--target=cuda --cuda-emulate, rt/cuda/emu.h) must pass the companion's
# checks and write the same outputs as the C target: byte for byte, or
# within the companion's CUDA_RTOL (relative to max(1, |value|)) when it
# reduces over strands (block trees sum in another order). Both are built
# with CFLAGS_DIDEROT=CUDA_CFLAGS: no FMA contraction, so that the C
# target's vector code and the device code's scalar code round alike.
CUDA_FLAGS = ["--target=cuda", "--cuda-emulate"]
CUDA_CFLAGS = "-O1 -ffp-contract=off"   # -O1: compile time (tests/run.py)


def same_outputs(a, b, rtol):
    """None when files a and b agree (bytes, or NRRD values within rtol)."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        if fa.read() == fb.read():
            return None
    if rtol is None or not a.endswith(".nrrd"):
        return "differs"
    try:
        na, nb = e2elib.nrrd.read(a), e2elib.nrrd.read(b)
    except Exception as e:  # noqa: BLE001 -- an unreadable file is a difference
        return "unreadable: %s" % e
    if list(na.sizes) != list(nb.sizes):
        return "sizes %s vs %s" % (list(nb.sizes), list(na.sizes))
    for i, (x, y) in enumerate(zip(na.data, nb.data)):
        if not abs(x - y) <= rtol * max(1.0, abs(x)):
            return "value %d: %r (cuda) vs %r (C)" % (i, y, x)
    return None


def run_cuda(name, mod, variant, program, args):
    """The cuda mode: the C target's run, then the emulated CUDA run; both
    pass the companion's checks and write the same outputs. The layout
    subset's programs with images also run as CUDA under
    --image-layout=halo:4 (the device's copy of bricks that overhang the
    image and carry halos), compared with the C target's the same way."""
    env = {"CFLAGS_DIDEROT": CUDA_CFLAGS}
    builds = [("cuda", CUDA_FLAGS)]
    stem = os.path.basename(program)[:-len(".diderot")]
    with open(program, encoding="utf-8") as f:
        if stem in LAYOUT_SUBSET and "image(" in f.read():
            builds.append(("cuda halo:4", CUDA_FLAGS + ["--image-layout=halo:4"]))
    runs = []
    for tag, flags in builds:
        o = run_program(name, mod, variant, program, args, layout_flags=flags,
                        tag="-" + tag.replace(" ", "-").replace(":", ""), keep=True, env=env)
        if o.status == "skip":  # a construct the CUDA target refuses (ERR_NOT_YET)
            if not args.keep:
                for d in [o.workdir] + [r.workdir for _, r in runs]:
                    shutil.rmtree(d, ignore_errors=True)
            return Outcome(name, "skip", o.details)
        runs.append((tag, o))
    base = run_program(name, mod, variant, program, args, tag="-c", keep=True, env=env)
    dirs = [base.workdir] + [o.workdir for _, o in runs]
    if base.status != "pass":
        return Outcome(name, base.status, ["C target: " + (base.details[0] if base.details
                                                           else "")] + base.details[1:])
    problems = []
    for tag, o in runs:
        if o.status != "pass":
            problems += (["%s: " % tag + (o.details[0] if o.details else o.status)] + o.details[1:])
            continue
        want, got = output_files(base.workdir), output_files(o.workdir)
        if got != want:
            problems.append("%s: output files %s, C target wrote %s" % (tag, got, want))
        for f in want if got == want else []:
            why = same_outputs(os.path.join(base.workdir, f), os.path.join(o.workdir, f),
                               getattr(mod, "CUDA_RTOL", None))
            if why:
                problems.append("%s: %s: %s from the C target's" % (tag, f, why))
    if problems:
        return Outcome(name, "fail", problems + ["(work directories %s)" % ", ".join(dirs)])
    if not args.keep:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    return Outcome(name, "pass")


def main(argv):
    ap = argparse.ArgumentParser(description="Run the diderotc end-to-end tests.")
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--diderotc", help="the compiler (default BUILD/diderotc)")
    ap.add_argument("-k", dest="filter", default="", help="run tests whose name contains this")
    ap.add_argument("-j", dest="jobs", type=int, default=1, help="parallel tests (default 1)")
    ap.add_argument("-v", dest="verbose", action="store_true", help="a line per test")
    ap.add_argument("--keep", action="store_true", help="keep all work directories")
    ap.add_argument("--perturb", action="store_true",
                    help="perturb every expected value: every program test that runs must fail")
    ap.add_argument("--fake", action="store_true",
                    help="check the harness: no compiler, every output is zeros of the "
                    "expected layout; every program test must fail without a harness error")
    ap.add_argument("--layouts", choices=["subset", "all", "none"], default="subset",
                    help="layout mode: which programs are re-run under every strand and "
                    "image layout (default: the subset LAYOUT_SUBSET)")
    ap.add_argument("--simd", choices=["subset", "all", "none"], default="subset",
                    help="simd mode: programs re-built with --simd=strands, compared byte for "
                    "byte with the default build, both without FMA contraction (default: "
                    "SIMD_SUBSET)")
    ap.add_argument("--cuda", choices=["all", "none"], default="all",
                    help="cuda mode: every program again as CUDA in host emulation, compared "
                    "with the C target (first variant; programs the CUDA target refuses "
                    "are skipped)")
    ap.add_argument("--omp", choices=["subset", "all", "none"], default="subset",
                    help="omp mode: programs re-run with --target=omp at -n 1, 2, 4, compared "
                    "byte for byte with the sequential run (default: OMP_SUBSET)")
    ap.add_argument("--scalar", choices=["subset", "none"], default="subset",
                    help="scalar mode: SCALAR_SUBSET built with --scalar, checked by the oracles")
    ap.add_argument("--valgrind", choices=["subset", "none"], default="subset",
                    help="valgrind mode: VALGRIND_SUBSET under valgrind (no errors, no leaks)")
    ap.add_argument("--times", metavar="FILE",
                    help="append each test's wall seconds to FILE (tab-separated)")
    args = ap.parse_args(argv)
    # OpenMP executables: test machines are shared and oversubscribed, where
    # threads spinning at the super-step barrier slow a run down 10x
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    args.omp = os.environ.get("DIDEROT_E2E_OMP", args.omp)
    args.valgrind = os.environ.get("DIDEROT_E2E_VALGRIND", args.valgrind)
    args.cuda = os.environ.get("DIDEROT_E2E_CUDA", args.cuda)
    args.layouts = os.environ.get("DIDEROT_E2E_LAYOUTS", args.layouts)
    args.simd = os.environ.get("DIDEROT_E2E_SIMD", args.simd)
    if args.fake or args.perturb:
        args.layouts = "none"
        args.cuda = "none"   # those modes check the checks, not the layouts
        args.omp = args.valgrind = args.scalar = "none"
    args.srcdir = os.path.abspath(args.srcdir)
    args.builddir = os.path.abspath(args.builddir)

    tests = [t for t in collect(args) if args.filter in t[0]]
    counts = {"pass": 0, "fail": 0, "skip": 0}

    times = open(args.times, "a") if args.times else None

    def one(test):
        name, fn = test
        return timed_call(name, fn, lambda n, why: Outcome(n, "fail", why), times)

    progress = Progress(tests, quiet=args.verbose)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for o in pool.map(one, tests):
            counts[o.status] += 1
            if o.status == "fail":
                print("FAIL %s: %s" % (o.name, o.details[0] if o.details else ""))
                for d in o.details[1:]:
                    print("    " + d)
            elif args.verbose:
                extra = (": " + o.details[0]) if o.details else ""
                print("%s %s%s" % ("PASS" if o.status == "pass" else "SKIP", o.name, extra))
            progress.done(o)
            sys.stdout.flush()
    if times:
        times.close()
    progress.skip_summary()
    print("%d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""schedule/space/NAME: every valid point of a small schedule space gives a
map-only program the same output bytes as its default schedule (doc/
user-guide.md "Schedules": a valid schedule changes how a program runs,
never what a map-only program computes).

The space: strand-layout {aos, soa, aosoa:8} x simd {within, strands}
(compiled in with --schedule=FILE) x chunk {the default, 64, 8192} (the
executable's -sched-chunk, no recompiling). A point the compiler refuses
(simd = strands on an update that cannot run in groups) must be refused
with a schedule error naming the key, and is not run. The programs are the
examples whose strands neither interact nor create strands nor reduce over
strands (their outputs depend on no chunk): mip (3-D probes, groups by
default), lic (loops along streamlines), vorticity and canny (2-D grids).
Every build, the default's too, is compiled without FMA contraction (CFLAGS
below), as the simd/run tests are.
"""
import os
import shutil
import subprocess
import tempfile

LAYOUTS = ("aos", "soa", "aosoa:8")
SIMDS = ("within", "strands")
CHUNKS = (None, 64, 8192)

# name -> (source, run arguments with {data}, the output file)
PROGRAMS = {
    "mip": ("examples/mip/mip.diderot",
            ["-vol", "{data}/blobs.nrrd", "-imgResU", "48", "-imgResV", "40"], "mip.nrrd"),
    "lic": ("examples/lic/lic.diderot",
            ["-flow", "{data}/sqflow2D-1608.nrrd", "-noise", "{data}/noise.nrrd"], "lic.nrrd"),
    "vorticity": ("examples/vorticity/vorticity.diderot",
                  ["-flow", "{data}/sqflow2D-1608.nrrd"], "vort.nrrd"),
    "canny": ("examples/canny/canny.diderot", ["-img", "{data}/ddro-100.nrrd"], "canny.nrrd"),
}

COMPILE_TIMEOUT = 600
RUN_TIMEOUT = 300


# every point built without FMA contraction: the C compiler contracts the
# across-strand group code and the scalar update differently (the simd/run
# tests do the same, doc/backend.md §4), which is the compiler's choice,
# not the schedule's
CFLAGS = "-O3 -march=native -ffp-contract=off"


def _run(argv, cwd, timeout):
    env = dict(os.environ, CFLAGS_DIDEROT=CFLAGS)
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s: %s" % (timeout, " ".join(argv))
    return p, None


def _space_case(srcdir, diderotc, name):
    src, args, outname = PROGRAMS[name]
    src = os.path.join(srcdir, src)
    data = os.path.join(srcdir, "examples", "data")
    args = [a.format(data=data) for a in args]
    work = tempfile.mkdtemp(prefix="diderot-space-")
    if work:
        def build(tag, sched_text):
            exe = os.path.join(work, tag)
            argv = [diderotc, "--exec", "-o", exe, src]
            if sched_text is not None:
                sf = os.path.join(work, tag + ".sched")
                with open(sf, "w") as f:
                    f.write(sched_text)
                argv[1:1] = ["--schedule=" + sf]
            p, err = _run(argv, os.path.dirname(src), COMPILE_TIMEOUT)
            return exe, p, err

        def run(exe, tag, chunk):
            d = os.path.join(work, "run-" + tag + "-" + str(chunk))
            os.makedirs(d)
            argv = [exe] + args + ["-o", outname]
            if chunk:
                argv += ["-sched-chunk", str(chunk)]
            p, err = _run(argv, d, RUN_TIMEOUT)
            if err:
                return None, err
            if p.returncode != 0:
                return None, "%s exit %d: %s" % (" ".join(argv), p.returncode, p.stderr[-500:])
            with open(os.path.join(d, outname), "rb") as f:
                return f.read(), None

        exe, p, err = build("default", None)
        if err or p.returncode != 0:
            return "fail", [err or "the default build failed: %s" % p.stderr[-800:]]
        want, err = run(exe, "default", None)
        if err:
            return "fail", [err]
        problems, points, refused = [], 0, 0
        for lay in LAYOUTS:
            for simd in SIMDS:
                tag = "%s-%s" % (lay.replace(":", ""), simd)
                exe, p, err = build(tag, "strand-layout = %s\nsimd = %s\n" % (lay, simd))
                if err:
                    problems.append(err)
                    continue
                if p.returncode != 0:
                    # only a refusal by the schedule's rules is a valid answer
                    if p.returncode == 1 and ".sched:2:8: error: simd = strands:" in p.stderr:
                        refused += 1
                        continue
                    problems.append("%s: compile exit %d: %s" % (tag, p.returncode, p.stderr[-800:]))
                    continue
                for chunk in CHUNKS:
                    got, err = run(exe, tag, chunk)
                    points += 1
                    if err:
                        problems.append(err)
                    elif got != want:
                        problems.append("%s with chunk %s: the output differs from the default "
                                        "schedule's" % (tag, chunk or "default"))
        if problems:
            return "fail", problems + ["(work directory %s)" % work]
        shutil.rmtree(work, ignore_errors=True)
        return "pass", ["%d points run, %d refused by the rules" % (points, refused)]


def collect(srcdir, builddir, diderotc):
    del builddir
    return [("schedule/space/" + name, (lambda n=name: _space_case(srcdir, diderotc, n)))
            for name in PROGRAMS]

"""schedule/runtime/... and schedule/tune/...: the run-time schedule of a
generated executable (its -schedule "KEY=VALUE ..." option, doc/user-guide.md
"Schedules") and the tuner with its cache (diderotc --tune, "Tuning").

  schedule/runtime/option       -schedule accepted, and refused with a message
                                naming the bad key or value (exit 2), on a
                                sequential and an OpenMP build
  schedule/runtime/NAME         every value of the run-time space gives a
                                map-only program (examples and run/ programs)
                                the same output bytes as its default schedule,
                                on the OpenMP build (no recompiling); values
                                the program cannot take (steps-per-visit > 1
                                where it runs in super-steps) are refused with
                                the runtime's message
  schedule/tune/cache           --tune on a small real program writes one cache
                                file; --dump=schedule then shows source cache;
                                a second --tune and a plain compile tune
                                nothing (no candidate lines under --verbose,
                                "cache hit" / "schedule from the cache"); the
                                tuned executable's outputs equal the default's;
                                compiles with --tune-args on other sizes take
                                the entry of the nearest ones (a second entry
                                written by the test), other words none
  schedule/tune/full            --tune=full on mip also tries the structural
                                keys, each a build of its own (strand-layout
                                soa and aosoa:8, simd within: candidate lines
                                under --verbose); its executable computes what
                                the default one does; a cache entry holding
                                strand-layout = soa and simd = within (written
                                here, its checksum computed here) is taken by a
                                plain compile: --dump=schedule shows both from
                                the cache, and the build's outputs equal the
                                default's
  schedule/tune/bad-cache       a corrupted, truncated or foreign cache file
                                (the last with a good checksum, computed here
                                independently) is ignored with a warning and
                                the defaults stand
  schedule/tune/refuses         --tune on tests/schedule/new_order.diderot, whose
                                output order depends on the chunk (strands
                                created by `new` in start and update): every
                                other chunk is refused for its differing
                                output, and the default chunk is kept
  schedule/tune/steps           --tune-steps 3 on a program whose whole run
                                never ends: the tuning finishes, and says so
  schedule/tune/usage           --tune without --exec, with --target=cuda,
                                without --tune-args, or with -schedule in
                                them: refused with a message

No timing is asserted anywhere: which candidate wins depends on the load.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile

COMPILE_TIMEOUT = 600
RUN_TIMEOUT = 300
# no FMA contraction, as tests/schedule/space.py (the compiler's choice, not
# the schedule's, would otherwise differ between builds)
CFLAGS = "-O3 -march=native -ffp-contract=off"

# name -> (source, arguments with {data}); outputs have their default names
PROGRAMS = {
    "mip": ("examples/mip/mip.diderot",
            ["-vol", "{data}/blobs.nrrd", "-imgResU", "48", "-imgResV", "40"]),
    "lic": ("examples/lic/lic.diderot",
            ["-flow", "{data}/sqflow2D-1608.nrrd", "-noise", "{data}/noise.nrrd"]),
    "vorticity": ("examples/vorticity/vorticity.diderot", ["-flow", "{data}/sqflow2D-1608.nrrd"]),
    "collatz": ("tests/programs/run/collatz.diderot", ["-N", "5000"]),
    "branchy_inlined": ("tests/programs/run/branchy_inlined.diderot", []),
}

# the run-time values tried (None: the default); steps-per-visit only where
# the program runs strand by strand
VALUES = ["chunk=1", "chunk=64", "chunk=100000", "omp-schedule=static", "omp-schedule=guided",
          "chunk=16 omp-schedule=static", "steps-per-visit=1", "steps-per-visit=3",
          "steps-per-visit=all", "chunk=64,omp-schedule=guided,steps-per-visit=2"]


def _env(cache=None):
    env = dict(os.environ, CFLAGS_DIDEROT=CFLAGS)
    for k in list(env):
        if k.startswith("DIDEROT_SCHED_"):
            del env[k]
    if cache:
        env["XDG_CACHE_HOME"] = cache
    return env


def _run(argv, cwd, env=None, timeout=RUN_TIMEOUT):
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              env=env or _env()), None
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s: %s" % (timeout, " ".join(argv))


def _outputs(d):
    """Every file the run wrote into d, as bytes."""
    got = {}
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f), "rb") as fh:
            got[f] = fh.read()
    return got


def _build(diderotc, src, exe, target, cwd, env=None, extra=()):
    argv = [diderotc, "--exec", "--target=" + target, "-o", exe] + list(extra) + [src]
    return _run(argv, cwd, env, COMPILE_TIMEOUT)


def _run_in(exe, args, d, sched):
    os.makedirs(d)
    argv = [exe] + args + (["-schedule", sched] if sched is not None else [])
    p, err = _run(argv, d)
    if err:
        return None, None, err
    return p, _outputs(d) if p.returncode == 0 else None, None


def _args(srcdir, args):
    data = os.path.join(srcdir, "examples", "data")
    return [a.format(data=data) for a in args]


def _option_case(srcdir, diderotc):
    work = tempfile.mkdtemp(prefix="diderot-sched-opt-")
    src = os.path.join(srcdir, "tests", "programs", "run", "collatz.diderot")
    problems = []
    for target in ("seq", "omp"):
        exe = os.path.join(work, "collatz-" + target)
        p, err = _build(diderotc, src, exe, target, work)
        if err or p.returncode:
            return "fail", [err or "build: " + p.stderr[-800:]]
        # (text given, expected exit, what stderr must say)
        checks = [
            ("chunk=64", 0, None),
            ("", 0, None),
            ("chunk=0", 0, None),  # 0: the program's default, as -sched-chunk 0
            ("chunk=abc", 2, "option '-schedule': chunk: bad value 'abc'"),
            ("chunkk=4", 2, "option '-schedule': unknown key 'chunkk' (run-time keys: chunk, "
                            "steps-per-visit, omp-schedule, snapshot-writer)"),
            ("simd=off", 2, "key 'simd' is compiled into the program: recompile with diderotc "
                            "--schedule=FILE"),
            ("chunk", 2, "'chunk': expected KEY=VALUE"),
            ("chunk=8 chunk=16", 2, "key 'chunk' given twice"),
            ("steps-per-visit=x", 2, "steps-per-visit: bad value 'x'"),
            ("snapshot-writer=on", 2, "snapshot-writer=on: this program was built without "
                                      "--snapshot"),
            ("omp-schedule=fast", 2, "omp-schedule: bad value 'fast' (expected dynamic, "
                                     "static or guided)" if target == "omp" else
             "omp-schedule=fast: this program is not an OpenMP one"),
            ("omp-schedule=static", 0 if target == "omp" else 2,
             None if target == "omp" else "omp-schedule=static: this program is not an OpenMP one"),
        ]
        for n, (text, rc, msg) in enumerate(checks):
            d = os.path.join(work, "%s-%d" % (target, n))
            os.makedirs(d)
            p, err = _run([exe, "-N", "50", "-schedule", text], d)
            if err:
                problems.append(err)
                continue
            if p.returncode != rc:
                problems.append("%s: -schedule '%s': exit %d, expected %d: %s"
                                % (target, text, p.returncode, rc, p.stderr[-400:]))
            elif msg and msg not in p.stderr:
                problems.append("%s: -schedule '%s': stderr lacks %r: %s"
                                % (target, text, msg, p.stderr[-400:]))
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", []


def _identity_case(srcdir, diderotc, name):
    src, args = PROGRAMS[name]
    src = os.path.join(srcdir, src)
    args = _args(srcdir, args)
    work = tempfile.mkdtemp(prefix="diderot-sched-id-")
    exe = os.path.join(work, name)
    p, err = _build(diderotc, src, exe, "omp", os.path.dirname(src))
    if err or p.returncode:
        return "fail", [err or "build: " + p.stderr[-800:]]
    p, want, err = _run_in(exe, args, os.path.join(work, "default"), None)
    if err or want is None:
        return "fail", [err or "default run: exit %d: %s" % (p.returncode, p.stderr[-800:])]
    problems, ran, refused = [], 0, 0
    for n, v in enumerate(VALUES):
        p, got, err = _run_in(exe, args, os.path.join(work, "v%d" % n), v)
        if err:
            problems.append(err)
            continue
        if p.returncode != 0:
            # only the runtime's rule for programs in super-steps may refuse
            if "steps-per-visit" in v and "this program runs in super-steps only" in p.stderr \
                    and not v.endswith("=1") and "=all" not in v:
                refused += 1
                continue
            problems.append("-schedule '%s': exit %d: %s" % (v, p.returncode, p.stderr[-600:]))
            continue
        ran += 1
        if got != want:
            diff = sorted(f for f in set(got) | set(want) if got.get(f) != want.get(f))
            problems.append("-schedule '%s': outputs differ from the default's: %s" % (v, diff))
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", ["%d values run, %d refused (super-steps only)" % (ran, refused)]


def _tune(diderotc, src, out, cache, tune_args, cwd, extra=("--verbose",)):
    argv = [diderotc, "--exec", "--target=omp", "--tune=quick", "--tune-args", tune_args,
            "-o", out] + list(extra) + [src]
    return _run(argv, cwd, _env(cache), COMPILE_TIMEOUT)


def _dump(diderotc, src, cache, cwd, extra=()):
    argv = [diderotc, "--exec", "--target=omp", "--dump=schedule"] + list(extra) + [src]
    return _run(argv, cwd, _env(cache), COMPILE_TIMEOUT)


CANDIDATE_LINE = re.compile(r"^diderotc: tune: chunk=", re.M)


def _cache_case(srcdir, diderotc):
    work = tempfile.mkdtemp(prefix="diderot-tune-")
    cache = os.path.join(work, "cache")
    src = os.path.join(srcdir, "examples", "mip", "mip.diderot")
    args = " ".join(_args(srcdir, PROGRAMS["mip"][1])) + " -o mip-out.nrrd"
    problems = []
    p, err = _tune(diderotc, src, os.path.join(work, "mip"), cache, args, work)
    if err or p.returncode:
        return "fail", [err or "--tune: exit %d: %s" % (p.returncode, p.stderr[-1500:])]
    if not CANDIDATE_LINE.search(p.stderr) or "diderotc: tuned in " not in p.stderr:
        problems.append("--tune printed no candidate or summary line: " + p.stderr[-800:])
    if "strand-layout=" in p.stderr or "simd=" in p.stderr:
        problems.append("--tune=quick tried structural keys (only full does): " + p.stderr[-800:])
    cdir = os.path.join(cache, "diderot", "tune")
    files = sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []
    if len(files) != 1 or not files[0].endswith(".sched"):
        return "fail", problems + ["expected one cache file in %s, found %s" % (cdir, files)]
    with open(os.path.join(cdir, files[0])) as f:
        text = f.read()
    for want in ("format = diderotc-tune-cache 1\n", "target = omp\n", "precision = float\n",
                 "inputs = -vol nrrd(float;", "\nchunk = ", "\nomp-schedule = ", "\nchecksum = "):
        if want not in text:
            problems.append("the cache file lacks %r" % want)
    # the tune arguments' -o was the tuner's to drop: no file of the user's written
    if os.path.exists(os.path.join(work, "mip-out.nrrd")):
        problems.append("--tune wrote the run's output into the user's directory")
    # a later --dump=schedule: the run-time keys from the cache
    p, err = _dump(diderotc, src, cache, work)
    if err or p.returncode:
        problems.append(err or "--dump=schedule: " + p.stderr[-500:])
    elif not re.search(r"^chunk = \d+ +# cache: .*\.sched \(tuned ", p.stdout, re.M) or \
            not re.search(r"^omp-schedule = \w+ +# cache: ", p.stdout, re.M):
        problems.append("--dump=schedule does not show the cache as the source: " + p.stdout)
    # a second --tune: a cache hit, no candidate run
    p, err = _tune(diderotc, src, os.path.join(work, "mip2"), cache, args, work)
    if err or p.returncode:
        problems.append(err or "second --tune: exit %d: %s" % (p.returncode, p.stderr[-800:]))
    elif "diderotc: tune: cache hit '" not in p.stderr or CANDIDATE_LINE.search(p.stderr) or \
            "tuned in" in p.stderr:
        problems.append("the second --tune tuned again: " + p.stderr[-800:])
    # a plain compile: the cache, no tuning
    argv = [diderotc, "--exec", "--target=omp", "--verbose", "-o", os.path.join(work, "mip3"), src]
    p, err = _run(argv, work, _env(cache), COMPILE_TIMEOUT)
    if err or p.returncode:
        problems.append(err or "plain compile: " + p.stderr[-800:])
    elif "diderotc: schedule from the cache '" not in p.stderr or CANDIDATE_LINE.search(p.stderr):
        problems.append("the plain compile did not take the cache: " + p.stderr[-800:])
    problems += _nearest_checks(srcdir, diderotc, src, cache, os.path.join(cdir, files[0]), text, work)
    # the tuned executable computes what the default one does
    p, err = _build(diderotc, src, os.path.join(work, "mip-default"), "omp", work,
                    _env(os.path.join(work, "no-cache")))
    if err or p.returncode:
        problems.append(err or "default build: " + p.stderr[-800:])
    else:
        a = _args(srcdir, PROGRAMS["mip"][1])
        _, want, e1 = _run_in(os.path.join(work, "mip-default"), a, os.path.join(work, "r0"), None)
        _, got, e2 = _run_in(os.path.join(work, "mip"), a, os.path.join(work, "r1"), None)
        if e1 or e2 or want is None or got != want:
            problems.append("the tuned executable's output differs from the default's (%s)"
                            % (e1 or e2 or "bytes"))
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", []


def _nearest_checks(srcdir, diderotc, src, cache, path, text, work):
    """Compiles with --tune-args on inputs no entry was tuned on take the
    entry whose inputs are nearest (doc/user-guide.md "Tuning": the sum of
    |ln(x/y)| over the sizes that differ). A second entry is written here
    from the tuner's (path, text): the image 10x larger on both axes and
    another chunk, its checksum FNV-1a computed here."""
    problems = []
    inputs = re.search(r"^inputs = (.*)$", text, re.M).group(1)
    chunk = int(re.search(r"^chunk = (\d+)$", text, re.M).group(1))
    other = 2048 if chunk != 2048 else 1024
    far_inputs = inputs.replace("-imgResU 48 -imgResV 40", "-imgResU 480 -imgResV 400")
    if far_inputs == inputs:
        return ["the cache file's inputs %r lack -imgResU 48 -imgResV 40" % inputs]
    body = text[:text.index("checksum = ")].replace("inputs = %s\n" % inputs, "inputs = %s\n" % far_inputs)
    body = re.sub(r"^chunk = \d+$", "chunk = %d" % other, body, flags=re.M)
    name = os.path.basename(path)
    far = os.path.join(os.path.dirname(path), name[:17] + "00000000000000ff.sched")
    with open(far, "w") as f:
        f.write(body + "checksum = %016x\n" % _fnv(body.encode()))
    vol = _args(srcdir, PROGRAMS["mip"][1])[:2]
    # (60, 50): ln(60/48) + ln(50/40) = 0.45 from the tuned entry, 4.2 from
    # the other; (300, 250): 3.7 and 0.94
    for u, v, want_chunk, want_file in ((60, 50, chunk, name), (300, 250, other, os.path.basename(far))):
        args = " ".join(vol + ["-imgResU", str(u), "-imgResV", str(v)])
        p, err = _dump(diderotc, src, cache, work, ["--verbose", "--tune-args", args])
        if err or p.returncode:
            problems.append(err or "--dump=schedule --tune-args %r: %s" % (args, p.stderr[-500:]))
        elif not re.search(r"^chunk = %d +# cache: .*%s \(tuned " % (want_chunk, re.escape(want_file)),
                           p.stdout, re.M) or "(the nearest inputs: " not in p.stderr:
            problems.append("inputs %dx%d: not the nearest entry (%s, chunk %d): %s %s"
                            % (u, v, want_file, want_chunk, p.stdout, p.stderr[-300:]))
    # inputs that differ in another word are not comparable: the defaults
    args = " ".join(_args(srcdir, PROGRAMS["mip"][1]) + ["-camFOV", "20"])
    p, err = _dump(diderotc, src, cache, work, ["--tune-args", args])
    if err or p.returncode:
        problems.append(err or "--dump=schedule --tune-args %r: %s" % (args, p.stderr[-500:]))
    elif "# cache:" in p.stdout or not re.search(r"^chunk = \d+ +# default", p.stdout, re.M):
        problems.append("inputs with another word took a cache entry: " + p.stdout)
    os.remove(far)
    return problems


def _full_case(srcdir, diderotc):
    work = tempfile.mkdtemp(prefix="diderot-tune-full-")
    cache = os.path.join(work, "cache")
    src = os.path.join(srcdir, "examples", "mip", "mip.diderot")
    a = _args(srcdir, PROGRAMS["mip"][1])
    problems = []
    argv = [diderotc, "--exec", "--target=omp", "--tune=full", "--tune-args", " ".join(a),
            "-o", os.path.join(work, "mip"), "--verbose", src]
    p, err = _run(argv, work, _env(cache), COMPILE_TIMEOUT)
    if err or p.returncode:
        return "fail", [err or "--tune=full: exit %d: %s" % (p.returncode, p.stderr[-1500:])]
    for want in ("strand-layout=soa", "strand-layout=aosoa:8", "simd=within"):
        if not re.search(r"^diderotc: tune: chunk=\d+.* %s: [0-9.]+ s " % re.escape(want), p.stderr, re.M):
            problems.append("no timed candidate with %s: %s" % (want, p.stderr[-1500:]))
    if "diderotc: tuned in " not in p.stderr:
        problems.append("no summary line: " + p.stderr[-500:])
    p, err = _build(diderotc, src, os.path.join(work, "mip-default"), "omp", work,
                    _env(os.path.join(work, "no-cache")))
    if err or p.returncode:
        return "fail", problems + [err or "default build: " + p.stderr[-800:]]
    _, want, e1 = _run_in(os.path.join(work, "mip-default"), a, os.path.join(work, "r0"), None)
    _, got, e2 = _run_in(os.path.join(work, "mip"), a, os.path.join(work, "r1"), None)
    if e1 or e2 or want is None or got != want:
        problems.append("the tuned executable's output differs from the default's (%s)" % (e1 or e2 or "bytes"))
    # an entry with both structural keys, from the tuner's own file
    cdir = os.path.join(cache, "diderot", "tune")
    files = sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []
    if len(files) != 1:
        return "fail", problems + ["expected one cache file in %s, found %s" % (cdir, files)]
    path = os.path.join(cdir, files[0])
    with open(path) as f:
        text = f.read()
    body = text[:text.index("checksum = ")]
    body = re.sub(r"^(strand-layout|simd) = .*\n", "", body, flags=re.M)
    body += "strand-layout = soa\nsimd = within\n"
    with open(path, "w") as f:
        f.write(body + "checksum = %016x\n" % _fnv(body.encode()))
    p, err = _dump(diderotc, src, cache, work, ["--tune-args", " ".join(a)])
    if err or p.returncode:
        problems.append(err or "--dump=schedule: " + p.stderr[-500:])
    elif not re.search(r"^strand-layout = soa +# cache: ", p.stdout, re.M) or \
            not re.search(r"^simd = within +# cache: ", p.stdout, re.M):
        problems.append("--dump=schedule does not take the structural keys from the cache: " + p.stdout)
    argv = [diderotc, "--exec", "--target=omp", "--tune-args", " ".join(a), "--stats",
            "-o", os.path.join(work, "mip-soa"), src]
    p, err = _run(argv, work, _env(cache), COMPILE_TIMEOUT)
    if err or p.returncode:
        problems.append(err or "the compile with the entry: " + p.stderr[-800:])
    else:
        if "strand state soa" not in p.stderr:
            problems.append("the compile with the entry did not lay the state out soa: " + p.stderr[-600:])
        _, got, e3 = _run_in(os.path.join(work, "mip-soa"), a, os.path.join(work, "r2"), None)
        if e3 or got != want:
            problems.append("the soa/within build's output differs from the default's (%s)" % (e3 or "bytes"))
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", []


def _fnv(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def _bad_cache_case(srcdir, diderotc):
    work = tempfile.mkdtemp(prefix="diderot-tune-bad-")
    cache = os.path.join(work, "cache")
    src = os.path.join(srcdir, "examples", "mip", "mip.diderot")
    args = " ".join(_args(srcdir, PROGRAMS["mip"][1]))
    p, err = _tune(diderotc, src, os.path.join(work, "mip"), cache, args, work, ())
    if err or p.returncode:
        return "fail", [err or "--tune: exit %d: %s" % (p.returncode, p.stderr[-1500:])]
    cdir = os.path.join(cache, "diderot", "tune")
    name = os.path.join(cdir, os.listdir(cdir)[0])
    with open(name, "rb") as f:
        good = f.read()
    body = good[:good.index(b"checksum = ")]
    if b"%016x" % _fnv(body) not in good:
        return "fail", ["the cache file's checksum is not FNV-1a of the text above it"]
    foreign = body.replace(b"\ntarget = omp\n", b"\ntarget = seq\n")
    foreign += b"checksum = %016x\n" % _fnv(foreign)
    high = body.replace(b"\nchunk = ", b"\nchunk = 9")  # a changed value, old checksum
    bad_value = body.replace(b"\nchunk = ", b"\nchunk = x")
    bad_value += b"checksum = %016x\n" % _fnv(bad_value)
    variants = [
        ("corrupted", high + good[len(body):], "the checksum does not match"),
        ("truncated", good[:len(good) // 2], "no checksum line"),
        ("foreign", foreign, "(foreign)"),
        ("bad value", bad_value, "bad schedule values"),
        ("binary", b"\x00\x01garbage\n", "not a text file"),
    ]
    problems = []
    for tag, data, why in variants:
        with open(name, "wb") as f:
            f.write(data)
        p, err = _dump(diderotc, src, cache, work)
        if err or p.returncode:
            problems.append("%s: %s" % (tag, err or p.stderr[-500:]))
            continue
        warn = "diderotc: warning: schedule cache '%s': " % name
        if warn not in p.stderr or why not in p.stderr or ": ignored" not in p.stderr:
            problems.append("%s: no warning %r ... %r: %s" % (tag, warn, why, p.stderr[-500:]))
        if "# cache:" in p.stdout or not re.search(r"^chunk = 256 +# default", p.stdout, re.M):
            problems.append("%s: the bad cache file was used: %s" % (tag, p.stdout))
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", ["%d bad files ignored" % len(variants)]


def _refuses_case(srcdir, diderotc):
    work = tempfile.mkdtemp(prefix="diderot-tune-ref-")
    cache = os.path.join(work, "cache")
    src = os.path.join(srcdir, "tests", "schedule", "new_order.diderot")
    p, err = _tune(diderotc, src, os.path.join(work, "no"), cache, "-N 3000", work)
    if err or p.returncode:
        return "fail", [err or "--tune: exit %d: %s" % (p.returncode, p.stderr[-1500:])]
    problems = []
    refused = re.findall(r"^diderotc: tune: chunk=(\d+)\S* .*refused: output 'id.nrrd' differs "
                         r"from the default schedule's$", p.stderr, re.M)
    if not refused or "256" in refused:
        problems.append("expected every chunk but 256 refused, got %s: %s"
                        % (refused, p.stderr[-1500:]))
    m = re.search(r"^diderotc: tuned in .*, (\d+) refused, .*: chunk=(\d+)", p.stderr, re.M)
    if not m or int(m.group(1)) < 1 or m.group(2) != "256":
        problems.append("the summary does not keep the default chunk with refusals: "
                        + p.stderr[-600:])
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", ["%d chunks refused" % len(refused)]


def _usage_case(srcdir, diderotc):
    work = tempfile.mkdtemp(prefix="diderot-tune-use-")
    src = os.path.join(srcdir, "tests", "programs", "run", "collatz.diderot")
    cache = os.path.join(work, "cache")
    checks = [
        # a library is tuned too (its runs are an executable's of the program)
        (["--tune", "--tune-args", "-N notanumber", "-o", os.path.join(work, "lib"), src], 1,
         "--tune: the run with --tune-args and the default schedule failed"),
        (["--exec", "--target=cuda", "--tune", "--tune-args", "-N 5", src], 2,
         "--tune supports --target=seq and --target=omp only"),
        (["--exec", "--tune", src], 2, "--tune needs --tune-args"),
        (["--exec", "--tune=slow", "--tune-args", "-N 5", src], 2,
         "unknown --tune mode 'slow' (expected quick or full)"),
        (["--exec", "--tune", "--tune-args", "-N 5 -schedule chunk=4", src], 2,
         "'-schedule' sets the schedule, which is what the tuner searches"),
        (["--exec", "--tune", "--tune-args", "-N '5", src], 2, "unterminated ' quote"),
        (["--exec", "--tune", "--tune-args", "-N notanumber", "-o", os.path.join(work, "c"), src],
         1, "--tune: the run with --tune-args and the default schedule failed"),
        (["--exec", "--tune-steps", "3", "--tune-args", "-N 5", src], 2,
         "--tune-steps is for --tune (the tuning runs)"),
        (["--exec", "--tune", "--tune-steps", "0", "--tune-args", "-N 5", src], 2,
         "--tune-steps needs a number of super-steps from 1 to 1000000000, not '0'"),
        (["--exec", "--tune", "--tune-steps", "2x", "--tune-args", "-N 5", src], 2,
         "--tune-steps needs a number of super-steps from 1 to 1000000000, not '2x'"),
        (["--exec", "--tune", "--tune-steps", "3", "--tune-args", "-N 5 -l 9", src], 2,
         "--tune-steps and '-l' in --tune-args both limit the super-steps: give one"),
    ]
    problems = []
    for argv, rc, msg in checks:
        p, err = _run([diderotc] + argv, work, _env(cache), COMPILE_TIMEOUT)
        if err:
            problems.append(err)
        elif p.returncode != rc or msg not in p.stderr:
            problems.append("%s: exit %d (expected %d), stderr %r lacks %r"
                            % (" ".join(argv[:-1]), p.returncode, rc, p.stderr[-400:], msg))
    cdir = os.path.join(cache, "diderot", "tune")
    if os.path.isdir(cdir) and os.listdir(cdir):
        problems.append("a refused --tune wrote a cache file")
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", []


def _steps_case(srcdir, diderotc):
    """--tune-steps: tests/schedule/endless.diderot never ends in a whole
    run (10^9 updates a strand), so the tuning finishes only if every run
    (the default's and each candidate's) stops after the 3 super-steps
    asked for; the summary and the cache file say so."""
    work = tempfile.mkdtemp(prefix="diderot-tune-steps-")
    cache = os.path.join(work, "cache")
    src = os.path.join(srcdir, "tests", "schedule", "endless.diderot")
    argv = [diderotc, "--exec", "--target=omp", "--tune=quick", "--tune-steps", "3",
            "--tune-args", "-N 4000", "-o", os.path.join(work, "endless"), src]
    # 120 s: a run that ignored the limit would only be stopped by the
    # tuner after 600 s; the test fails then, and kills the whole group (the
    # tuner's run of the program included)
    q = subprocess.Popen(argv, cwd=work, env=_env(cache), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, errtext = q.communicate(timeout=120)
        p, err = subprocess.CompletedProcess(argv, q.returncode, out, errtext), None
    except subprocess.TimeoutExpired:
        os.killpg(q.pid, signal.SIGKILL)
        q.communicate()
        p, err = None, "timed out after 120 s: the runs were not limited to 3 super-steps"
    problems = []
    if err or p.returncode:
        problems.append(err or "--tune --tune-steps 3: exit %d: %s" % (p.returncode, p.stderr[-800:]))
    elif not re.search(r"^diderotc: tuned in .*, runs of the first 3 super-steps\): ", p.stderr, re.M):
        problems.append("the summary does not say the runs were limited: " + p.stderr[-600:])
    else:
        cdir = os.path.join(cache, "diderot", "tune")
        files = os.listdir(cdir) if os.path.isdir(cdir) else []
        text = open(os.path.join(cdir, files[0])).read() if len(files) == 1 else ""
        if not re.search(r"^measured = .*runs of the first 3 super-steps$", text, re.M):
            problems.append("the cache file (%s) does not say the runs were limited: %r" % (files, text[-400:]))
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", []


DEFAULT_FILE_PROGRAM = """#version 2.0
input image(2)[] img = load_image("../data/img.nrrd");
field#0(2)[] F = img \u229b tent;
input int N = 3000;
strand S (int i) {
  output real v = 0.0;
  update { v = F([1.5, 1.5]) + real(i); stabilize; }
}
create_collection { S(i) | i in 0..N-1 };
"""


def _default_file_case(srcdir, diderotc):
    """An input whose default file is named relative to the current
    directory (as examples/mip's "../data/blobs.nrrd"), not given in
    --tune-args: the tuner's runs, in a directory of their own, get that
    file by absolute path (before, the default run failed: file not
    found), and the cache entry's inputs are that file's (a 4x4 float
    NRRD)."""
    del srcdir
    work = tempfile.mkdtemp(prefix="diderot-tune-default-")
    cache = os.path.join(work, "cache")
    os.makedirs(os.path.join(work, "data"))
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir)
    with open(os.path.join(work, "data", "img.nrrd"), "w") as f:
        f.write("NRRD0004\ntype: float\ndimension: 2\nsizes: 4 4\nencoding: ascii\n\n%s\n"
                % " ".join(str(i) for i in range(16)))
    with open(os.path.join(run_dir, "prog.diderot"), "w", encoding="utf-8") as f:
        f.write(DEFAULT_FILE_PROGRAM)
    argv = [diderotc, "--exec", "--target=omp", "--tune=quick", "--tune-args", "-N 2000",
            "-o", "prog", "prog.diderot"]
    p = subprocess.run(argv, cwd=run_dir, env=_env(cache), capture_output=True, text=True,
                       timeout=COMPILE_TIMEOUT)
    problems = []
    if p.returncode or not re.search(r"^diderotc: tuned in ", p.stderr, re.M):
        problems.append("--tune with the default file: exit %d: %s" % (p.returncode, p.stderr[-800:]))
    else:
        cdir = os.path.join(cache, "diderot", "tune")
        files = os.listdir(cdir) if os.path.isdir(cdir) else []
        text = open(os.path.join(cdir, files[0])).read() if len(files) == 1 else ""
        if not re.search(r"-img nrrd\(float;4 4\)", text):
            problems.append("the cache entry (%s) does not hold the default file's inputs: %r"
                            % (files, text[-500:]))
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", []


def collect(srcdir, builddir, diderotc):
    del builddir
    tests = [("schedule/runtime/option", lambda: _option_case(srcdir, diderotc))]
    tests += [("schedule/runtime/" + n, (lambda n=n: _identity_case(srcdir, diderotc, n)))
              for n in PROGRAMS]
    tests += [("schedule/tune/cache", lambda: _cache_case(srcdir, diderotc)),
              ("schedule/tune/full", lambda: _full_case(srcdir, diderotc)),
              ("schedule/tune/bad-cache", lambda: _bad_cache_case(srcdir, diderotc)),
              ("schedule/tune/refuses", lambda: _refuses_case(srcdir, diderotc)),
              ("schedule/tune/steps", lambda: _steps_case(srcdir, diderotc)),
              ("schedule/tune/default-file", lambda: _default_file_case(srcdir, diderotc)),
              ("schedule/tune/usage", lambda: _usage_case(srcdir, diderotc))]
    return tests

"""--target=mpi under mpirun (issue 31; tests/run.py: mpi/NAME).

collect() returns (name, fn) pairs; fn() returns (status, details).

  mpi/run/NAME     tests/programs/run/NAME.diderot built with --target=seq and
                   --target=mpi; every case of NAME.py run under
                   `mpirun --oversubscribe -np R` for R in DIDEROT_MPI_RANKS
                   (default 1,2,3; `make check-mpi`: 1,2,3,4; R > 1 with
                   chunks of SPREAD_CHUNK strands, so that strands, their
                   prints and their sequences are on every rank): exit status,
                   stdout, the program's stderr and every output file
                   byte-identical to the sequential run's at the same chunk (whose values
                   run/NAME checks against the oracle NAME.py); every
                   run/ program builds for the target;
  mpi/image        tests/mpi/probe.diderot: an image read by rank 0 and
                   broadcast (also from stdin), strands that stop at different
                   steps, a real sum over all strands that depends on the order
                   of its additions, prints in the global update: outputs and
                   stdout byte-identical to --target=seq for every R and both
                   placements (block, cyclic), -print FILE written once,
                   snapshots (--snapshot -s 3) byte-identical to seq's, and
                   the oracle below (closed form of the probes, the sums
                   simulated, the snapshots' values too);
  mpi/rebalance    tests/mpi/rebalance.diderot: work growing with the strand's
                   index under the block placement, so chunks must move
                   (mpi-rebalance 1.1, chunk 16): outputs byte-identical to
                   --target=seq's and to the closed form, with and without
                   rebalancing, and -v says chunks moved only when it is on;
  mpi/fault/...    (tests/mpi/faults.py) a probe outside the image on one
                   rank (the message names that rank, found by restating the rebalancing rule:
                   owners_after), a missing input file, a bad option value: one
                   message from the job, the OpenMP build's (plus "rank
                   R: " for the run-time error), exit status != 0, no output
                   written and an old output left as it was, within TIMEOUT
                   (also a -print file that cannot be opened);
                   SIGINT or SIGTERM to mpirun during a run that never ends:
                   the job ends with one "stopped by" message, no output;
                   the same with SIGTERM to rank 1's process alone (every
                   rank stops after the same step: DrtDistrib.stop);
                   strand creation out of memory on rank 1 alone (ulimit
                   -v): rank 1's message, once, no output; so with a bad
                   DIDEROT_SCHED_STEPS on rank 1 alone, and an image input
                   that rank 1 has no room for;
  mpi/examples/NAME  the nine examples (scripts/run-examples.sh's recipes)
                   against --target=seq, byte for byte; only with
                   DIDEROT_MPI_FULL=1 (make check-mpi), skipped otherwise;
  mpi/conformance  tests/mpi/conformance.py: the conformance corpus's scripts
                   (tests/conformance) with every --exec build for
                   --target=mpi under mpirun at each R: the checks pass and
                   every file written is byte-identical to the sequential
                   run's; only with DIDEROT_MPI_FULL=1 (make check-mpi);
  mpi/queries      tests/mpi/queries.diderot: image queries of a broadcast
                   image give every rank the same globals and world;
  mpi/library      a --target=mpi library and a host program of ours
                   (lib_host.c, mpicc): every rank holds every strand's
                   result, the closed form of rebalance.diderot; a second
                   world over another communicator is refused;

Every run has a timeout (a hang fails). Skipped, with the reason, where
mpirun is missing or diderotc was configured without MPI. Python 3 standard
library only.
"""

import os
import re
import shutil
import signal
import subprocess
import threading  # faults.py (run in these globals)
import sys

nrrd = None    # tests/oracle/nrrd.py, imported by collect()
SRCDIR = None
TIMEOUT = 60           # seconds per mpirun: a guard against hangs, not a speed check
SANITIZED = "-fsanitize" in os.environ.get("CFLAGS_DIDEROT_EXTRA", "")
# Under the sanitizers (scripts/check-asan.sh), mpi/run/ runs the programs
# that reach a distinct path of the MPI runtime (placement, reductions,
# prints gathered, sphere and state exchange, new, collections, sequences
# in state and globals, snapshots, strand-wise runs); the others differ in
# the language (their code is run/NAME's under the sanitizers too) and run
# in the full profile. Each case compiles twice and runs four times, which
# under ASan made this group a fifth of CI's sanitizer run.
SANITIZE_RUN_SUBSET = {
    "collatz", "collect_strand_refs", "collect_strands", "dynseq_global_blocks",
    "dynseq_strand_build", "global_seq_heap", "global_sequences", "global_stabilize_reads",
    "life_sphere", "loop_lanes", "output_parts", "population", "population_control",
    "print_strands", "reduce_prints", "reductions_all", "repel_circle", "seq_churn", "snapshots",
    "sphere_count1", "sphere_outliers", "sphere_stabilizing_neighbour", "state_read_before_write",
    "strandwise", "strings_exchange", "utf8_string"}
if SANITIZED:
    # scripts/check-asan.sh: programs built with the sanitizers run 3-5x
    # slower (repel_sphere at -np 2 took over 60 s on a loaded 2-core VM)
    TIMEOUT *= 4
COMPILE_TIMEOUT = 300


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def ranks():
    text = os.environ.get("DIDEROT_MPI_RANKS", "1,2,3")
    return [int(r) for r in text.split(",") if r.strip()]


def mpi_env(builddir):
    # Open MPI refuses root without these (CI runs as root); harmless otherwise
    # -O1: the C compiles are most of this group's time; both builds of a
    # comparison get the same flags
    # Under the sanitize profile (scripts/check-asan.sh) address and UB
    # errors stay fatal, but not leaks: Open MPI's components, unloaded by
    # MPI_Finalize, leave allocations that LeakSanitizer cannot even name
    # (<unknown module>); the runtime's own code is leak-checked in the
    # other groups' runs
    asan = re.sub(r"detect_leaks=1", "detect_leaks=0", os.environ.get("ASAN_OPTIONS", ""))
    return dict(os.environ, DIDEROT_RT_DIR=builddir, CFLAGS_DIDEROT="-O1", OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
                ASAN_OPTIONS=asan)


def run(argv, cwd, env, timeout=TIMEOUT, stdin=None):
    """(returncode, stdout, stderr); a Failure on timeout (the whole process
    group is killed: mpirun and its ranks)."""
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as fin:
        p = subprocess.Popen(argv, cwd=cwd, stdin=fin, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.communicate()
            raise Failure("timed out after %d s (a hang?): %s" % (timeout, " ".join(argv)))
    return p.returncode, out, err


def mpirun(np, exe, args, cwd, env, stdin=None):
    # one thread per rank, two in a job of one rank (threads inside a rank)
    threads = ["--nworkers", "2" if np == 1 else "1"]
    return run([shutil.which("mpirun"), "--oversubscribe", "-np", str(np), exe]
               + [str(a) for a in args] + threads, cwd, env, stdin=stdin)


def own_lines(err, exe):
    """The program's stderr lines, its name as PROG, without Open MPI's
    banners (blocks between lines of dashes that mpirun adds when a rank
    exits with a non-zero status)."""
    lines, inside = [], False
    for line in err.decode("utf-8", "replace").splitlines():
        if re.fullmatch(r"-{20,}", line):
            inside = not inside
            continue
        if not inside:
            lines.append(line.replace(os.path.basename(exe), "PROG"))
    return lines


def outputs(work):
    return {f: open(os.path.join(work, f), "rb").read()
            for f in sorted(os.listdir(work)) if f.endswith(".nrrd")}


def clear_outputs(work, keep=()):
    for f in os.listdir(work):
        if f.endswith(".nrrd") and f not in keep:
            os.remove(os.path.join(work, f))


def build(diderotc, src, exe, flags, env, cwd):
    """None when built; else the refusal or failure text."""
    rc, out, err = run([diderotc, "--exec"] + flags + ["-o", exe, src], cwd, env,
                       timeout=COMPILE_TIMEOUT)
    if rc == 0:
        return None
    return err.decode("utf-8", "replace")


def require_mpi(diderotc, builddir, work):
    if not shutil.which("mpirun"):
        raise Skip("mpirun not found (Debian package: openmpi-bin)")
    src = os.path.join(work, "tiny.diderot")
    with open(src, "w") as f:
        f.write("#version 2.0\nstrand S (int i) { output int x = i; update { stabilize; } }\n"
                "create_array { S(i) | i in 0..1 };\n")
    why = build(diderotc, src, os.path.join(work, "tiny"), ["--target=mpi"], mpi_env(builddir), work)
    if why and "MPI was not found" in why:
        raise Skip("diderotc was configured without MPI (Debian package: libopenmpi-dev)")
    if why:
        raise Failure("a trivial --target=mpi build failed: " + why.strip())


def fresh(builddir, name):
    work = os.path.join(builddir, "tests", "mpi-work", name.replace("/", "_"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return work


# ---- mpi/run/NAME ----------------------------------------------------------

SPREAD_CHUNK = 2
# programs whose strands are many and exchanged after every step (sphere()):
# chunks of 2 would cost their -np 2 and 3 runs a third more time (repel_sphere
# at -np 2 on a loaded 2-core machine: 31 s at the default chunk, 40 s at 2);
# their strands are on every rank at the default chunk already
DEFAULT_CHUNK_ONLY = {"repel_sphere"}

def t_run(builddir, diderotc, path):
    stem = os.path.basename(path)[:-len(".diderot")]
    work = fresh(builddir, "run_" + stem)
    require_mpi(diderotc, builddir, work)
    scope = {"__name__": "oracle_" + stem}
    oracle = path[:-len(".diderot")] + ".py"
    exec(compile(open(oracle).read(), oracle, "exec"), scope)
    env = mpi_env(builddir)
    flags = list(scope.get("FLAGS", []))
    seq, par = os.path.join(work, "prog-seq"), os.path.join(work, "prog-mpi")
    why = build(diderotc, path, par, flags + ["--target=mpi"], env, SRCDIR)
    if why:
        raise Failure("--target=mpi build failed: " + why.strip())
    why = build(diderotc, path, seq, flags, env, SRCDIR)
    if why:
        raise Failure("--target=seq build failed: " + why.strip())
    problems = []
    # one rank at the default chunk (256 strands); more ranks with chunks
    # of SPREAD_CHUNK strands, so that the few strands of these programs are
    # spread over every rank (the sequential run with the same chunk)
    spread = env if stem in DEFAULT_CHUNK_ONLY else dict(env, DIDEROT_SCHED_CHUNK=str(SPREAD_CHUNK))
    for n, (args, _) in enumerate(scope.get("CASES", [])):
        want = {}
        for label, e in (("default", env), ("spread", spread)):
            if e is env and want:
                want[label] = want["default"]
                continue
            clear_outputs(work)
            rc, out, err = run([seq] + [str(a) for a in args], work, e)
            want[label] = (rc, out, own_lines(err, seq), outputs(work))
        for np in ranks():
            e = env if np == 1 else spread
            clear_outputs(work)
            rc, out, err = mpirun(np, par, args, work, e)
            got = (rc, out, own_lines(err, par), outputs(work))
            w = want["default" if np == 1 else "spread"]
            if got != w:
                what = [k for k, a, b in zip(("exit status", "stdout", "stderr", "outputs"), got, w)
                        if a != b]
                problems.append("case %d %s, -np %d%s: %s differ from --target=seq's%s" % (
                    n, args, np, "" if np == 1 or spread is env else " (chunk %d)" % SPREAD_CHUNK,
                    ", ".join(what),
                    "" if got[2] == w[2] else ": %r against %r" % (got[2][:3], w[2][:3])))
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


# ---- mpi/image and mpi/fault -----------------------------------------------

N_RAMP = 12
PROBE_N = 1000


def ramp(x, y):
    return 2.0 * x + 3.0 * y + 1.0


def probe_oracle(N):
    """v and seen of probe.diderot, simulated: strand i stabilizes in step
    i % 7 + 1, v = ramp(p) (tent reconstructs a linear function exactly),
    seen = the sum of the global update before that step."""
    v = [0.0] * N
    seen = [-1.0] * N
    total = 0.0
    for step in range(1, 8):
        for i in range(N):
            if i % 7 + 1 == step:
                v[i] = ramp((i % 20) * 0.5 + 0.25, ((i // 20) % 20) * 0.5 + 0.25)
                seen[i] = total
        total = sum(1.0 / (x + 0.1) for x in v)
    return v, seen


def probe_setup(builddir, diderotc, name, flags=(), snapshot=False):
    work = fresh(builddir, name)
    require_mpi(diderotc, builddir, work)
    shutil.copy(os.path.join(SRCDIR, "tests", "mpi", "probe.diderot"), work)
    data = [ramp(x, y) for y in range(N_RAMP) for x in range(N_RAMP)]
    nrrd.write(os.path.join(work, "ramp.nrrd"), nrrd.Nrrd("float", [N_RAMP, N_RAMP], data))
    env = mpi_env(builddir)
    exes = {}
    for label, more in (("seq", []), ("omp", ["--target=omp"]), ("mpi", ["--target=mpi"] + list(flags))):
        exe = exes[label] = os.path.join(work, "probe-" + label)
        # --snapshot: mpi/image's snapshots (check_snapshots)
        why = build(diderotc, "probe.diderot", exe, more + (["--snapshot"] if snapshot else []),
                    env, work)
        if why:
            raise Failure("%s build failed: %s" % (label, why.strip()))
    return work, env, exes


def check_probe_values(files):
    problems = []
    v_want, seen_want = probe_oracle(PROBE_N)
    for fname, want in (("v.nrrd", v_want), ("seen.nrrd", seen_want)):
        got = nrrd.parse(files[fname], fname)
        if list(got.sizes) != [PROBE_N]:
            problems.append("%s: sizes %s" % (fname, got.sizes))
            continue
        for i, (g, w) in enumerate(zip(got.data, want)):
            # v exact up to float rounding; seen: a float sum of 1000 terms
            if not abs(g - w) <= 1e-4 * max(1.0, abs(w)):
                problems.append("%s[%d] = %r, expected %r" % (fname, i, g, w))
                break
    return problems


def snapshot_oracle(N, t):
    """v and seen of probe.diderot's snapshot after t steps: every strand
    is alive; strand i has stabilized (probe_oracle's values) when
    i % 7 + 1 <= t, else it still holds its initial values."""
    v, seen = probe_oracle(N)
    done = [i % 7 + 1 <= t for i in range(N)]
    return ([x if d else 0.0 for x, d in zip(v, done)],
            [x if d else -1.0 for x, d in zip(seen, done)])


def check_snapshots(work, env, exes):
    """--snapshot (mpi/image's builds have it): -s 3 at -np 3 writes the
    snapshots after 0, 3, 6 and 7 steps, through rank 0, byte-identical to
    --target=seq's, and their values are snapshot_oracle's."""
    problems = []
    clear_outputs(work, keep=("ramp.nrrd",))
    rc, _, err = run([exes["seq"], "-s", "3"], work, env)
    want = outputs(work)
    names = sorted("%s-%04d.nrrd" % (o, t) for o in ("v", "seen") for t in (0, 3, 6, 7))
    if rc != 0 or sorted(f for f in want if "-" in f) != names:
        return ["the sequential -s 3: exit status %d, files %s" % (rc, sorted(want))]
    for f in names:
        t = int(f[-9:-5])
        got = nrrd.parse(want[f], f).data
        exp = snapshot_oracle(PROBE_N, t)[0 if f.startswith("v-") else 1]
        if len(got) != len(exp) or any(not abs(g - w) <= 1e-4 * max(1.0, abs(w))
                                       for g, w in zip(got, exp)):
            problems.append("%s: not the oracle's values" % f)
    clear_outputs(work, keep=("ramp.nrrd",))
    rc, _, err = mpirun(3, exes["mpi"], ["-s", "3"], work, env)
    got = outputs(work)
    if rc != 0 or got != want:
        problems.append("-np 3 -s 3: exit status %d, %s" % (
            rc, "files %s" % sorted(got) if sorted(got) != sorted(want) else "snapshots differ "
            "from --target=seq's: %s" % [f for f in want if got.get(f) != want[f]]))
    return problems


def t_image(builddir, diderotc):
    work, env, exes = probe_setup(builddir, diderotc, "image", snapshot=True)
    # the block placement from a schedule file (the default is cyclic)
    with open(os.path.join(work, "block.sched"), "w") as f:
        f.write("mpi-placement = block\n")
    blk = os.path.join(work, "probe-block")
    why = build(diderotc, "probe.diderot", blk, ["--target=mpi", "--schedule=block.sched"], env, work)
    if why:
        raise Failure("block build failed: " + why.strip())
    rc, printed, err = run([exes["seq"]], work, env)
    if rc != 0:
        raise Failure("the sequential run failed: " + err.decode("utf-8", "replace"))
    want = outputs(work)
    problems = check_probe_values(want)
    if printed.count(b"total ") != 7:
        problems.append("the sequential run printed %r" % printed[:200])
    for np in ranks():
        for exe, how in ((exes["mpi"], "cyclic"), (blk, "block")):
            clear_outputs(work, keep=("ramp.nrrd",))
            rc, out, err = mpirun(np, exe, [], work, env)
            got = outputs(work)
            if rc != 0 or got != want or out != printed:
                problems.append("-np %d (%s): exit status %d, outputs %s, prints %s" % (
                    np, how, rc, "identical" if got == want else "differ from --target=seq's",
                    "identical" if out == printed else "differ: %r" % out[:200]))
    # -print FILE: rank 0 alone opens it and writes the prints once
    clear_outputs(work, keep=("ramp.nrrd",))
    rc, out, err = mpirun(3, exes["mpi"], ["-print", "printed.txt"], work, env)
    got = open(os.path.join(work, "printed.txt"), "rb").read() \
        if os.path.exists(os.path.join(work, "printed.txt")) else None
    if rc != 0 or out or got != printed:
        problems.append("-np 3 -print printed.txt: exit status %d, stdout %r, file %r" % (rc, out[:100], got and got[:100]))
    # the image from stdin: rank 0 reads it, the others get it from rank 0
    clear_outputs(work, keep=("ramp.nrrd",))
    rc, _, err = mpirun(2, exes["mpi"], ["-img", "-"], work, env,
                        stdin=os.path.join(work, "ramp.nrrd"))
    if rc != 0 or outputs(work) != want:
        problems.append("-np 2 -img - (stdin): exit status %d%s" % (rc, "; " + " ".join(own_lines(err, exes["mpi"]))))
    problems += check_snapshots(work, env, exes)
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


# ---- mpi/rebalance -------------------------------------------------------------

REB_N, REB_STEPS = 2000, 40


def rebalance_oracle(N, STEPS):
    """v and seen of rebalance.diderot, simulated step by step."""
    v, seen = [0.0] * N, [-1.0] * N
    last = [1 + i * STEPS // N for i in range(N)]
    total = 0.0
    for s in range(1, STEPS + 2):
        for i in range(N):
            if s <= last[i]:
                v[i] = s * (s + 1) / 2.0
                seen[i] = total
        total = sum(v)
    return v, seen


def t_rebalance(builddir, diderotc):
    """Chunks move between ranks when one holds too much of the remaining
    work (mpi-rebalance): block placement, work growing with the strand's
    index; outputs byte-identical to --target=seq and to the closed form
    with rebalancing and without, and `-v` says chunks moved (only when
    rebalancing is on and there are ranks to move to)."""
    work = fresh(builddir, "rebalance")
    require_mpi(diderotc, builddir, work)
    shutil.copy(os.path.join(SRCDIR, "tests", "mpi", "rebalance.diderot"), work)
    env = mpi_env(builddir)
    exes = {}
    for label, key in (("seq", None), ("on", "1.1"), ("off", "off")):
        exe = exes[label] = os.path.join(work, "reb-" + label)
        flags = []
        if key:
            with open(os.path.join(work, label + ".sched"), "w") as f:
                f.write("mpi-placement = block\nmpi-rebalance = %s\nchunk = 16\n" % key)
            flags = ["--target=mpi", "--schedule=%s.sched" % label]
        why = build(diderotc, "rebalance.diderot", exe, flags, env, work)
        if why:
            raise Failure("%s build failed: %s" % (label, why.strip()))
    rc, _, err = run([exes["seq"]], work, env)
    if rc != 0:
        raise Failure("the sequential run failed: " + err.decode("utf-8", "replace"))
    want = outputs(work)
    problems = []
    v_want, seen_want = rebalance_oracle(REB_N, REB_STEPS)
    for fname, vals in (("v.nrrd", v_want), ("seen.nrrd", seen_want)):
        got = nrrd.parse(want[fname], fname)
        if list(got.data) != vals:
            problems.append("--target=seq's %s is not the closed form" % fname)
    for np in ranks():
        for label in ("on", "off"):
            clear_outputs(work)
            rc, _, err = mpirun(np, exes[label], [], work, env)
            if rc != 0 or outputs(work) != want:
                problems.append("-np %d, rebalance %s: exit status %d, outputs %s" % (
                    np, label, rc, "identical" if outputs(work) == want else "differ"))
            clear_outputs(work)
            rc, _, err = mpirun(np, exes[label], ["-v"], work, env)
            moves = [line for line in own_lines(err, exes[label]) if "chunks moved" in line]
            expect_moves = label == "on" and np > 1
            if rc != 0 or outputs(work) != want or bool(moves) != expect_moves:
                problems.append("-np %d -v, rebalance %s: exit status %d, outputs %s, %d steps "
                                "moved chunks (expected %s)" % (
                                    np, label, rc, "identical" if outputs(work) == want else "differ",
                                    len(moves), "some" if expect_moves else "none"))
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


# ---- mpi/examples/NAME (make check-mpi) ------------------------------------

# the recipes of scripts/run-examples.sh: (name, source, arguments; DATA is
# examples/data)
EXAMPLES = [
    ("mip", "examples/mip/mip.diderot", ["-vol", "DATA/blobs.nrrd", "-o", "mip.nrrd"]),
    ("isocontour", "examples/isocontour/isocontour.diderot", ["-img", "DATA/ddro-100.nrrd", "-o", "pos.nrrd"]),
    ("lic", "examples/lic/lic.diderot",
     ["-flow", "DATA/sqflow2D-1608.nrrd", "-noise", "DATA/noise.nrrd", "-o", "lic.nrrd"]),
    ("canny", "examples/canny/canny.diderot", ["-img", "DATA/ddro-100.nrrd", "-o", "canny.nrrd"]),
    ("vorticity", "examples/vorticity/vorticity.diderot", ["-flow", "DATA/sqflow2D-1608.nrrd", "-o", "vort.nrrd"]),
    ("ridges", "examples/ridges/ridges.diderot", ["-elev", "DATA/sscand-crop.nrrd", "-o", "lam.nrrd"]),
    ("viewer", "examples/viewer/viewer.diderot", ["-vol", "DATA/blobs.nrrd", "-o", "rgb.nrrd"]),
    ("dvr", "examples/paraview/dvr.diderot", ["-vol", "DATA/blobs.nrrd", "-o", "gray.nrrd"]),
    ("isoparticles", "examples/paraview/isoparticles.diderot",
     ["-vol", "DATA/blobs.nrrd", "-o-pos", "pos.nrrd", "-o-normal", "normal.nrrd"]),
    ("life", "examples/life/life.diderot", ["-init", "DATA/gosperglidergun.nrrd", "-gens", "30"]),
]


def t_example(builddir, diderotc, name, src, args):
    if os.environ.get("DIDEROT_MPI_FULL") != "1":
        raise Skip("the examples run in make check-mpi (DIDEROT_MPI_FULL=1)")
    work = fresh(builddir, "example_" + name)
    require_mpi(diderotc, builddir, work)
    env = mpi_env(builddir)
    args = [a.replace("DATA", os.path.join(SRCDIR, "examples", "data")) for a in args]
    seq, par = os.path.join(work, "seq"), os.path.join(work, "mpi")
    for exe, flags in ((seq, []), (par, ["--target=mpi"])):
        why = build(diderotc, os.path.join(SRCDIR, src), exe, flags, env, SRCDIR)
        if why:
            raise Failure("%s build failed: %s" % (" ".join(flags) or "seq", why.strip()))
    rc, out, err = run([seq] + args, work, env)
    want = (rc, out, own_lines(err, seq), outputs(work))
    if rc != 0:
        raise Failure("the sequential run failed: %r" % want[2])
    problems = []
    for np in ranks():
        clear_outputs(work)
        rc, out, err = mpirun(np, par, args, work, env)
        got = (rc, out, own_lines(err, par), outputs(work))
        if got != want:
            problems.append("-np %d: %s differ" % (np, ", ".join(
                k for k, a, b in zip(("exit status", "stdout", "stderr", "outputs"), got, want) if a != b)))
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


SPAWN_N = 600


def spawn_oracle(N):
    """v of spawn.diderot in output order: the initial strands, then each
    generation in the order of its creators."""
    gen0 = list(range(N))
    gen1 = [i + 1 for i in gen0 if i % 3 == 0]
    gen2 = [i + 1 for i in gen1 if i % 3 == 1]
    return [i * 0.5 for i in gen0] + [i * 0.5 + 10 for i in gen1] + [i * 0.5 + 20 for i in gen2]


def t_new(builddir, diderotc):
    """`new` in strands of every rank (chunks of 16 over 600 strands; cyclic,
    and block with rebalancing, so that chunks keep their owners as the
    world grows): outputs byte-identical to --target=seq's, which are the
    closed form."""
    work = fresh(builddir, "new")
    require_mpi(diderotc, builddir, work)
    shutil.copy(os.path.join(SRCDIR, "tests", "mpi", "spawn.diderot"), work)
    with open(os.path.join(work, "small.sched"), "w") as f:
        f.write("chunk = 16\n")
    with open(os.path.join(work, "block.sched"), "w") as f:
        f.write("chunk = 16\nmpi-placement = block\nmpi-rebalance = 1.1\n")
    env = mpi_env(builddir)
    exes = {k: os.path.join(work, "spawn-" + k) for k in ("seq", "mpi", "block")}
    for label, flags in (("seq", []), ("mpi", ["--target=mpi", "--schedule=small.sched"]),
                         ("block", ["--target=mpi", "--schedule=block.sched"])):
        why = build(diderotc, "spawn.diderot", exes[label], flags, env, work)
        if why:
            raise Failure("%s build failed: %s" % (label, why.strip()))
    rc, _, err = run([exes["seq"]], work, env)
    want = outputs(work)
    problems = []
    got = nrrd.parse(want.get("v.nrrd", b""), "v.nrrd") if rc == 0 and "v.nrrd" in want else None
    if got is None or list(got.data) != spawn_oracle(SPAWN_N):
        problems.append("--target=seq's v.nrrd is not the closed form")
    for np in ranks():
        for label in ("mpi", "block"):
            clear_outputs(work)
            rc, _, err = mpirun(np, exes[label], [], work, env)
            if rc != 0 or outputs(work) != want:
                problems.append("-np %d (%s): exit status %d, outputs %s: %s" % (
                    np, label, rc, "identical" if outputs(work) == want else "differ",
                    " ".join(own_lines(err, exes[label]))[:200]))
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


def t_library(builddir, diderotc):
    """A --target=mpi library (no --exec) used by a host program of ours
    (tests/mpi/lib_host.c, built with mpicc) that makes the same calls on
    every rank: every rank holds every strand's result, equal to the closed
    form of rebalance.diderot (block placement, chunks that move); a second
    world over another communicator is refused with a message."""
    work = fresh(builddir, "library")
    require_mpi(diderotc, builddir, work)
    mpicc = shutil.which("mpicc")
    if not mpicc:
        raise Skip("mpicc not found (Debian package: libopenmpi-dev)")
    for f in ("rebalance.diderot", "lib_host.c"):
        shutil.copy(os.path.join(SRCDIR, "tests", "mpi", f), work)
    with open(os.path.join(work, "lib.sched"), "w") as f:
        f.write("mpi-placement = block\nmpi-rebalance = 1.1\nchunk = 16\n")
    env = mpi_env(builddir)
    rc, _, err = run([diderotc, "--target=mpi", "--schedule=lib.sched", "--namespace=R", "-o", "reb",
                      "rebalance.diderot"], work, env, timeout=COMPILE_TIMEOUT)
    if rc != 0:
        raise Failure("the library build failed: " + err.decode("utf-8", "replace"))
    # the generated library's flags too (the sanitize profile's
    # CFLAGS_DIDEROT_EXTRA: its code calls the sanitizers' runtime)
    extra = os.environ.get("CFLAGS_DIDEROT_EXTRA", "").split()
    rc, _, err = run([mpicc, "-O1", "-I.", "-I" + os.path.join(SRCDIR, "rt"), "lib_host.c", "reb.o",
                      "-o", "host", "-lteem", "-lm", "-fopenmp"] + extra, work, env,
                     timeout=COMPILE_TIMEOUT)
    if rc != 0:
        raise Failure("the host program did not build: " + err.decode("utf-8", "replace"))
    v, seen = rebalance_oracle(REB_N, REB_STEPS)
    want = "".join("v %d %.9g\n" % (i, x) for i, x in enumerate(v)) + \
        "".join("seen %d %.9g\n" % (i, x) for i, x in enumerate(seen))
    problems = []
    for np in ranks():
        for f in os.listdir(work):
            if f.startswith("out."):
                os.remove(os.path.join(work, f))
        rc, _, err = mpirun(np, os.path.join(work, "host"), ["out", str(REB_N)], work, env)
        if rc != 0:
            problems.append("-np %d: exit status %d: %s" % (np, rc, " ".join(own_lines(err, "host"))[:300]))
            continue
        for r in range(np):
            path = os.path.join(work, "out.%d" % r)
            got = open(path).read() if os.path.exists(path) else None
            if got != want:
                problems.append("-np %d: rank %d's outputs %s" % (
                    np, r, "missing" if got is None else "differ from the closed form"))
    if 2 in ranks():
        rc, _, err = mpirun(2, os.path.join(work, "host"), ["out", str(REB_N), "self"], work, env)
        text = err.decode("utf-8", "replace")
        if rc == 0 or "must use one MPI communicator" not in text:
            problems.append("a second world over MPI_COMM_SELF: exit status %d, stderr %r" % (rc, text[-300:]))
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


def t_queries(builddir, diderotc):
    """tests/mpi/queries.diderot: world_min/world_max/sample_min/sample_max
    of an image that rank 0 read and broadcast (a 5x4 float image with
    oblique space directions) give every rank the same globals, and so the
    same number of strands: outputs byte-identical to --target=seq at every
    R, and the values are the closed form (x from 2.25 to 9, y from -1 to 7:
    6 + 8 strands; samples from -3 to 7). Before the broadcast carried the
    image's axes, the other ranks' queries were NaN and the ranks' worlds
    differed (MPI_ERR_TRUNCATE, or a hang)."""
    work = fresh(builddir, "queries")
    require_mpi(diderotc, builddir, work)
    env = mpi_env(builddir)
    vals = [(k * 7) % 11 - 3 for k in range(20)]
    with open(os.path.join(work, "img.nrrd"), "w") as f:
        f.write("NRRD0004\ntype: float\ndimension: 2\nspace dimension: 2\nsizes: 5 4\n"
                "space directions: (1.5,0.5) (-0.25,2)\nspace origin: (3,-1)\nencoding: ascii\n\n%s\n"
                % " ".join(str(v) for v in vals))
    src = os.path.join(SRCDIR, "tests", "mpi", "queries.diderot")
    seq, par = os.path.join(work, "seq"), os.path.join(work, "mpi")
    for exe, flags in ((seq, []), (par, ["--target=mpi"])):
        why = build(diderotc, src, exe, flags, env, work)
        if why:
            raise Failure("%s build failed: %s" % (" ".join(flags) or "seq", why.strip()))
    args = ["-img", "img.nrrd"]
    spread = dict(env, DIDEROT_SCHED_CHUNK=str(SPREAD_CHUNK))
    rc, out, err = run([seq] + args, work, spread)
    want = (rc, out, outputs(work))
    if rc != 0:
        raise Failure("the sequential run failed: %r" % err)
    q = nrrd.read(os.path.join(work, "q.nrrd"))
    expect = [[2.25 + i, 7.0, -3.0, 7.0] for i in range(14)]
    got_q = [list(q.data[4 * i:4 * i + 4]) for i in range(len(q.data) // 4)]
    if got_q != expect:
        raise Failure("q.nrrd is %r, expected %r" % (got_q, expect))
    problems = []
    for np in ranks():
        clear_outputs(work, keep=("img.nrrd",))
        rc, out, err = mpirun(np, par, args, work, spread)
        if (rc, out, outputs(work)) != want:
            problems.append("-np %d: exit status %d, outputs %s --target=seq's: %s" % (
                np, rc, "equal to" if outputs(work) == want[2] else "differ from",
                err.decode("utf-8", "replace")[-300:]))
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


def t_conformance(builddir, diderotc):
    """tests/mpi/conformance.py: the conformance corpus's scripts with every
    --exec build for --target=mpi under mpirun, at each R of
    DIDEROT_MPI_RANKS: the cases' checks pass and every file they write is
    byte-identical to the sequential run's (both with chunks of 64)."""
    if os.environ.get("DIDEROT_MPI_FULL") != "1":
        raise Skip("the conformance corpus runs in make check-mpi (DIDEROT_MPI_FULL=1)")
    corpus = os.path.join(SRCDIR, "..", "shared", "conformance")
    if not os.path.isdir(corpus):
        raise Skip("no conformance corpus at %s" % corpus)
    work = fresh(builddir, "conformance")
    require_mpi(diderotc, builddir, work)
    env = mpi_env(builddir)
    p = subprocess.run([sys.executable, os.path.join(SRCDIR, "tests", "mpi", "conformance.py"),
                        "--diderotc", diderotc, "--out", work,
                        "--ranks", ",".join(str(r) for r in ranks())],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=3600)
    if p.returncode:
        raise Failure("\n".join(l for l in p.stdout.splitlines() if not l.startswith("PASS "))[-3000:]
                      + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


def collect(srcdir, builddir, diderotc):
    global nrrd, SRCDIR
    SRCDIR = os.path.abspath(srcdir)
    sys.path.insert(0, os.path.join(SRCDIR, "tests", "oracle"))
    import nrrd as nrrd_module
    nrrd = nrrd_module
    builddir = os.path.abspath(builddir)
    diderotc = diderotc or os.path.join(builddir, "diderotc")
    faults = os.path.join(SRCDIR, "tests", "mpi", "faults.py")
    with open(faults, encoding="utf-8") as f:
        exec(compile(f.read(), faults, "exec"), globals())  # the mpi/fault/... cases
    cases = [("mpi/image", t_image), ("mpi/fault/probe-outside", t_fault_probe),
             ("mpi/fault/missing-file", t_fault_file), ("mpi/fault/bad-option", t_fault_option),
             ("mpi/fault/print-file", t_fault_print),
             ("mpi/fault/SIGINT", lambda b, d: t_fault_signal(b, d, signal.SIGINT)),
             ("mpi/fault/SIGTERM", lambda b, d: t_fault_signal(b, d, signal.SIGTERM)),
             ("mpi/fault/SIGTERM-rank1", lambda b, d: t_fault_signal(b, d, signal.SIGTERM, 1)),
             ("mpi/fault/create-rank1", t_fault_create_rank),
             ("mpi/fault/env-rank1", t_fault_env_rank),
             ("mpi/fault/image-rank1", t_fault_image_rank),
             ("mpi/fault/exchange-rank1", t_fault_exchange_rank),
             ("mpi/library", t_library), ("mpi/conformance", t_conformance),
             ("mpi/queries", t_queries),
             ("mpi/new", t_new),
             ("mpi/rebalance", t_rebalance)]
    for name, src, args in EXAMPLES:
        cases.append(("mpi/examples/" + name,
                      lambda b, d, n=name, s=src, a=args: t_example(b, d, n, s, a)))
    progs = os.path.join(SRCDIR, "tests", "programs", "run")
    for f in sorted(os.listdir(progs)):
        if f.endswith(".diderot") and (not SANITIZED or f[:-len(".diderot")] in SANITIZE_RUN_SUBSET):
            p = os.path.join(progs, f)
            cases.append(("mpi/run/" + f[:-len(".diderot")], lambda b, d, p=p: t_run(b, d, p)))

    def make(fn):
        def case():
            try:
                fn(builddir, diderotc)
            except Skip as e:
                return "skip", [str(e)]
            except Failure as e:
                return "fail", [str(e)]
            return "pass", []
        return case

    return [(name, make(fn)) for name, fn in cases]

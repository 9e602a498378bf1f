"""faults.py -- the mpi/fault/... cases of tests/mpi/mpi.py (its docstring
says what each checks): errors, memory limits, bad settings and signals on
one rank or all of them end the whole job with one message, never a hang.

Not a module of its own: mpi.py's collect() runs this file in mpi.py's
globals, so the cases use its helpers (fresh, build, run, mpirun,
own_lines, outputs, probe_setup, ...) as if written there."""

def fault_case(builddir, diderotc, name, args, rank_of=None, one_line=True):
    """One message (the OpenMP build's, whose executable each rank runs,
    options included: one line unless one_line is
    false; with rank_of(np), 'rank R: ' before it), once, a non-zero exit
    status, no output written and an old one left as it was, for every R."""
    work, env, exes = probe_setup(builddir, diderotc, name)
    old = b"an old output that must stay as it is\n"
    rc, _, err = run([exes["omp"]] + args, work, env)
    want = own_lines(err, exes["omp"])
    if rc == 0 or (one_line and len(want) != 1):
        raise Failure("the OpenMP build's exit status %d, stderr %r" % (rc, want))
    problems = []
    for np in ranks():
        clear_outputs(work, keep=("ramp.nrrd",))
        with open(os.path.join(work, "v.nrrd"), "wb") as f:
            f.write(old)
        rc, _, err = mpirun(np, exes["mpi"], args, work, env)
        got = own_lines(err, exes["mpi"])
        expect = want
        if rank_of and np > 1:
            expect = [want[0].replace("PROG: error: ", "PROG: error: rank %d: " % rank_of(np), 1)]
        if rc == 0:
            problems.append("-np %d: exit status 0" % np)
        # without one_line, the message and its usage lines: the usage of
        # the MPI build lacks what the target does not have (-trace), so
        # the message must match and a usage must follow it
        same = got == expect if one_line else (
            got[:1] == expect[:1] and any(l.startswith("Usage: PROG") for l in got))
        if not same:
            problems.append("-np %d: stderr %r, expected %r" % (np, got, expect))
        left = outputs(work)
        if left.get("v.nrrd") != old or set(left) != {"ramp.nrrd", "v.nrrd"}:
            problems.append("-np %d: outputs written or the old one changed: %s" % (np, sorted(left)))
        tmp = [f for f in os.listdir(work) if f.startswith(".") or "tmp" in f]
        if tmp:
            problems.append("-np %d: files left: %s" % (np, tmp))
    if problems:
        raise Failure("; ".join(problems) + " (work directory %s)" % work)
    shutil.rmtree(work, ignore_errors=True)


def owners_after(np, active_after, nsteps, ratio=1.25):
    """The owner of each chunk after nsteps super-steps under the cyclic
    placement and the rebalancing rule of rt_mpi.c (doc/user-guide.md,
    mpi-rebalance), restated: after a step, when the busiest rank holds
    more than ratio x the mean of the active strands, each chunk with
    active strands goes to the rank where its middle strand falls in a
    deal of total/R each, in chunk order; chunks without stay.
    active_after(s) is the list of active strands per chunk after step s."""
    owner = None
    for s in range(1, nsteps + 1):
        act = active_after(s)
        if owner is None:
            owner = [c % np for c in range(len(act))]
        total = sum(act)
        load = [sum(a for a, o in zip(act, owner) if o == r) for r in range(np)]
        if not total or max(load) * np <= ratio * total:
            continue
        before = 0
        for c, a in enumerate(act):
            if a:
                owner[c] = min(((2 * before + a) * np) // (2 * total), np - 1)
                before += a
    return owner


def t_fault_probe(builddir, diderotc):
    # strand 999 is in chunk 3 (256 strands per chunk), and probes outside
    # in step 6 (999 % 7 + 1); the rank that runs chunk 3 then reports it
    def active_after(s):
        return [sum(1 for i in range(lo, min(lo + 256, PROBE_N)) if i % 7 + 1 > s)
                for lo in range(0, PROBE_N, 256)]
    fault_case(builddir, diderotc, "fault-probe", ["-bad", "999"],
               rank_of=lambda np: owners_after(np, active_after, 5)[3])


def t_fault_file(builddir, diderotc):
    fault_case(builddir, diderotc, "fault-file", ["-img", "no-such-file.nrrd"])


def t_fault_print(builddir, diderotc):
    # only rank 0 opens the -print file: the others must not wait for it
    fault_case(builddir, diderotc, "fault-print", ["-print", "no-such-dir/p.txt"])


def t_fault_option(builddir, diderotc):
    # the message and the usage lines after it, once
    fault_case(builddir, diderotc, "fault-option", ["-N", "many"], one_line=False)


FOREVER = """#version 2.0
input int N = 100000;
real t = 0.0;
strand S (int i) {
  output real x = 0.0;
  update { x += 1.0; }
}
update { t = t + 1.0; if (t == 1.0) { print("running\\n"); } }
create_array { S(i) | i in 0..N-1 };
"""


def built_program(builddir, diderotc, name, text, stem, env=None):
    """A fresh work folder `name` with `text` as STEM.diderot built for
    --target=mpi: (work, env, exe)."""
    work = fresh(builddir, name)
    require_mpi(diderotc, builddir, work)
    with open(os.path.join(work, stem + ".diderot"), "w") as f:
        f.write(text)
    env = env or mpi_env(builddir)
    exe = os.path.join(work, stem)
    why = build(diderotc, stem + ".diderot", exe, ["--target=mpi"], env, work)
    if why:
        raise Failure("build failed: " + why.strip())
    return work, env, exe


def rank1_job(exe, args, rank1_prefix, work, env):
    """One job of two ranks (mpirun's MPMD form), rank 1's command behind
    rank1_prefix (`env VAR=VALUE`, an address-space limit)."""
    return run([shutil.which("mpirun"), "--oversubscribe", "-np", "1", exe] + args + [":", "-np", "1"]
               + rank1_prefix + [exe] + args, work, env)


def limited(kib):
    """rank1_job's prefix for an address-space limit (`ulimit -v`) of kib KiB."""
    return ["sh", "-c", 'ulimit -v %d && exec "$@"' % kib, "sh"]


BIG = """#version 2.0
input int N = 10;
strand S (int i) {
  output real x = 0.0;
  real y = 1.0;
  real z = 2.0;
  update { x += y + z; stabilize; }
}
create_array { S(i) | i in 0..N-1 };
"""


def t_fault_create_rank(builddir, diderotc):
    """Strand creation that fails on one rank alone (rank 1 under an
    address-space limit, `ulimit -v`, that the world does not fit in;
    rank 0 without one): the ranks agree on it before the run
    (drt_mpi_agree_created), so the job ends with rank 1's message, once,
    from rank 0, exit status != 0 and no output; before, rank 0 went on
    into the run's collectives and MPI aborted the job (MPI_ERR_TRUNCATE)."""
    if SANITIZED:
        raise Skip("an address-space limit and the sanitizers' shadow memory do not mix")
    work, env, exe = built_program(builddir, diderotc, "fault-create-rank", BIG, "big")
    limit = 400000  # KiB: a rank of a small world runs within it (checked first)
    def job(n):
        return rank1_job(exe, ["-N", str(n)], limited(limit), work, env)
    rc, _, err = job(10)
    if rc != 0:
        raise Failure("a world of 10 strands failed under ulimit -v %d: %r" % (limit, own_lines(err, exe)[:4]))
    os.remove(os.path.join(work, "x.nrrd"))
    rc, _, err = job(30000000)  # 30M strands of 18 bytes: 540 MB
    lines = [l for l in own_lines(err, exe) if "error" in l]
    if rc == 0 or len(lines) != 1 or not lines[0].startswith("PROG: error: rank 1: ") \
            or "ulimit -v" not in lines[0] or outputs(work):
        raise Failure("exit status %d, messages %r, outputs %s" % (rc, own_lines(err, exe)[:4],
                                                                 sorted(outputs(work))))
    shutil.rmtree(work, ignore_errors=True)


def t_fault_exchange_rank(builddir, diderotc):
    """An allocation that fails on rank 1 alone inside an exchange that has
    begun (the end-of-run gather's send buffer: malloc of exactly its size
    made to fail by tests/mpi/failmalloc.c, LD_PRELOAD on rank 1): the ranks
    cannot agree on it, so the job ends (MPI_Abort), but with rank 1's
    message, naming the rank and the cause, exit status != 0 and no output;
    before, the message went to rank 1's silenced stderr."""
    if SANITIZED:
        raise Skip("an interposed malloc and the sanitizers' allocator do not mix")
    work, env, exe = built_program(builddir, diderotc, "fault-exchange-rank", BIG, "big")
    lib = os.path.join(work, "failmalloc.so")
    p = subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2", "-o", lib,
                        os.path.join(SRCDIR, "tests", "mpi", "failmalloc.c"), "-ldl"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        raise Failure("failmalloc.c: " + p.stdout.decode("utf-8", "replace")[-500:])
    # 2,560 strands in 10 chunks of 256, 5 on each rank (cyclic); a state of
    # 3 floats: rank 1 sends 5 x 256 x 12 bytes
    size = 5 * 256 * 12
    prefix = ["env", "LD_PRELOAD=" + lib, "FAIL_MALLOC_SIZE=%d" % size]
    rc, _, err = rank1_job(exe, ["-N", "2560"], ["env", "LD_PRELOAD=" + lib, "FAIL_MALLOC_SIZE=0"],
                           work, env)
    if rc != 0:
        raise Failure("the run with failmalloc.so failing no allocation: %r" % own_lines(err, exe)[:4])
    os.remove(os.path.join(work, "x.nrrd"))
    rc, _, err = rank1_job(exe, ["-N", "2560"], prefix, work, env)
    lines = [l for l in own_lines(err, exe) if "error" in l and "ORTE_ERROR_LOG" not in l]
    if rc == 0 or lines != ["PROG: error: rank 1: out of memory exchanging 10 chunks of 3072 bytes"] \
            or outputs(work):
        raise Failure("exit status %d, messages %r, outputs %s" % (rc, own_lines(err, exe)[:6],
                                                                 sorted(outputs(work))))
    shutil.rmtree(work, ignore_errors=True)


IMG = """#version 2.0
input image(2)[] vol;
field#0(2)[] F = vol ⊛ tent;
strand S (int i) {
  output real x = 0.0;
  update { x = F([0.5, 0.5]); stabilize; }
}
create_array { S(i) | i in 0..9 };
"""


def t_fault_image_rank(builddir, diderotc):
    """An image input that rank 1 has no room for (`ulimit -v` on rank 1
    alone; rank 0 loads it and broadcasts the samples): every rank fails
    with rank 1's message, once, exit status != 0, no output; before, rank
    1 wrote its message to its silenced stderr and aborted the job. The
    image is a sparse file of 144 MB (no disk blocks)."""
    if SANITIZED:
        raise Skip("an address-space limit and the sanitizers' shadow memory do not mix")
    work, env, exe = built_program(builddir, diderotc, "fault-image-rank", IMG, "img")
    for name, n in (("small", 6), ("big", 6000)):
        with open(os.path.join(work, name + ".nhdr"), "w") as f:
            f.write("NRRD0004\ntype: float\ndimension: 2\nsizes: %d %d\nspace dimension: 2\n"
                    "space directions: (1,0) (0,1)\ncenterings: cell cell\nendian: little\n"
                    "encoding: raw\ndata file: %s.raw\n" % (n, n, name))
        with open(os.path.join(work, name + ".raw"), "wb") as f:
            f.truncate(n * n * 4)
    limit = 300000  # KiB: room for a small image (checked first), not for 144 MB
    def job(name):
        return rank1_job(exe, ["-vol", name], limited(limit), work, env)
    rc, _, err = job("small.nhdr")
    if rc != 0:
        raise Failure("a 6x6 image failed under ulimit -v %d: %r" % (limit, own_lines(err, exe)[:4]))
    os.remove(os.path.join(work, "x.nrrd"))
    rc, _, err = job("big.nhdr")
    lines = own_lines(err, exe)
    if rc == 0 or lines != ["PROG: error: rank 1: out of memory for the samples of input 'vol' "
                            "(144000000 bytes)"] or outputs(work):
        raise Failure("exit status %d, messages %r, outputs %s" % (rc, lines[:4], sorted(outputs(work))))
    shutil.rmtree(work, ignore_errors=True)


def t_fault_env_rank(builddir, diderotc):
    """A bad DIDEROT_SCHED_STEPS on rank 1 alone (an MPMD job: `env` sets
    it for that rank): every rank stops before the run with rank 1's
    message, once, exit status != 0, no output; before, rank 1 alone
    refused to run and the others waited in the first step's collective
    for ever."""
    work, env, exe = built_program(builddir, diderotc, "fault-env-rank", BIG, "big")
    rc, _, err = rank1_job(exe, ["-N", "100"], ["env", "DIDEROT_SCHED_STEPS=bogus"], work, env)
    lines = own_lines(err, exe)
    if rc == 0 or len(lines) != 1 or not lines[0].startswith(
            "PROG: error: rank 1: DIDEROT_SCHED_STEPS (-sched-steps): bad value 'bogus'") \
            or outputs(work):
        raise Failure("exit status %d, messages %r, outputs %s" % (rc, lines[:4], sorted(outputs(work))))
    shutil.rmtree(work, ignore_errors=True)


def rank_pid(mpirun_pid, exe, rank):
    """The process id of rank `rank` among mpirun's children running exe
    (from /proc: OMPI_COMM_WORLD_RANK in its environment), or None."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != mpirun_pid or os.path.realpath("/proc/%s/exe" % d) != os.path.realpath(exe):
                continue
            with open("/proc/%s/environ" % d, "rb") as f:
                env = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ("OMPI_COMM_WORLD_RANK=%d" % rank).encode() in env:
            return int(d)
    return None


def t_fault_signal(builddir, diderotc, sig, rank=None):
    """A signal to mpirun while the ranks run (super-steps that never end),
    or (rank R) to that rank's process alone, which the others must not
    wait for: the job ends within TIMEOUT, exit status != 0, one "stopped
    by" message, no output."""
    # odls_base_sigkill_timeout: mpirun, given SIGINT or SIGTERM, sends
    # SIGTERM to the ranks after this many seconds (SIGCONT first) and
    # SIGKILL as many seconds later, whether or not they have ended (Open
    # MPI 4.1, measured: 20 s cost 39 s a run). Its default of 1 s may kill
    # a rank on a loaded machine before the step in progress ends and says
    # so, and so did 5 s once at load 7 (no message at all); 10 s leaves
    # room. Only here: where a rank fails (mpi/fault/*), the
    # others wait in a collective that never completes, and mpirun would
    # wait too.
    env = dict(mpi_env(builddir), OMPI_MCA_odls_base_sigkill_timeout="10")
    work, env, exe = built_program(builddir, diderotc, "fault-signal-%d%s" % (
        sig, "" if rank is None else "-rank%d" % rank), FOREVER, "forever", env)
    p = subprocess.Popen([shutil.which("mpirun"), "--oversubscribe", "-np", "2", exe, "-n", "1"],
                         cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, start_new_session=True)
    # the signal once the ranks run (rank 0 prints after the first step):
    # a signal during MPI's start-up is mpirun's business, not the runtime's
    watchdog = threading.Timer(COMPILE_TIMEOUT, lambda: os.killpg(p.pid, signal.SIGKILL))
    watchdog.start()
    first = p.stdout.readline()
    watchdog.cancel()
    if first != b"running\n":
        p.communicate()
        raise Failure("the run ended before the signal: status %s, first line %r" % (p.returncode, first))
    if rank is None:
        p.send_signal(sig)
    else:
        pid = rank_pid(p.pid, exe, rank)
        if pid is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise Failure("no process of rank %d among mpirun's children" % rank)
        os.kill(pid, sig)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise Failure("no end within %d s of the signal (a hang)" % TIMEOUT)
    lines = [l for l in own_lines(err, exe) if "stopped by" in l]
    if p.returncode == 0 or len(lines) != 1 or outputs(work):
        raise Failure("exit status %d, messages %r, outputs %s" % (p.returncode, own_lines(err, exe)[:4],
                                                                 sorted(outputs(work))))
    shutil.rmtree(work, ignore_errors=True)

"""Big runs that fail well (issue 34; tests/run.py: bigruns/NAME).

collect() returns (name, fn) pairs; fn() returns (status, details).

  bigruns/memory/*   strands or outputs beyond what the process may use stop
                     at once with "PROG: error: 4e10 strands of B bytes need
                     N; this process may use M (LIMIT)", exit status 1,
                     nothing written (an old output stays as it was): far
                     beyond the machine's memory (-n 200000 of a 2-D grid), under
                     an address-space limit (RLIMIT_AS of `ulimit -v
                     4000000`: -n 20000), a collection that grows past it, a
                     population that `new` doubles past it, a dynamic
                     sequence beyond the address space, in a cgroup
                     limited to 1 GB (skipped where none can be made); a library's
                     create_strands of 4e12 strands returns the error at
                     once (lib_refusal.c); and a grid that fits under the
                     same limit runs and writes its values;
  bigruns/signal/*   SIGINT and SIGTERM stop a run (strand by strand, and in
                     super-steps with a snapshot every step): "PROG: error:
                     stopped by SIGINT ...", the process ends by the signal
                     (a shell's status 130 or 143), the old output intact, no
                     temporary file, every snapshot saved before complete
                     and right for its step, none missing before the last;
  bigruns/kill       200 SIGKILLs at random moments of a run that writes a
                     snapshot every step and replaces an earlier run's files:
                     every file is then the earlier run's or the new run's,
                     whole; a temporary only ever belongs to a killed process
                     (the moment a replacement is renamed) and the next run
                     removes it; after a last run nothing is left but the new
                     files.

Oracles: the values are closed forms of the programs (v = scale (k + i + j)
after k steps); sizes, counts and limits are computed here (200000^2 =
4e10; the need is the count times the bytes per strand the message gives;
what the process may use is at most the limit we set, or MemTotal). The
2 seconds the issue asks for are not measured: the runs get a generous
timeout (TIMEOUT) and a memory guard (a run whose resident memory passes
GUARD_BYTES is killed and fails), so that a broken runtime fails the test
instead of taking the machine. Python 3 standard library only.
"""

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

nrrd = None  # tests/oracle/nrrd.py, imported by collect() (run.py execs this file)
SRCDIR = None  # the source tree, set by collect() (no __file__ under run.py)

TIMEOUT = 30               # seconds per run: a guard against hangs, no speed check
COMPILE_TIMEOUT = 300
GUARD_BYTES = 3 << 30      # resident memory at which a run is killed (a failure)
KILLS = 200

GRID = """#version 2.0
input int n = 10;
strand S (int i, int j) {
  output real v = 0.0;
  update { v = real(i + j); stabilize; }
}
create_array { S(i, j) | i in 0..n-1, j in 0..n-1 }
"""

COLLECTION = """#version 2.0
input int n = 10;
strand S (int i) {
  output real v = 0.0;
  update { v = real(i); stabilize; }
}
create_collection { S(i) | i in 0..n-1 }
"""

# every strand creates one more each step: the population doubles
SPAWN = """#version 2.0
input int n = 4;
strand S (int i) {
  output real v = real(i);
  int k = 0;
  update { k += 1; new S(i + 1); if (k > 40) stabilize; }
}
create_collection { S(i) | i in 0..n-1 }
"""

# after k steps v = scale (k + i + j); stabilizes after `steps`
STEPS = """#version 2.0
input int n = 10;
input int steps = 10;
input real scale = 1.0;
strand S (int i, int j) {
  output real v = 0.0;
  int k = 0;
  update {
    k += 1;
    v = scale * real(k + i + j);
    if (k >= steps) stabilize;
  }
}
create_array { S(i, j) | i in 0..n-1, j in 0..n-1 }
"""

# each strand builds a sequence of n + 1 ints
SEQUENCE = """#version 2.0
input int n = 10;
strand S (int i) {
  output real v = 0.0;
  update { int[] r = 0..n; v = real(length(r) + i); stabilize; }
}
create_collection { S(i) | i in 0..3 };
"""

MESSAGE = re.compile(
    r"^(?P<prog>\S+): error: (?:(?P<what>[a-z ]+): )?(?P<count>[0-9.e]+) (?P<things>strands|values) of (?P<per>\d+) bytes? "
    r"need (?P<need>[0-9.]+) (?P<nu>bytes|kB|MB|GB|TB|PB|EB); this process may use "
    r"(?P<room>[0-9.]+) (?P<ru>bytes|kB|MB|GB|TB|PB|EB) \((?P<limit>[^)]*)\)$")
UNITS = {"bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15, "EB": 1e18}
LIMITS = ("RLIMIT_AS, ulimit -v", "RLIMIT_DATA, ulimit -d", "cgroup memory.max",
          "cgroup memory.limit_in_bytes", "MemAvailable in /proc/meminfo")


class Failure(Exception):
    pass


class Skip(Exception):
    pass


# ---- building ------------------------------------------------------------------

class _Builds:
    lock = threading.Lock()
    done = {}


def build(builddir, diderotc, name, source, flags=()):
    """BUILD/tests/bigruns/bin/NAME from SOURCE, once per run of the suite."""
    key = (name, tuple(flags))
    with _Builds.lock:
        if key in _Builds.done:
            exe, err = _Builds.done[key]
        else:
            bindir = os.path.join(builddir, "tests", "bigruns", "bin")
            os.makedirs(bindir, exist_ok=True)
            src = os.path.join(bindir, name + ".diderot")
            with open(src, "w") as f:
                f.write(source)
            exe = os.path.join(bindir, name)
            env = dict(os.environ, DIDEROT_RT_DIR=builddir)
            p = subprocess.run([diderotc, "--exec"] + list(flags) + ["-o", exe, src], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=COMPILE_TIMEOUT)
            err = None if p.returncode == 0 else "diderotc %s: exit status %d: %s" % (
                name, p.returncode, p.stdout.decode("utf-8", "replace")[-1500:])
            _Builds.done[key] = (exe, err)
    if err:
        raise Failure(err)
    return exe


def workdir(builddir, name):
    d = os.path.join(builddir, "tests", "bigruns", name.replace("/", "-"))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


# ---- running ----------------------------------------------------------------------

def rss(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def run(argv, cwd, address_space=None, timeout=TIMEOUT):
    """(status, stdout, stderr) of argv run in cwd, under RLIMIT_AS =
    address_space bytes when given; killed (a Failure) past the timeout or
    GUARD_BYTES of resident memory."""
    # the limit as a user sets it (no preexec_fn: the suite runs threads)
    cmd = ["sh", "-c", 'ulimit -v %d && exec "$@"' % (address_space // 1024), "sh"] + argv \
        if address_space else argv
    out, err = os.path.join(cwd, ".stdout"), os.path.join(cwd, ".stderr")
    with open(out, "wb") as fo, open(err, "wb") as fe:
        p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe)
    t0 = time.monotonic()
    why = None
    while p.poll() is None:
        if rss(p.pid) > GUARD_BYTES:
            why = "grew past %d GB of resident memory without stopping" % (GUARD_BYTES >> 30)
        elif time.monotonic() - t0 > timeout:
            why = "did not stop within %d s" % timeout
        if why:
            p.kill()
            p.wait()
            break
        time.sleep(0.01)
    with open(out, "rb") as fo, open(err, "rb") as fe:
        texts = fo.read().decode("utf-8", "replace"), fe.read().decode("utf-8", "replace")
    os.unlink(out)
    os.unlink(err)
    if why:
        raise Failure("%s: %s (stderr: %s)" % (" ".join(argv), why, texts[1][-500:]))
    return p.returncode, texts[0], texts[1]


def files(d):
    return sorted(f for f in os.listdir(d) if not f.startswith("."))


def mem_total():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return float("inf")


def asan():
    return "sanitize=address" in os.environ.get("CFLAGS_DIDEROT_EXTRA", "")


def check_refusal(rc, err, prog, count, limit=None, room_at_most=None):
    """The memory error: exit status 1, one line, the count, a need that
    is count x bytes per strand (to the three digits shown), a room no
    larger than the limit, and the limit named."""
    problems = []
    if rc != 1:
        problems.append("exit status %d, expected 1" % rc)
    lines = err.splitlines()
    m = MESSAGE.match(lines[0]) if len(lines) == 1 else None
    if not m:
        return problems + ["expected one line 'PROG: error: N strands of B bytes need X; this "
                           "process may use Y (LIMIT)', got: %r" % err[-600:]]
    if m.group("prog") != prog:
        problems.append("the message names %r, not the program %r" % (m.group("prog"), prog))
    shown = float(m.group("count"))
    if abs(shown - count) > 0.005 * count:
        problems.append("the message says %s strands, the program has %d" % (m.group("count"), count))
    # (three digits each; the bytes per strand rounded up)
    need = float(m.group("need")) * UNITS[m.group("nu")]
    per = int(m.group("per"))
    if not count * (per - 1) * 0.989 <= need <= count * per * 1.011:
        problems.append("need %s %s is not %d x %d bytes" % (m.group("need"), m.group("nu"), count, per))
    room = float(m.group("room")) * UNITS[m.group("ru")]
    if room >= need:
        problems.append("refused although %s %s may be used" % (m.group("room"), m.group("ru")))
    if room_at_most is not None and room > room_at_most * 1.006:
        problems.append("may use %.4g bytes, more than the limit %d" % (room, room_at_most))
    if limit and m.group("limit") != limit:
        problems.append("the limit is %r, expected %r" % (m.group("limit"), limit))
    if m.group("limit") not in LIMITS:
        problems.append("unknown limit %r" % m.group("limit"))
    return problems


def grid_values(path, n, value):
    """Problems of the grid output at PATH: sizes [n, n], v[i][j] = value(i, j)."""
    try:
        x = nrrd.read(path)
    except (OSError, nrrd.NrrdError, ValueError) as e:
        return ["%s: %s" % (os.path.basename(path), e)]
    if x.sizes != [n, n]:
        return ["%s: sizes %s, expected [%d, %d]" % (os.path.basename(path), x.sizes, n, n)]
    bad = [(i, j) for i in range(n) for j in range(n)
           if abs(x.data[i * n + j] - value(i, j)) > 1e-5 * max(1.0, abs(value(i, j)))]
    return ["%s: %d values wrong, first v[%d][%d] = %r, expected %r"
            % (os.path.basename(path), len(bad), bad[0][0], bad[0][1],
               x.data[bad[0][0] * n + bad[0][1]], value(*bad[0]))] if bad else []


# ---- memory ---------------------------------------------------------------------------

OLD = b"an earlier run's output\n"


def limit_case(builddir, diderotc, name, source, args, count, address_space=None,
               limit=None, flags=(), prefix=(), room_at_most=None, tag=None):
    """The refusal of `exe ARGS -o out.nrrd` (run under `prefix`, a command
    that ends by exec'ing its arguments, and RLIMIT_AS = address_space):
    the memory error, and an old out.nrrd left as it was."""
    if address_space and asan():
        raise Skip("an address-space limit cannot hold an AddressSanitizer build")
    exe = build(builddir, diderotc, name, source, flags)
    d = workdir(builddir, "memory-" + name + "-" + (tag or args[1]))
    with open(os.path.join(d, "out.nrrd"), "wb") as f:
        f.write(OLD)
    rc, _, err = run(list(prefix) + [exe] + args + ["-o", "out.nrrd"], d, address_space)
    problems = check_refusal(rc, err, name, count, limit, room_at_most or address_space)
    if files(d) != ["out.nrrd"]:
        problems.append("files written: %s" % files(d))
    with open(os.path.join(d, "out.nrrd"), "rb") as f:
        if f.read() != OLD:
            problems.append("out.nrrd was changed")
    if problems:
        raise Failure("; ".join(problems))
    shutil.rmtree(d)


ULIMIT_V = 4000000 * 1024  # `ulimit -v 4000000` (KiB)


def t_far_beyond(builddir, diderotc):
    """-n 200000: 4e10 strands, beyond the memory of any machine here; the
    limit named is the tightest that applies (MemAvailable, a cgroup)."""
    limit_case(builddir, diderotc, "grid", GRID, ["-n", "200000"], 200000 ** 2)


def t_ulimit_v(builddir, diderotc):
    limit_case(builddir, diderotc, "grid", GRID, ["-n", "20000"], 20000 ** 2, ULIMIT_V,
               "RLIMIT_AS, ulimit -v")


CGROUP_LIMIT = 1 << 30  # the memory limit of the cgroup t_cgroup makes


def own_memory_cgroup():
    """(directory, limit file, limit name) of the memory cgroup this process
    is in, where the limit can be set in a child: v2's memory.max, v1's
    memory.limit_in_bytes; None where neither is mounted here."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        num, controllers, path = line.split(":", 2)
        if num == "0" and controllers == "":
            for mnt in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                d = mnt + path
                if os.path.exists(os.path.join(d, "memory.max")) or \
                        os.path.exists(os.path.join(d, "cgroup.subtree_control")):
                    return d, "memory.max", "cgroup memory.max"
        elif "memory" in controllers.split(","):
            d = "/sys/fs/cgroup/memory" + path
            if os.path.exists(os.path.join(d, "memory.limit_in_bytes")):
                return d, "memory.limit_in_bytes", "cgroup memory.limit_in_bytes"
    return None


def t_cgroup(builddir, diderotc):
    """-n 20000 (4e8 strands) in a child cgroup limited to 1 GB, as batch
    systems and containers run jobs: the refusal names the cgroup's limit
    and what it leaves, and nothing is written. Skipped where this process
    may not make a cgroup (not root, cgroups not mounted or read-only)."""
    own = own_memory_cgroup()
    if own is None:
        raise Skip("no memory cgroup (v1 or v2) is mounted for this process")
    parent, limit_file, limit_name = own
    cg = os.path.join(parent, "diderot-bigruns-%d" % os.getpid())
    try:
        os.mkdir(cg)
    except OSError as e:
        raise Skip("cannot make a cgroup under %s: %s" % (parent, e.strerror))
    try:
        try:
            with open(os.path.join(cg, limit_file), "w") as f:
                f.write("%d\n" % CGROUP_LIMIT)
        except OSError as e:
            raise Skip("cannot set %s of %s: %s" % (limit_file, cg, e.strerror))
        # the shell joins the cgroup, then becomes the program
        limit_case(builddir, diderotc, "grid", GRID, ["-n", "20000"], 20000 ** 2,
                   limit=limit_name, room_at_most=CGROUP_LIMIT, tag="cgroup",
                   prefix=["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cg])
    finally:
        for _ in range(50):  # the program has exited; its cgroup empties at once
            try:
                os.rmdir(cg)
                break
            except OSError:
                time.sleep(0.05)


def growth_case(builddir, diderotc, name, source, args, most):
    """A population that grows past a 1 GB address space stops with the
    memory error, writes nothing and asks for room for at most `most`
    strands (None: no bound)."""
    if asan():
        raise Skip("an address-space limit cannot hold an AddressSanitizer build")
    exe = build(builddir, diderotc, name, source)
    d = workdir(builddir, "memory-" + name)
    rc, _, err = run([exe] + args + ["-o", "out.nrrd"], d, 1000000 * 1024)
    m = MESSAGE.match(err.strip())
    problems = [] if m else ["expected the memory error, got %r" % err[-600:]]
    if m:
        problems += check_refusal(rc, err, name, round(float(m.group("count"))),
                                  "RLIMIT_AS, ulimit -v", 1000000 * 1024)
        if most is not None and float(m.group("count")) > most * 1.005:
            problems.append("asked for room for %s strands of %g" % (m.group("count"), most))
    if files(d):
        problems.append("files written: %s" % files(d))
    if problems:
        raise Failure("; ".join(problems))
    shutil.rmtree(d)


def t_collection(builddir, diderotc):
    """A collection grows by doubling, then by what fits, never by less
    than an eighth: it stops where that no longer fits (the count is the
    capacity it asked for, at most the strands it was to create)."""
    growth_case(builddir, diderotc, "coll", COLLECTION, ["-n", "200000000"], 200000000)


def t_new(builddir, diderotc):
    """`new` doubles the population each step until it does not fit."""
    growth_case(builddir, diderotc, "spawn", SPAWN, [], None)


def t_fits(builddir, diderotc):
    """Under the same limit a grid that fits runs and writes v = i + j."""
    if asan():
        raise Skip("an address-space limit cannot hold an AddressSanitizer build")
    exe = build(builddir, diderotc, "grid", GRID)
    d = workdir(builddir, "memory-fits")
    rc, _, err = run([exe, "-n", "1000", "-o", "out.nrrd"], d, ULIMIT_V)
    problems = [] if rc == 0 and not err else ["exit status %d: %s" % (rc, err[-600:])]
    if not problems:
        problems = grid_values(os.path.join(d, "out.nrrd"), 1000, lambda i, j: i + j)
    if problems:
        raise Failure("; ".join(problems))
    shutil.rmtree(d)


def t_sequence(builddir, diderotc):
    """A dynamic sequence beyond the address space (1e9 ints, 4 GB, under 2
    GB): the memory error for the sequence, status 1, nothing written (was:
    "out of memory" and exit(1) from the generated code, which a library
    must not do)."""
    if asan():
        raise Skip("an address-space limit cannot hold an AddressSanitizer build")
    exe = build(builddir, diderotc, "seq", SEQUENCE)
    d = workdir(builddir, "memory-sequence")
    rc, _, err = run([exe, "-n", "999999999", "-o", "out.nrrd"], d, 2000000 * 1024)
    problems = check_refusal(rc, err, "seq", 10 ** 9, "RLIMIT_AS, ulimit -v", 2000000 * 1024)
    m = MESSAGE.match(err.strip())
    if m and m.group("what") != "dynamic sequence":
        problems.append("the message names %r, not the dynamic sequence" % m.group("what"))
    if files(d):
        problems.append("files written: %s" % files(d))
    if problems:
        raise Failure("; ".join(problems))
    rc, _, err = run([exe, "-n", "1000", "-o", "out.nrrd"], d, 2000000 * 1024)
    x = nrrd.read(os.path.join(d, "out.nrrd")) if rc == 0 else None
    if not x or x.data != [1001.0 + i for i in range(4)]:
        raise Failure("-n 1000: status %d, %s: %s" % (rc, x and x.data, err[-300:]))
    shutil.rmtree(d)


FAILED = re.compile(
    r"^(?P<prog>\S+): error: out of memory: (?P<count>[0-9.e]+) strands of (?P<per>\d+) bytes "
    r"need [0-9.]+ (?:bytes|kB|MB|GB|TB); the allocation failed \(this process may use "
    r"[0-9.]+ (?:bytes|kB|MB|GB|TB): RLIMIT_AS, ulimit -v\)$")


def t_cuda_device(builddir, diderotc):
    """The CUDA target's device reservation (emulated: device memory is
    host memory) that does not fit after the host's strands did: the
    memory error with the count of strands reserved on the device (a
    power of two above the 3.6e7 strands) and its bytes per strand, status
    1, nothing written (was: "CUDA: device allocation: out of memory")."""
    if asan():
        raise Skip("an address-space limit cannot hold an AddressSanitizer build")
    exe = build(builddir, diderotc, "gridc", GRID, ["--target=cuda", "--cuda-emulate"])
    d = workdir(builddir, "memory-cuda-device")
    rc, _, err = run([exe, "-n", "6000", "-o", "out.nrrd"], d, 1500000 * 1024)
    m = FAILED.match(err.strip())
    problems = [] if rc == 1 else ["exit status %d, expected 1" % rc]
    if not m:
        problems.append("expected 'out of memory: N strands of B bytes need ...', got %r" % err[-500:])
    elif not 6000 ** 2 <= float(m.group("count")) * 1.005 or float(m.group("count")) > 2 * 6000 ** 2 \
            or int(m.group("per")) < 18:
        problems.append("%s strands of %s bytes for 3.6e7 strands of 18 bytes or more"
                        % (m.group("count"), m.group("per")))
    if files(d):
        problems.append("files written: %s" % files(d))
    if problems:
        raise Failure("; ".join(problems))
    shutil.rmtree(d)


def t_library(builddir, diderotc):
    """A library's create_strands of a grid far beyond memory (4e12 strands)
    returns the memory error at once: the generated create function stops
    at the refusal (a walk of every cell, each creation refused, would take
    hours and fail the run's timeout); a small grid then runs
    (lib_refusal.c)."""
    d = workdir(builddir, "memory-library")
    src = os.path.join(d, "grid.diderot")
    with open(src, "w") as f:
        f.write(GRID)
    env = dict(os.environ, DIDEROT_RT_DIR=builddir)
    p = subprocess.run([diderotc, "--namespace=G", "-o", os.path.join(d, "grid"), src], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMPILE_TIMEOUT)
    if p.returncode != 0:
        raise Failure("diderotc: %s" % p.stdout.decode("utf-8", "replace")[-800:])
    cc = (os.environ.get("CC") or "cc").split()
    client = os.path.join(SRCDIR, "tests", "bigruns", "lib_refusal.c")
    p = subprocess.run(cc + ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + d, "-o",
                             os.path.join(d, "client"), client, os.path.join(d, "grid.o"),
                             "-lteem", "-lm"] + os.environ.get("CFLAGS_DIDEROT_EXTRA", "").split(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMPILE_TIMEOUT)
    if p.returncode != 0:
        raise Failure("compiling lib_refusal.c: %s" % p.stdout.decode("utf-8", "replace")[-800:])
    rc, out, err = run([os.path.join(d, "client"), "2000000"], d)
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    if rc != 0 or fails or sum(line.startswith("ok ") for line in out.splitlines()) != 5:
        raise Failure("client: status %d: %s %s" % (rc, "; ".join(fails) or out[-600:], err[-300:]))
    shutil.rmtree(d)


# ---- signals ----------------------------------------------------------------------------

def handles(pid, sig):
    """Whether process pid catches sig (SigCgt of /proc/PID/status): the
    program has reached drt_cli_parse."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return int(line.split()[1], 16) >> (sig - 1) & 1 == 1
    except (OSError, ValueError):
        pass
    return False


def signal_case(builddir, diderotc, sig, snapshots):
    flags = ["--snapshot", "--force-bsp"] if snapshots else []
    exe = build(builddir, diderotc, "steps" + ("-snap" if snapshots else ""), STEPS, flags)
    d = workdir(builddir, "signal-%s%s" % (signal.Signals(sig).name, "-snap" if snapshots else ""))
    with open(os.path.join(d, "out.nrrd"), "wb") as f:
        f.write(OLD)
    n, scale = 10, 3.0
    # strand by strand: 10^9 updates of each strand, far more than the run
    # lasts; with snapshots, a step limit bounds a run that ignored the signal
    args = ["-n", str(n), "-scale", str(scale), "-o", "out.nrrd"]
    args += ["-steps", "1000000", "-s", "1", "-l", "20000"] if snapshots else ["-steps", "1000000000"]
    p = subprocess.Popen([exe] + args, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    t0 = time.monotonic()
    try:
        # ready: the handler is installed and (with snapshots) a few steps ran
        while p.poll() is None and time.monotonic() - t0 < TIMEOUT and not (
                handles(p.pid, sig) and (not snapshots or os.path.exists(os.path.join(d, "v-0003.nrrd")))):
            time.sleep(0.002)
        if p.poll() is None:
            p.send_signal(sig)
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Failure("the run did not stop within %d s of %s" % (TIMEOUT, signal.Signals(sig).name))
    err = err.decode("utf-8", "replace")
    problems = []
    if p.returncode != -sig:
        problems.append("exit status %d, expected death by %s (%d)" % (p.returncode, signal.Signals(sig).name, -sig))
    name = signal.Signals(sig).name
    # the run's message, or a snapshot's when the signal came between a
    # step and its snapshot ("snapshot ... (file F): not written: stopped by")
    if not re.search(r"^steps(-snap)?: error: (stopped by %s (after step \d+; no outputs are "
                     r"written|while creating strands)|.*: not written: stopped by %s)$"
                     % (name, name), err, re.M):
        problems.append("no 'stopped by %s' message: %r" % (name, err[-600:]))
    with open(os.path.join(d, "out.nrrd"), "rb") as f:
        if f.read() != OLD:
            problems.append("out.nrrd was changed")
    snaps = []
    unexpected = []
    for f in files(d):
        m = re.match(r"^v-(\d{4})\.nrrd$", f)
        if f == "out.nrrd":
            continue
        if not m or not snapshots:
            unexpected.append(f)
            continue
        k = int(m.group(1))
        snaps.append(k)
        problems += grid_values(os.path.join(d, f), n,
                                lambda i, j, k=k: scale * (k + i + j) if k else 0.0)
    if unexpected:
        problems.append("%d unexpected files: %s%s" % (len(unexpected), ", ".join(unexpected[:5]),
                                                        ", ..." if len(unexpected) > 5 else ""))
    if snapshots:
        if snaps != list(range(len(snaps))) or len(snaps) < 4:
            problems.append("snapshots %s: not the steps 0..N (N >= 3) without a gap" % snaps[:20])
        if len(snaps) > 20000:
            problems.append("the signal did not stop the run: %d snapshots" % len(snaps))
    if problems:
        raise Failure("; ".join(problems))
    shutil.rmtree(d)


# ---- SIGKILL at random moments ------------------------------------------------------------

TMP = re.compile(r"^(?P<base>.+)\.diderot-(?P<pid>\d+)-\d+\.tmp$")


def t_kill(builddir, diderotc):
    exe = build(builddir, diderotc, "steps-snap", STEPS, ["--snapshot", "--force-bsp"])
    n, steps = 300, 8  # 360 KB files: several 64 KiB writes each
    base = ["-n", str(n), "-steps", str(steps), "-s", "1", "-o", "out.nrrd"]
    names = ["out.nrrd"] + ["v-%04d.nrrd" % k for k in range(steps + 1)]

    def value(scale, k):
        return lambda i, j: scale * (k + i + j) if k else 0.0

    # the two versions of every file, their values checked against the
    # closed form once, then compared byte for byte
    refs = {}
    for scale in (1.0, 2.0):
        d = workdir(builddir, "kill-ref-%g" % scale)
        rc, _, err = run([exe] + base + ["-scale", str(scale)], d)
        if rc != 0 or files(d) != sorted(names):
            raise Failure("reference run (scale %g): status %d, files %s: %s" % (scale, rc, files(d), err[-400:]))
        problems = []
        for f in names:
            k = steps if f == "out.nrrd" else int(f[2:6])
            problems += grid_values(os.path.join(d, f), n, value(scale, k))
            with open(os.path.join(d, f), "rb") as fh:
                refs[(scale, f)] = fh.read()
        if problems:
            raise Failure("reference run (scale %g): %s" % (scale, "; ".join(problems[:5])))
        shutil.rmtree(d)
    d = workdir(builddir, "kill")
    t0 = time.monotonic()
    rc, _, err = run([exe] + base + ["-scale", "1"], d)  # the earlier run's files
    whole = time.monotonic() - t0
    if rc != 0:
        raise Failure("first run: status %d: %s" % (rc, err[-400:]))
    # what an earlier runtime left (issue 34): a PID-named temporary of a
    # process that is gone, beside its target
    gone = subprocess.Popen(["true"])
    gone.wait()
    legacy = "out.nrrd.%d-0.tmp" % gone.pid
    with open(os.path.join(d, legacy), "wb") as f:
        f.write(b"x" * 1000)
    # where files can be made without a name (O_TMPFILE), a temporary is
    # named only once complete: one left by a kill is a whole file
    try:
        os.close(os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o600))
        unnamed = True
    except (AttributeError, OSError):
        unnamed = False
    rng = random.Random(34)
    killed, left = set(), 0
    problems = []
    for i in range(KILLS):
        p = subprocess.Popen([exe] + base + ["-scale", "2"], cwd=d, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, 1.3 * whole))
        p.kill()
        p.wait()
        killed.add(p.pid)
        for f in files(d):
            m = TMP.match(f)
            if m and int(m.group("pid")) in killed and m.group("base") in names:
                left += 1  # a replacement killed between its link and rename
                with open(os.path.join(d, f), "rb") as fh:
                    b = fh.read()
                if unnamed and b not in (refs[(1.0, m.group("base"))], refs[(2.0, m.group("base"))]):
                    problems.append("kill %d: the temporary %s is not a whole file (%d bytes)"
                                    % (i, f, len(b)))
            elif f == legacy:
                continue
            elif f not in names:
                problems.append("kill %d: unexpected file %s" % (i, f))
            else:
                with open(os.path.join(d, f), "rb") as fh:
                    b = fh.read()
                if b != refs[(1.0, f)] and b != refs[(2.0, f)]:
                    problems.append("kill %d: %s is neither the old nor the new file (%d bytes)"
                                    % (i, f, len(b)))
        if len(problems) > 5:
            break
    # a run to the end: the new files, nothing else
    rc, _, err = run([exe] + base + ["-scale", "2"], d)
    if rc != 0:
        problems.append("last run: status %d: %s" % (rc, err[-400:]))
    if files(d) != sorted(names):
        problems.append("after the last run: %s" % files(d))
    for f in names:
        try:
            with open(os.path.join(d, f), "rb") as fh:
                if fh.read() != refs[(2.0, f)]:
                    problems.append("after the last run %s is not the new file" % f)
        except OSError as e:
            problems.append(str(e))
    if problems:
        raise Failure("; ".join(problems[:8]) + " (%d temporaries of killed runs seen)" % left)
    shutil.rmtree(d)


NHDR_KILLS = 60
TMPDIR = re.compile(r"^out\.nhdr\.diderot-(?P<pid>\d+)-\d+\.tmp$")


def read_pair(d):
    """(header bytes, data file name, data bytes) of d/out.nhdr."""
    with open(os.path.join(d, "out.nhdr"), "rb") as f:
        hdr = f.read()
    m = re.search(rb"^data ?file: (?:\./)?(\S+)$", hdr, re.M)
    if not m:
        raise Failure("out.nhdr names no data file: %r" % hdr[-300:])
    name = m.group(1).decode()
    with open(os.path.join(d, name), "rb") as f:
        return hdr, name, f.read()


def t_kill_nhdr(builddir, diderotc):
    """A detached header and its data file (-o out.nhdr) replaced as one:
    60 SIGKILLs at random moments of runs that each replace the pair of the
    one before (the two kinds alternate; the kills fall in the last 60% of
    a run, mostly in its save). After each, the
    header and the data file it names are the earlier run's pair or the
    new run's, whole (the header's values checked against the closed form
    through the reader); the only other files are a complete data file of
    either run that no header names (a kill between the two renames) and
    a killed run's private directory; after a last run, nothing but the
    new pair."""
    exe = build(builddir, diderotc, "steps", STEPS)
    n = 700  # 1.96 MB of data
    base = ["-n", str(n), "-steps", "1", "-o", "out.nhdr"]
    pairs = {}
    for scale in (1.0, 2.0):
        d = workdir(builddir, "kill-nhdr-ref-%g" % scale)
        rc, _, err = run([exe] + base + ["-scale", str(scale)], d)
        if rc != 0 or files(d) != ["out.nhdr", "out.raw"]:
            raise Failure("reference run (scale %g): status %d, files %s: %s" % (scale, rc, files(d), err[-400:]))
        hdr, _, data = read_pair(d)
        x = nrrd.Nrrd("float" if len(data) == 4 * n * n else "double", [n, n], list(
            __import__("array").array("f" if len(data) == 4 * n * n else "d", data)))
        bad = sum(1 for i in range(n) for j in (0, n // 2, n - 1)
                  if abs(x.data[i * n + j] - scale * (1 + i + j)) > 1e-4 * (1 + i + j))
        if bad:
            raise Failure("reference run (scale %g): %d values wrong" % (scale, bad))
        pairs[scale] = (hdr.replace(b"out.raw", b"DATA"), data)
        shutil.rmtree(d)
    d = workdir(builddir, "kill-nhdr")
    t0 = time.monotonic()
    rc, _, err = run([exe] + base + ["-scale", "1"], d)
    whole = time.monotonic() - t0
    if rc != 0:
        raise Failure("first run: status %d: %s" % (rc, err[-400:]))
    rng = random.Random(341)
    killed, problems, dirs = set(), [], 0
    for i in range(NHDR_KILLS):
        # the runs alternate between the two pairs, so that a header of
        # one with the data of the other would be seen
        p = subprocess.Popen([exe] + base + ["-scale", "2" if i % 2 == 0 else "1"], cwd=d,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.4 * whole, 1.1 * whole))
        p.kill()
        p.wait()
        killed.add(p.pid)
        try:
            hdr, name, data = read_pair(d)
        except (OSError, Failure) as e:
            problems.append("kill %d: %s" % (i, e))
            continue
        key = (hdr.replace(name.encode(), b"DATA"), data)
        if key not in (pairs[1.0], pairs[2.0]):
            problems.append("kill %d: out.nhdr and %s are not one run's pair (%d bytes of data)"
                            % (i, name, len(data)))
        for f in files(d):
            m = TMPDIR.match(f)
            if f in ("out.nhdr", name):
                continue
            if m and int(m.group("pid")) in killed and os.path.isdir(os.path.join(d, f)):
                dirs += 1
            elif f in ("out.raw", "out.1.raw"):
                with open(os.path.join(d, f), "rb") as fh:
                    if fh.read() not in (pairs[1.0][1], pairs[2.0][1]):
                        problems.append("kill %d: the unnamed data file %s is not whole" % (i, f))
            else:
                problems.append("kill %d: unexpected file %s" % (i, f))
        if len(problems) > 5:
            break
    rc, _, err = run([exe] + base + ["-scale", "2"], d)
    if rc != 0:
        problems.append("last run: status %d: %s" % (rc, err[-400:]))
    else:
        hdr, name, data = read_pair(d)
        if (hdr.replace(name.encode(), b"DATA"), data) != pairs[2.0]:
            problems.append("after the last run out.nhdr is not the new pair")
        if files(d) != sorted(["out.nhdr", name]):
            problems.append("after the last run: %s" % files(d))
    if problems:
        raise Failure("; ".join(problems[:8]) + " (%d private directories of killed runs seen)" % dirs)
    shutil.rmtree(d)


# ---- the group ----------------------------------------------------------------------------------

def collect(srcdir, builddir, diderotc):
    global nrrd, SRCDIR
    SRCDIR = os.path.abspath(srcdir)
    sys.path.insert(0, os.path.join(os.path.abspath(srcdir), "tests", "oracle"))
    import nrrd as nrrd_module
    nrrd = nrrd_module
    diderotc = diderotc or os.path.join(builddir, "diderotc")
    cases = [
        ("bigruns/memory/far-beyond", t_far_beyond),
        ("bigruns/memory/ulimit-v", t_ulimit_v),
        ("bigruns/memory/ulimit-v-fits", t_fits),
        ("bigruns/memory/cgroup", t_cgroup),
        ("bigruns/memory/collection", t_collection),
        ("bigruns/memory/new", t_new),
        ("bigruns/memory/library", t_library),
        ("bigruns/memory/sequence", t_sequence),
        ("bigruns/memory/cuda-device", t_cuda_device),
        ("bigruns/signal/SIGINT", lambda b, c: signal_case(b, c, signal.SIGINT, False)),
        ("bigruns/signal/SIGTERM", lambda b, c: signal_case(b, c, signal.SIGTERM, False)),
        ("bigruns/signal/SIGINT-snapshots", lambda b, c: signal_case(b, c, signal.SIGINT, True)),
        ("bigruns/signal/SIGTERM-snapshots", lambda b, c: signal_case(b, c, signal.SIGTERM, True)),
        ("bigruns/kill", t_kill),
        ("bigruns/kill-nhdr", t_kill_nhdr),
    ]

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


if __name__ == "__main__":
    # python3 tests/bigruns/bigruns.py BUILD [FILTER]
    b = os.path.abspath(sys.argv[1])
    bad = 0
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for name, fn in collect(top, b, None):
        if len(sys.argv) > 2 and sys.argv[2] not in name:
            continue
        t = time.monotonic()
        status, details = fn()
        bad += status == "fail"
        print("%s %s (%.1f s)%s" % (status.upper(), name, time.monotonic() - t,
                                    "".join("\n    " + x for x in details)))
        sys.stdout.flush()
    sys.exit(1 if bad else 0)

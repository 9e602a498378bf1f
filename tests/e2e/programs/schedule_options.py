"""schedule_options: the run-time schedule options of every executable
(-sched-chunk, -sched-steps, -sched-writer; rt/diderot_world.h "the run-time
schedule", doc/user-guide.md "Schedules") change nothing a program without
interacting strands computes: the output file is byte for byte the default
run's with other chunk sizes (sequential and OpenMP, -n 2), with 1, 2 or all
updates per visit (also under a step limit), and the snapshots are the same
with the writer thread on or off. Bad values are refused with the option's
name and what it accepts (exit status 2); values the program cannot take (a
chunk that splits the AoSoA blocks of --strand-layout=aosoa:8, more than
one update per visit where the program runs super-steps: --force-bsp, the
CUDA target) stop the run with a message naming the value (exit status 1).
Oracle: strand (i, j) of the 48 x 40 grid runs life = 1 + (7i + 3j) % 5
updates (at most the step limit), acc = sum over k = 1..life of
0.5 k + i - 0.25 j (exact: dyadic)."""

import os

VARIANTS = ["float", "double"]
NI, NJ, LIVES = 48, 40, 5


def expected(limit=None):
    out = []
    for i in range(NI):
        for j in range(NJ):
            life = 1 + (7 * i + 3 * j) % LIVES
            n = life if limit is None else min(life, limit)
            out.append(sum(0.5 * k + i - 0.25 * j for k in range(1, n + 1)))
    return out


def output_bytes(t, f="acc.nrrd"):
    t.read(f)  # a missing or unreadable output is a failure here
    with open(t.path(f), "rb") as fh:
        return fh.read()


def same(t, args, want, label, exe=None):
    t.exec(args, exe=exe)
    if output_bytes(t) != want:
        t.fail("%s: acc.nrrd differs from the default run's" % label)


def refused(t, args, rc, message, label, exe=None):
    if os.path.exists(t.path("acc.nrrd")):
        os.remove(t.path("acc.nrrd"))
    p = t.exec(args, expect_rc=rc, exe=exe)
    if message not in p.err:
        t.fail("%s: stderr has no %r: %r" % (label, message, p.err[:600]))
    if rc == 1 and os.path.exists(t.path("acc.nrrd")):
        t.fail("%s: an output was written" % label)


def run(t):
    cuda = "--target=cuda" in t.flags()
    t.compile()
    t.exec([])
    t.close("default", t.read("acc.nrrd").data, expected(), rtol=1e-12)  # exact in practice
    base = output_bytes(t)
    # chunks: smaller, larger, a multiple of the AoSoA widths of the layout mode
    for c in (64, 1024, 8, 0):
        same(t, ["-sched-chunk", c], base, "-sched-chunk %d" % c)
    if not cuda:
        for k in (1, 2, "all"):
            same(t, ["-sched-steps", k], base, "-sched-steps %s" % k)
        t.exec(["-l", 3])
        t.close("-l 3", t.read("acc.nrrd").data, expected(3), rtol=1e-12)
        limited = output_bytes(t)
        same(t, ["-l", 3, "-sched-steps", 2], limited, "-l 3 -sched-steps 2")
        same(t, ["-l", 3, "-sched-steps", 2, "-sched-chunk", 32], limited,
             "-l 3 -sched-steps 2 -sched-chunk 32")
    else:  # the CUDA run loop launches one super-step at a time
        refused(t, ["-sched-steps", 2], 1, "this program runs in super-steps only",
                "cuda -sched-steps 2")
        same(t, ["-sched-steps", 1], base, "cuda -sched-steps 1")
    # bad values: the standard command-line error
    refused(t, ["-sched-chunk", "abc"], 2, "option '-sched-chunk': bad value 'abc'", "bad chunk")
    refused(t, ["-sched-chunk", 2000000000], 2,
            "option '-sched-chunk': bad value '2000000000' (expected a number of strands from 1 "
            "to 1073741824, or 0 for the program's default)", "huge chunk")
    refused(t, ["-sched-steps", "few"], 2,
            "option '-sched-steps': bad value 'few' (expected a number of updates, all, or 0 "
            "for the program's default)", "bad steps")
    # (no snapshots: no writer option)
    refused(t, ["-sched-writer", "on"], 2, "-sched-writer", "writer without --snapshot")
    # a chunk that splits the blocks of an AoSoA layout
    aosoa = t.compile(extra=["--strand-layout=aosoa:8"], stem="prog-aosoa")
    refused(t, ["-sched-chunk", 12], 1,
            "schedule: chunk 12 (-schedule chunk=, -sched-chunk or DIDEROT_SCHED_CHUNK) must be a "
            "multiple of 8",
            "aosoa:8 -sched-chunk 12", exe=aosoa)
    same(t, ["-sched-chunk", 16], base, "aosoa:8 -sched-chunk 16", exe=aosoa)
    if not cuda:
        bsp = t.compile(extra=["--force-bsp"], stem="prog-bsp")
        refused(t, ["-sched-steps", 3], 1,
                "schedule: steps 3 (-schedule steps-per-visit=, -sched-steps or DIDEROT_SCHED_STEPS): "
                "this program runs in super-steps only", "--force-bsp -sched-steps 3", exe=bsp)
        same(t, ["-sched-steps", 1, "-sched-chunk", 128], base, "--force-bsp -sched-steps 1",
             exe=bsp)
        omp = t.compile(extra=["--target=omp"], stem="prog-omp")
        for args in (["-n", 2], ["-n", 2, "-sched-chunk", 64], ["-n", 2, "-sched-chunk", 16,
                                                                "-sched-steps", 2]):
            same(t, args, base, "omp " + " ".join(map(str, args)), exe=omp)
        # snapshots: the same files with the writer thread on and off
        snap = t.compile(extra=["--snapshot"], stem="prog-snap")
        files = {}
        for w in ("off", "on", "auto"):
            pre = "prog-snap-" + w
            t.exec(["-s", 2, "-sp", pre, "-sched-writer", w], exe=snap)
            names = sorted(f for f in os.listdir(t.dir) if f.startswith(pre + "-"))
            files[w] = [(n[len(pre):], open(t.path(n), "rb").read()) for n in names]
            if output_bytes(t) != base:
                t.fail("--snapshot -sched-writer %s: acc.nrrd differs" % w)
        if not files["off"]:
            t.fail("--snapshot -s 2: no snapshot files")
        for w in ("on", "auto"):
            if files[w] != files["off"]:
                t.fail("snapshots with -sched-writer %s differ from -sched-writer off" % w)
        refused(t, ["-sched-writer", "maybe"], 2,
                "option '-sched-writer': bad value 'maybe' (expected auto, on or off)",
                "bad writer", exe=snap)
        for f in os.listdir(t.dir):
            if f.startswith("prog-snap-"):
                os.remove(t.path(f))
    # the outputs the modes compare: the default run's
    t.exec([])

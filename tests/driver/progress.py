"""Progress of long runs (issue 14 §4; tests/run.py: driver/progress/NAME).

An executable whose stderr is a terminal draws a progress line
("PROG: step N, A active, S stable, T s[, about E s left]") redrawn in place
with carriage returns, first after half a second, at most four times a
second, and erased at the end (rt/rt_progress.c); nothing when stderr is not
a terminal, with -q, or when the run is short. The library reports the same
through NS_set_progress_cb. collect() returns (name, fn) pairs; fn() returns
(status, details).

The long program does a fixed amount of work (strand i takes i+1 steps of a
loop of sin), 1.2-3 s of CPU here with LONG_WORK; on a machine fast enough
to finish it in under LONG_ENOUGH seconds the terminal checks are skipped,
visibly.
"""

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

LONG_ENOUGH = 0.9      # seconds a run must take for the display to be due
# the work of the runs that must be long: the default (about 0.6-1.3 s
# here) was too short on faster machines, where these checks were skipped
LONG_WORK = ["-work", "200000"]
TIMEOUT = 300

SLOW = """#version 2.0
input int n = 60;
input int work = 90000;
input bool talk = false;
strand S (int i) {
  output real out = 0.0;
  int k = 0;
  update {
    if (talk && k == 0 && i == 0) { print("printed by strand 0\\n"); }
    real x = out;
    foreach (int j in 0..work) { x = x + sin(real(j + k)) * 0.000001; }
    out = x;
    k += 1;
    if (k > i) stabilize;
  }
}
create_collection { S(i) | i in 0..n-1 };
"""

# A library: strand i stabilizes after i+1 steps, so with n strands the
# run takes n steps and ends with n stable strands and none active.
LIB = """#version 2.0
input int n = 10;
strand S (int i) {
  output real out = 0.0;
  int k = 0;
  update {
    out += real(k);
    k += 1;
    if (k > i) stabilize;
  }
}
create_collection { S(i) | i in 0..n-1 };
"""

CLIENT = r"""#include <stdio.h>
#include <stdlib.h>
#include "lib.h"
/* every call is recorded; the run is stopped once at step 5 */
static uint32_t steps[1000], act[1000], stab[1000];
static int ncalls, stop_at = 5;
static bool cb(void *data, uint32_t step, uint32_t nactive, uint32_t nstable, double elapsed) {
  int *tag = data;
  if (*tag != 42 || elapsed < 0 || ncalls >= 1000) exit(20);
  steps[ncalls] = step, act[ncalls] = nactive, stab[ncalls] = nstable;
  ncalls++;
  if ((int)step == stop_at) { stop_at = -1; return true; }
  return false;
}
int main(void) {
  int tag = 42;
  Diderot_world_t *w = Diderot_new_world();
  if (!w || Diderot_init_world(w)) return 10;
  if (Diderot_input_set_n(w, 12) || Diderot_create_strands(w)) return 11;
  Diderot_set_progress_cb(w, cb, &tag, 0.0);
  uint32_t first = Diderot_run(w, 0);
  uint32_t second = Diderot_run(w, 0);
  printf("runs %u %u\n", first, second);
  for (int i = 1; i < ncalls; i++)
    if (steps[i] < steps[i - 1]) printf("not monotone at call %d\n", i);
  for (int i = 0; i < ncalls; i++)
    if (act[i] + stab[i] != 12) printf("counts do not add up at call %d\n", i);
  printf("calls %d\n", ncalls);
  printf("last step %u active %u stable %u\n", steps[ncalls - 1], act[ncalls - 1], stab[ncalls - 1]);
  printf("world active %u stable %u\n", Diderot_num_active_strands(w), Diderot_num_stable_strands(w));
  /* a throttled callback: called once at the end of a short run */
  Diderot_shutdown(w);
  w = Diderot_new_world();
  if (!w || Diderot_init_world(w) || Diderot_create_strands(w)) return 12;
  ncalls = 0;
  Diderot_set_progress_cb(w, cb, &tag, 3600.0);
  Diderot_run(w, 0);
  printf("throttled calls %d last step %u stable %u\n", ncalls, steps[0], stab[0]);
  Diderot_set_progress_cb(w, NULL, NULL, 0);
  Diderot_shutdown(w);
  return 0;
}
"""

# "PROG: step N, A active, S stable, T[, about T left]", T as rt_progress.c
# writes a duration
TIME = r"(?:\d+\.\d s|\d+ min \d\d s|\d+ h \d\d min)"
LINE = re.compile(r"slow: step (\d+), (\d+) active, (\d+) stable, %s(?:, about %s left)?"
                  % (TIME, TIME))


class _Built:
    """The long program, built once for all cases (they may run at once)."""
    lock = threading.Lock()
    exe = None
    error = None
    work = None


def _build(diderotc):
    with _Built.lock:
        if _Built.exe is None and _Built.error is None:
            _Built.work = tempfile.mkdtemp(prefix="diderot-progress-")
            atexit.register(shutil.rmtree, _Built.work, True)
            src = os.path.join(_Built.work, "slow.diderot")
            with open(src, "w") as f:
                f.write(SLOW)
            exe = os.path.join(_Built.work, "slow")
            p = subprocess.run([diderotc, "--exec", src, "-o", exe], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=TIMEOUT)
            if p.returncode != 0:
                _Built.error = "diderotc exit status %d: %s" % (
                    p.returncode, p.stdout.decode("utf-8", "replace")[-2000:])
            else:
                _Built.exe = exe
        return _Built.exe, _Built.error


def _run_pty(argv, cwd, stdout_too=False):
    """Run argv with stderr (and with stdout_too stdout) on a pseudo-terminal;
    (status, the terminal's bytes with \\r kept, seconds, [(seconds, chunk)])."""
    import pty
    master, slave = pty.openpty()
    t0 = time.monotonic()
    try:
        env = dict(os.environ, TERM="dumb")
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=slave if stdout_too else subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                b = os.read(master, 4096)
            except OSError:  # EIO: the child closed its side
                break
            if not b:
                break
            chunks.append((time.monotonic() - t0, b))
        status = p.wait(timeout=TIMEOUT)
        return status, b"".join(c for _, c in chunks), time.monotonic() - t0, chunks
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def _tty(diderotc, args, expect_lines, stdout_too=False):
    exe, err = _build(diderotc)
    if err:
        return "fail", [err]
    out = os.path.join(_Built.work, "out-%d.nrrd" % threading.get_ident())
    status, data, secs, chunks = _run_pty([exe] + LONG_WORK + args + ["-o", out], _Built.work,
                                         stdout_too)
    text = data.decode("utf-8", "replace")
    if "-talk" in args and stdout_too and "-print" not in args:
        # the program's print on the terminal: no progress line around it
        if text.replace("\r\n", "\n") != "printed by strand 0\n":
            return "fail", ["the terminal got %r, not just the printed line" % text[-300:]]
        if secs < LONG_ENOUGH:
            return "skip", ["the run took %.2f s: too short to show that nothing is drawn" % secs]
        return "pass", []
    if status != 0:
        return "fail", ["exit status %d" % status, repr(text[-500:])]
    if not expect_lines:
        if text:
            return "fail", ["stderr is not empty: %r" % text[-500:]]
        if secs < LONG_ENOUGH:
            return "skip", ["the run took %.2f s: too short to show that nothing is drawn" % secs]
        return "pass", []
    # a run between half a second and LONG_ENOUGH may or may not draw (its
    # clock starts after the process's start-up); what it draws is checked
    # below like any other, the first draw's time included
    if secs < LONG_ENOUGH and not text:
        return "skip", ["the run took %.2f s, too short for the display" % secs]
    if secs < 0.45 and text:
        return "fail", ["a %.2f s run drew %r" % (secs, text[-300:])]
    problems = []
    # every draw starts with \r; the last one erases the line: \r, blanks, \r
    draws = text.split("\r")[1:]
    if not text.startswith("\r") or "\n" in text:
        problems.append("not a line redrawn in place: %r" % text[:200])
    # a shorter line is written twice (text, blanks over the old tail, text)
    shown = []
    for d in draws:
        d = d.rstrip(" ")
        if d and (not shown or shown[-1] != d):
            shown.append(d)
    lines = [LINE.fullmatch(d) for d in shown]
    if not shown:
        problems.append("no progress line in a %.2f s run" % secs)
    for d, m in zip(shown, lines):
        if not m:
            problems.append("not a progress line: %r" % d)
    steps = [int(m.group(1)) for m in lines if m]
    if steps != sorted(steps):
        problems.append("step numbers go back: %s" % steps)
    for m in lines:
        if m and int(m.group(2)) + int(m.group(3)) != 60:
            problems.append("active + stable is not 60: %r" % m.group(0))
    if not re.search(r"\r +\r\Z", text) or len(text.rsplit("\r", 2)[1]) < len((shown or [""])[-1]):
        problems.append("the line is not erased at the end: %r" % text[-200:])
    # at most four draws a second (each draw with its text is one write)
    if len(shown) > 4 * secs + 2:
        problems.append("%d lines in %.2f s: more than four a second" % (len(shown), secs))
    if chunks and chunks[0][0] < 0.45:
        problems.append("first output after %.2f s, before half a second" % chunks[0][0])
    return ("fail", problems) if problems else ("pass", ["%d lines in %.2f s" % (len(shown), secs)])


def _piped(diderotc):
    exe, err = _build(diderotc)
    if err:
        return "fail", [err]
    out = os.path.join(_Built.work, "out-pipe.nrrd")
    t0 = time.monotonic()
    p = subprocess.run([exe] + LONG_WORK + ["-o", out], cwd=_Built.work, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    secs = time.monotonic() - t0
    if p.returncode != 0 or p.stderr:
        return "fail", ["exit status %d, stderr %r" % (p.returncode, p.stderr[-300:])]
    if secs < LONG_ENOUGH:
        return "skip", ["the run took %.2f s: too short to show that nothing is drawn" % secs]
    return "pass", []


def _short(diderotc):
    """A run far below half a second prints nothing, even on a terminal."""
    exe, err = _build(diderotc)
    if err:
        return "fail", [err]
    out = os.path.join(_Built.work, "out-short.nrrd")
    status, data, secs, _ = _run_pty([exe, "-n", "3", "-work", "10", "-o", out], _Built.work)
    if status != 0 or data:
        return "fail", ["exit status %d, stderr %r" % (status, data[-300:])]
    return "pass", []


def _library(diderotc, cuda=False):
    """The callback's calls; cuda: the same on the CUDA target, in host
    emulation (its own run loop, rt/cuda/dc_run.h), linked by c++."""
    if cuda and not shutil.which(os.environ.get("CXX") or "c++"):
        return "skip", ["needs c++ for --cuda-emulate"]
    work = tempfile.mkdtemp(prefix="diderot-progress-lib-")
    try:
        with open(os.path.join(work, "lib.diderot"), "w") as f:
            f.write(LIB)
        with open(os.path.join(work, "client.c"), "w") as f:
            f.write(CLIENT)
        flags = ["--target=cuda", "--cuda-emulate"] if cuda else []
        p = subprocess.run([diderotc] + flags + ["lib.diderot", "-o", "lib"], cwd=work,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
        if p.returncode != 0:
            return "fail", ["diderotc: %s" % p.stdout.decode("utf-8", "replace")[-1000:]]
        # $CFLAGS_DIDEROT_EXTRA: the sanitizers of an ASan build's runtime
        cmd = ("cc -std=c11 -Wall -Wextra -Werror $CFLAGS_DIDEROT_EXTRA -c client.c && "
               "%s $CFLAGS_DIDEROT_EXTRA client.o lib.o -lteem -lm -o client && ./client"
               % ("${CXX:-c++}" if cuda else "cc"))
        p = subprocess.run(["sh", "-c", cmd], cwd=work, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT)
        out = p.stdout.decode("utf-8", "replace")
        want = [
            "runs 5 7\n",                        # stopped at step 5, then continued
            "calls 12\n",                        # one per step: interval 0
            "last step 12 active 0 stable 12\n",
            "world active 0 stable 12\n",
            "throttled calls 1 last step 10 stable 10\n",  # only the final call
        ]
        problems = [] if p.returncode == 0 else ["client exit status %d" % p.returncode]
        problems += ["client output lacks %r" % w for w in want if w not in out]
        problems += [l for l in out.splitlines() if "not monotone" in l or "do not add" in l]
        return ("fail", problems + ["  | " + l for l in out.splitlines()]) if problems \
            else ("pass", [])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def collect(srcdir, builddir, diderotc):
    del srcdir, builddir
    return [
        # with a step limit that is never reached: the estimate takes the
        # smaller of the limit's and the stabilization rate's
        ("driver/progress/tty", lambda: _tty(diderotc, ["-l", "1000"], True)),
        ("driver/progress/quiet", lambda: _tty(diderotc, ["-q"], False)),
        # print statements writing to the same terminal turn the line off;
        # printing into a file (-print) does not
        ("driver/progress/print_on_terminal", lambda: _tty(diderotc, ["-talk", "true"], None,
                                                           stdout_too=True)),
        ("driver/progress/print_to_file", lambda: _tty(
            diderotc, ["-talk", "true", "-print", "p.txt"],
            True, stdout_too=True)),
        ("driver/progress/verbose_no_line", lambda: _verbose(diderotc)),
        ("driver/progress/pipe", lambda: _piped(diderotc)),
        ("driver/progress/short_run", lambda: _short(diderotc)),
        ("driver/progress/library_callback", lambda: _library(diderotc)),
        ("driver/progress/library_callback_cuda", lambda: _library(diderotc, cuda=True)),
    ]


def _verbose(diderotc):
    """-v prints a line per step instead (no redrawn line)."""
    exe, err = _build(diderotc)
    if err:
        return "fail", [err]
    out = os.path.join(_Built.work, "out-v.nrrd")
    status, data, _, _ = _run_pty([exe, "-v", "-n", "3", "-work", "10", "-o", out], _Built.work)
    text = data.decode("utf-8", "replace")
    if status != 0 or "step 3: 0 active, 3 stable" not in text or "slow: step" in text:
        return "fail", ["exit status %d, stderr %r" % (status, text[-300:])]
    return "pass", []

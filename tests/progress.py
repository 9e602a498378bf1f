"""progress.py -- progress lines for the test runners (tests/run.py and
tests/e2e/run_e2e.py): a line when a group of tests is complete, a count
every few seconds in between, and the skipped tests grouped by reason at
the end. Python 3 standard library only."""

import time


def timed_call(name, fn, failed, times=None):
    """fn() -> an outcome; a harness exception becomes failed(name, [why])
    (it must not hide the other results). With times (a file), a line
    "NAME<TAB>seconds" is appended: what makes a suite slow."""
    t0 = time.monotonic()
    try:
        o = fn()
    except Exception as e:  # noqa: BLE001
        o = failed(name, ["harness error: %r" % e])
    if times:
        times.write("%s\t%.2f\n" % (name, time.monotonic() - t0))
    return o


class Progress:
    """A line when a group of tests (the first part of their names: unit,
    accept, compile, run, cuda, ...) is complete, a count every few seconds
    in between, and at the end the skipped tests grouped by reason."""

    EVERY = 15.0  # seconds between count lines

    def __init__(self, tests, quiet=False):
        self.time = time.monotonic
        self.start = self.last = self.time()
        self.total = len(tests)
        self.left = {}
        for test in tests:  # (name, ...) tuples
            g = self.group(test[0])
            self.left[g] = self.left.get(g, 0) + 1
        self.groups = {g: {"pass": 0, "fail": 0, "skip": 0} for g in self.left}
        self.finished = 0
        self.quiet = quiet
        self.skips = {}

    @staticmethod
    def group(name):
        parts = name.split("/")
        # cuda/run, cuda/gpu, cuda/nvcc, cuda/lib: groups of their own
        return "/".join(parts[:2]) if parts[0] == "cuda" and len(parts) > 2 else parts[0]

    def done(self, o):
        g = self.group(o.name)
        self.finished += 1
        self.groups[g][o.status] += 1
        if o.status == "skip":
            why = o.details[0] if o.details else "no reason given"
            self.skips.setdefault(why, []).append(o.name)
        self.left[g] -= 1
        now = self.time()
        if self.quiet:
            return
        if self.left[g] == 0:
            c = self.groups[g]
            print("-- %s: %d passed, %d failed, %d skipped (%d/%d tests, %s)"
                  % (g, c["pass"], c["fail"], c["skip"], self.finished, self.total,
                     self.clock(now)))
            self.last = now
        elif now - self.last >= self.EVERY:
            print("-- %d/%d tests done (%s)" % (self.finished, self.total, self.clock(now)))
            self.last = now

    def clock(self, now):
        s = int(now - self.start)
        return "%dm%02ds" % (s // 60, s % 60)

    def skip_summary(self):
        if not self.skips:
            return
        print("skipped, by reason:")
        for why, names in sorted(self.skips.items(), key=lambda kv: -len(kv[1])):
            shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            print("  %3d  %s  (%s)" % (len(names), why[:160], shown))

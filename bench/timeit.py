"""timeit.py -- best-of-N timing of commands, for the benchmark scripts.

usage: python3 timeit.py RUNS LABEL -- CMD... [--- LABEL -- CMD...]...

Runs the commands round-robin RUNS times (so that load from other jobs
spreads over all of them) and prints one Markdown table row per command:
label, best and median wall time, best CPU time (user + system of the
process and its threads), and the best CPU time of the run that
diderotc-generated executables print with -t (`cpu=`: all threads; `usr=`
is the run's wall time, and was clock() before -t printed `cpu=`), or "—". Environment settings may precede a command as NAME=VALUE words.
"""

import os
import re
import resource
import subprocess
import sys
import time


def parse(argv):
    runs = int(argv[0])
    cmds, rest = [], argv[1:]
    while rest:
        label = rest[0]
        if len(rest) < 3 or rest[1] != "--":
            sys.exit("timeit.py: expected LABEL -- CMD")
        rest = rest[2:]
        end = rest.index("---") if "---" in rest else len(rest)
        cmd, rest = rest[:end], rest[end + 1:]
        env = {}
        while cmd and re.match(r"^[A-Z_][A-Z0-9_]*=", cmd[0]):
            k, v = cmd.pop(0).split("=", 1)
            env[k] = v
        cmds.append((label, env, cmd))
    return runs, cmds


def run(env, cmd):
    e = dict(os.environ)
    e.update(env)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=e, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout, p.stderr[-2000:]))
    m = re.search(r"cpu=([0-9.]+)", p.stdout) or re.search(r"usr=([0-9.]+)", p.stdout)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, float(m.group(1)) if m else None


def main():
    runs, cmds = parse(sys.argv[1:])
    res = {label: [] for label, _, _ in cmds}
    for _ in range(runs):
        for label, env, cmd in cmds:
            res[label].append(run(env, cmd))
    print("| command | best wall s | median wall s | best CPU s | best -t cpu s |")
    print("|---|---|---|---|---|")
    for label, _, _ in cmds:
        r = res[label]
        walls = sorted(x[0] for x in r)
        usr = [x[2] for x in r if x[2] is not None]
        print("| %s | %.3f | %.3f | %.3f | %s |" % (label, walls[0], walls[len(walls) // 2],
                                                   min(x[1] for x in r),
                                                   "%.3f" % min(usr) if usr else "—"))


main()

"""The Python package's tests as a group of tests/run.py: python/NAME runs
pytest on python/tests/test_NAME.py.

collect() returns (name, fn) pairs; fn() returns (status, details), as
tests/install/install.py's do. The compiler under test is given to the
tests as $DIDEROTC; one cache of compiled programs, new at collection, serves
every file of the run (BUILD/tests/python-run/PID/cache: a run beside it
in the same build folder has its own; the folders of runs whose process
has ended are removed). The Python used is
the one running the suite when it has numpy, cffi and pytest, else
/usr/bin/python3; without one, each test is skipped with the reason. A test
file with a line `# needs: MOD ...` (test_vtk: vtkmodules, which Debian's
python3-paraview installs for /usr/bin/python3 only) runs under the first of
those that can also import MOD.
"""

import os
import re
import shutil
import subprocess
import sys

TIMEOUT = 1800


def _needs(path):
    with open(path, encoding="utf-8") as f:
        m = re.search(r"^# needs: ([\w. ]+?)(?:  |$)", f.read(), re.M)
    return tuple(m.group(1).split()) if m else ()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _python(needs=()):
    mods = ", ".join(("numpy", "cffi", "pytest") + tuple(needs))
    for py in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import " + mods], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def collect(srcdir, builddir, diderotc):
    here = os.path.join(srcdir, "python", "tests")
    files = sorted(f for f in os.listdir(here) if f.startswith("test_") and f.endswith(".py"))
    runs = os.path.abspath(os.path.join(builddir, "tests", "python-run"))
    os.makedirs(runs, exist_ok=True)
    for d in os.listdir(runs):
        if d.isdigit() and int(d) != os.getpid() and not _alive(int(d)):
            shutil.rmtree(os.path.join(runs, d), ignore_errors=True)
    mine = os.path.join(runs, str(os.getpid()))
    shutil.rmtree(mine, ignore_errors=True)
    cache = os.path.join(mine, "cache")
    state = {}

    def python(needs):
        if needs not in state:
            state[needs] = _python(needs)
        return state[needs]

    def make(f):
        def fn():
            needs = _needs(os.path.join(here, f))
            py = python(needs)
            if not py:
                pkgs = {"vtkmodules": "python3-paraview"}
                return ("skip", ["no python3 with numpy, cffi and pytest%s (Debian packages "
                                 "python3-numpy, python3-cffi, python3-pytest%s)"
                                 % ("".join(", " + m for m in needs),
                                    "".join(", " + pkgs.get(m, "python3-" + m) for m in needs))])
            env = dict(os.environ, DIDEROTC=diderotc or os.path.join(builddir, "diderotc"),
                       DIDEROT_TEST_CACHE=cache)
            try:
                # a temporary folder of its own: pytest's shared default
                # (/tmp/pytest-of-USER) keeps only the 3 newest sessions and
                # deletes older ones that may still be running beside it
                tmp = os.path.join(mine, f[:-len(".py")])
                os.makedirs(mine, exist_ok=True)
                p = subprocess.run([py, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                                    "--basetemp", tmp, os.path.join(here, f)], cwd=here, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                return ("fail", ["pytest %s: timed out after %d s" % (f, TIMEOUT)])
            out = p.stdout.decode("utf-8", errors="replace")
            lines = out.rstrip().splitlines()
            summary = lines[-1] if lines else ""
            if p.returncode == 0:
                if re.search(r"\d+ passed", summary):
                    return ("pass", [summary.strip("= ")])
                return ("skip", [l for l in lines if "SKIP" in l][:3] or [summary])
            return ("fail", ["pytest %s: %s" % (f, summary.strip("= "))]
                    + [l for l in lines if l.startswith(("FAILED", "ERROR", "E  "))][:40])
        return fn

    return [("python/" + f[len("test_"):-len(".py")], make(f)) for f in files]

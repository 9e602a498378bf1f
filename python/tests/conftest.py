"""Shared set-up of the Python package's tests (pytest python/tests).

The package under test is python/diderot of this tree; the compiler is
$DIDEROTC (tests/run.py sets it to BUILD/diderotc), else the package's own
search (build/diderotc, PATH). Compiled programs go to one cache per test
session ($DIDEROT_TEST_CACHE, or a pytest temporary directory), so each
program is compiled once. Expected values come from independent oracles:
the executables diderotc builds (--exec) and their NRRD files read with
tests/oracle/nrrd.py, or closed forms; never from the package itself.
"""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
TOP = os.path.dirname(PYDIR)
sys.path.insert(0, PYDIR)
sys.path.insert(0, os.path.join(TOP, "tests", "oracle"))

np = pytest.importorskip("numpy", reason="NumPy is not installed (Debian package python3-numpy)")
pytest.importorskip("cffi", reason="cffi is not installed (Debian package python3-cffi)")

import diderot  # noqa: E402

EXAMPLES = os.path.join(TOP, "examples")
DATA = os.path.join(EXAMPLES, "data")


@pytest.fixture(scope="session")
def diderotc():
    try:
        return diderot.find_diderotc()
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    d = os.environ.get("DIDEROT_TEST_CACHE")
    if d:
        os.makedirs(d, exist_ok=True)
        return d
    return str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def compile(diderotc, cache):
    """diderot.compile with this session's cache and compiler."""
    def comp(src, **kw):
        kw.setdefault("cache_dir", cache)
        kw.setdefault("diderotc", diderotc)
        return diderot.compile(src, **kw)
    return comp


@pytest.fixture(scope="session")
def exe(diderotc, tmp_path_factory):
    """exe(source path, *flags) -> path of the executable diderotc --exec
    builds (once per session and flags)."""
    built = {}
    d = tmp_path_factory.mktemp("exe")

    def build(src, *flags):
        key = (src,) + flags
        if key not in built:
            out = os.path.join(str(d), "p%d" % len(built))
            p = subprocess.run([diderotc, "--exec", *flags, src, "-o", out],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            assert p.returncode == 0, p.stdout.decode()
            built[key] = out
        return built[key]
    return build


def run_exe(path, args, cwd):
    p = subprocess.run([path, "-q", *args], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout.decode()
    return p.stdout.decode()


def write(tmp_path, name, text):
    p = os.path.join(str(tmp_path), name)
    with open(p, "w") as f:
        f.write(text)
    return p

"""pip install ./python (issue 33 §4): in a fresh virtual environment
(with the system's numpy and cffi), offline (--no-index), the package
installs with its own build backend, and from outside the source tree it
finds diderotc beside it (the environment's bin/) or on PATH, compiles a
program and runs it (sum_i i(i+1)/2 over i < 10 = 165, a closed form)."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import PYDIR

PROG = """#version 2.0
input int n = 10;
strand S (int i) { output real t = real(i * (i + 1)) / 2.0; update { stabilize; } }
create_collection { S(i) | i in 0..n-1 };
"""
USE = """import os, sys, diderot
# the installed copy, not the source tree's python/diderot
assert diderot.__file__.startswith(sys.prefix + os.sep), diderot.__file__
print("COMPILER", diderot.find_diderotc())
out = diderot.compile(open("sum.diderot").read()).run()
print("SUM", float(out.t.sum()))
"""


def _run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL, timeout=600, **kw)


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    d = tmp_path_factory.mktemp("venv")
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    p = _run([py, "-m", "venv", "--system-site-packages", str(d / "env")])
    if p.returncode != 0:
        pytest.skip("python3 -m venv does not work here (Debian package python3-venv): "
                    + p.stdout.decode(errors="replace")[-200:])
    env = dict(os.environ, PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    p = _run([str(d / "env" / "bin" / "python"), "-m", "pip", "install", "--no-index", PYDIR],
             env=env, cwd=str(d))
    assert p.returncode == 0, p.stdout.decode(errors="replace")[-3000:]
    return d / "env"


def _use(venv, tmp_path, env):
    (tmp_path / "sum.diderot").write_text(PROG)
    (tmp_path / "use.py").write_text(USE)
    for k in ("PYTHONPATH", "DIDEROTC"):
        env.pop(k, None)
    p = _run([str(venv / "bin" / "python"), "use.py"], cwd=str(tmp_path), env=env)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0, out[-3000:]
    assert "SUM 165.0" in out, out
    return out


def test_compiler_beside_package(venv, diderotc, cache, tmp_path):
    link = venv / "bin" / "diderotc"
    if not link.exists():
        os.symlink(diderotc, str(link))
    try:
        out = _use(venv, tmp_path, dict(os.environ, DIDEROT_CACHE_DIR=cache,
                                        PATH="/usr/bin:/bin"))
        assert "COMPILER %s" % link in out, out
    finally:
        os.remove(str(link))


def test_compiler_on_path(venv, diderotc, cache, tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(diderotc, str(bindir / "diderotc"))
    out = _use(venv, tmp_path, dict(os.environ, DIDEROT_CACHE_DIR=cache,
                                    PATH="%s:/usr/bin:/bin" % bindir))
    assert "COMPILER %s" % (bindir / "diderotc") in out, out
    assert shutil.which("diderotc", path=str(bindir))

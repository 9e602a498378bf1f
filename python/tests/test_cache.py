"""The compile cache: a second compile of the same program does not run
diderotc (in this process or another); a change of source, option, loaded
file or compiler compiles again."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import diderot
from conftest import DATA, PYDIR, write

SRC = """#version 2.0
input real x = 1.0;
strand S (int i) { output real y = x + real(i); update { stabilize; } }
create_array { S(i) | i in 0..2 };
"""


@pytest.fixture
def counting(diderotc, tmp_path):
    """A diderotc wrapper that counts its runs in a log file."""
    log = tmp_path / "runs.log"
    wrapper = tmp_path / "diderotc"
    wrapper.write_text('#!/bin/sh\necho run >> "%s"\nexec "%s" "$@"\n' % (log, diderotc))
    wrapper.chmod(0o755)

    def runs():
        return len(log.read_text().splitlines()) if log.exists() else 0
    return str(wrapper), runs


def test_second_compile_uses_the_cache(counting, tmp_path):
    dc, runs = counting
    cache = str(tmp_path / "cache")
    src = write(tmp_path, "p.diderot", SRC)
    p1 = diderot.compile(src, cache_dir=cache, diderotc=dc)
    assert runs() == 1 and not p1.from_cache
    p2 = diderot.compile(src, cache_dir=cache, diderotc=dc)
    assert runs() == 1 and p2.from_cache and p2.directory == p1.directory
    np.testing.assert_array_equal(p2.run(x=2.0).y, [2, 3, 4])
    # the same text given as source, from another process
    code = ("import diderot; p = diderot.compile(%r, cache_dir=%r, diderotc=%r); "
            "print(p.from_cache, list(p.run().y))" % (SRC, cache, dc))
    env = dict(os.environ, PYTHONPATH=PYDIR)
    out = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=env,
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    assert out.split()[0] == "True" and runs() == 1
    # what the key covers: options, source text, the compiler
    diderot.compile(src, cache_dir=cache, diderotc=dc, double=True)
    assert runs() == 2
    diderot.compile(SRC.replace("1.0", "2.0"), cache_dir=cache, diderotc=dc)
    assert runs() == 3
    assert diderot.compile(src, cache_dir=cache, diderotc=dc, force=True).from_cache is False
    assert runs() == 4
    os.utime(dc, ns=(1, 1))  # another compiler (as after a rebuild)
    diderot.compile(src, cache_dir=cache, diderotc=dc)
    assert runs() == 5


def test_loaded_files_are_part_of_the_key(counting, tmp_path):
    """A proxy image fixes the sample type: a changed file compiles again."""
    dc, runs = counting
    cache = str(tmp_path / "cache")
    shutil.copy(os.path.join(DATA, "ddro-100.nrrd"), str(tmp_path / "img.nrrd"))
    src = write(tmp_path, "p.diderot", """#version 2.0
input image(2)[] img = load_image("img.nrrd");
field#1(2)[] F = clamp(img) ⊛ ctmr;
strand S (int i) { output real y = F([0.0, 0.0]); update { stabilize; } }
create_array { S(i) | i in 0..0 };
""")
    a = diderot.compile(src, cache_dir=cache, diderotc=dc).run().y
    diderot.compile(src, cache_dir=cache, diderotc=dc)
    assert runs() == 1
    shutil.copy(os.path.join(DATA, "sscand-crop.nrrd"), str(tmp_path / "img.nrrd"))
    b = diderot.compile(src, cache_dir=cache, diderotc=dc).run().y
    assert runs() == 2 and a[0] != b[0]


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("DIDEROT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diderot.default_cache_dir() == str(tmp_path / "xdg" / "diderot")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert diderot.default_cache_dir() == str(tmp_path / "home" / ".cache" / "diderot")
    monkeypatch.setenv("DIDEROT_CACHE_DIR", str(tmp_path / "mine"))
    assert diderot.default_cache_dir() == str(tmp_path / "mine")


def test_bad_options(compile):
    with pytest.raises(TypeError, match="unexpected option 'doubel'"):
        compile(SRC, doubel=True)
    with pytest.raises(ValueError, match="target must be 'seq' or 'omp'"):
        compile(SRC, target="gpu")

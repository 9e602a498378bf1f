"""compile(..., tune=, tune_args=, tune_steps=): diderotc --tune for the
package's libraries. The tuner runs the program on tune_args (files
relative to the current directory, made absolute by the package, since
diderotc runs in a folder of the cache), caches the winner in diderotc's
own cache ($XDG_CACHE_HOME/diderot/tune) and builds the library with it;
a second build of the same program and inputs tunes nothing. The results
are the untuned program's (closed form)."""

import os

import numpy as np
import pytest

import diderot
from conftest import write

SRC = """#version 2.0
input image(2)[] img ("a 4x4 image: only its sizes matter here");
input int N = 100;
strand S (int i) {
  output real v = 0.0;
  int k = 0;
  update { k += 1; v += real(i); if (k == 3) { stabilize; } }
}
create_collection { S(i) | i in 0..N-1 };
"""

IMG = ("NRRD0004\ntype: float\ndimension: 2\nsizes: 4 4\nencoding: ascii\n\n%s\n"
       % " ".join(str(i) for i in range(16)))


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A current directory with img.nrrd, and diderotc's tune cache of its own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    write(tmp_path, "img.nrrd", IMG)
    return tmp_path


def test_tune_then_cache_hit(here, diderotc):
    src = write(here, "p.diderot", SRC)
    cache = str(here / "cache")
    kw = dict(target="omp", cache_dir=cache, diderotc=diderotc, tune="quick",
              tune_args=["-N", "2000", "-img", "img.nrrd"], tune_steps=3)
    p = diderot.compile(src, **kw)
    assert "diderotc: tuned in " in p.messages, p.messages
    tuned = os.listdir(str(here / "xdg" / "diderot" / "tune"))
    assert len(tuned) == 1, tuned
    entry = (here / "xdg" / "diderot" / "tune" / tuned[0]).read_text()
    # the image was found from the current directory: its sizes are the key's
    assert "-img nrrd(float;4 4)" in entry, entry
    assert "runs of the first 3 super-steps" in entry, entry
    out = p.run(N=7, img=str(here / "img.nrrd"), threads=2)
    np.testing.assert_array_equal(out.v, [3.0 * i for i in range(7)])
    # the same program and inputs again (not from the package's cache): no tuning
    p2 = diderot.compile(src, force=True, **kw)
    assert "cache hit" in p2.messages and "tuned in" not in p2.messages, p2.messages
    np.testing.assert_array_equal(p2.run(N=7, img=str(here / "img.nrrd")).v,
                                  [3.0 * i for i in range(7)])


@pytest.mark.parametrize("kw, what", [
    (dict(tune="fast", tune_args=""), "tune must be 'quick' or 'full'"),
    (dict(tune="quick"), "tune= needs tune_args="),
    (dict(tune="quick", tune_args="-N 3", tune_steps=0), "tune_steps must be"),
    (dict(tune_args="-N 3", tune_steps=4), "tune_steps= is for tune="),
])
def test_tune_usage_errors(here, diderotc, kw, what):
    src = write(here, "p.diderot", SRC)
    with pytest.raises(ValueError, match=what):
        diderot.compile(src, cache_dir=str(here / "cache"), diderotc=diderotc, **kw)


def test_tune_args_type(here, diderotc):
    src = write(here, "p.diderot", SRC)
    with pytest.raises(TypeError, match="tune_args must be a string or a list"):
        diderot.compile(src, cache_dir=str(here / "cache"), diderotc=diderotc, tune="quick",
                        tune_args={"N": 3})

"""The README's Python session (the ```python session block) runs as
shown, and its NRRD output equals the executable's on the same volume
(written for the executable by tests/oracle/nrrd.py)."""

import importlib.util
import os
import sys


from conftest import EXAMPLES, PYDIR, TOP, run_exe

sys.path.insert(0, os.path.join(PYDIR, "examples"))
import readme_session  # noqa: E402

SAVE_VOLUME = '''
import nrrd as oracle
d = 2 / (n - 1)
oracle.write("vol.nrrd", oracle.Nrrd("float", list(reversed(vol.shape)), vol.ravel().tolist(),
             kinds=["space"] * 3, space_dim=3, space_directions=[(d, 0, 0), (0, d, 0), (0, 0, d)],
             space_origin=(-1, -1, -1)))
'''


def test_readme_session(exe, cache, diderotc, tmp_path):
    code = readme_session.session_code()
    has_mpl = importlib.util.find_spec("matplotlib") is not None
    if not has_mpl:  # matplotlib is optional: the session up to the plot
        code = code[:code.index("import matplotlib")]
    env = dict(os.environ, DIDEROTC=diderotc, DIDEROT_CACHE_DIR=cache,
               PYTHONPATH=os.path.join(TOP, "tests", "oracle"))
    p = readme_session.run_session(str(tmp_path), code + SAVE_VOLUME, env)
    out = p.stdout.decode()
    assert p.returncode == 0, out
    assert "Outputs(mip: float32 (180, 240); 361 steps)" in out
    if has_mpl:
        assert os.path.getsize(str(tmp_path / "mip-numpy.png")) > 1000
    run_exe(exe(os.path.join(EXAMPLES, "mip", "mip.diderot")),
            ["-vol", "vol.nrrd", "-imgResU", "240", "-imgResV", "180", "-o", "exe.nrrd"],
            str(tmp_path))
    with open(str(tmp_path / "exe.nrrd"), "rb") as a, open(str(tmp_path / "mip-numpy.nrrd"), "rb") as b:
        assert a.read() == b.read()

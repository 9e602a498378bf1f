"""The example notebook python/examples/widgets.ipynb (issue 33 §3, §5),
executed headless by nbclient on a Python 3 kernel: every cell runs, the
panel is displayed as a widget, and the picture it shows after the
camFOV slider moved is the executable's output on the same inputs mapped
to grey (0..1 black..white, within 2 grey levels).

With DIDEROT_PICTURES=DIR, that picture (the notebook's image/png output,
decoded from the executed notebook) is written to DIR/widgets-mip.png: the
README's picture, python/examples/widgets-mip.png. The panel's sliders are
drawn by ipywidgets' JavaScript in a browser, which a headless kernel run
does not have, so only the image the panel shows can be saved."""
# needs: nbclient nbformat ipykernel ipywidgets matplotlib  (group.py picks a python3 that has them)

import base64
import io
import os

import numpy as np
import pytest

from conftest import EXAMPLES, PYDIR, run_exe

nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (python3-nbformat)")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (python3-nbclient)")
pytest.importorskip("ipykernel", reason="ipykernel is not installed (python3-ipykernel)")
pytest.importorskip("ipywidgets", reason="ipywidgets is not installed (python3-ipywidgets)")
mimage = pytest.importorskip("matplotlib.image", reason="matplotlib is not installed (python3-matplotlib)")

import nrrd as oracle  # noqa: E402

NOTEBOOK = os.path.join(PYDIR, "examples", "widgets.ipynb")
H, W = 96, 128  # the notebook's imgResV, imgResU


def test_widgets_notebook(exe, cache, diderotc, tmp_path, monkeypatch):
    monkeypatch.setenv("DIDEROTC", diderotc)
    monkeypatch.setenv("DIDEROT_CACHE_DIR", cache)
    monkeypatch.setenv("PYTHONPATH", PYDIR)  # this tree's package, not an installed one
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}})
    # Debian 12's nbclient (0.7) reads widget messages of protocol 2 (a
    # 'state' field), its ipywidgets (6) sends protocol 1: without this the
    # client stops at the first widget (KeyError: 'state'); the widgets'
    # outputs (the display of the panel) are kept all the same
    handler = client.on_comm_open_jupyter_widget
    client.comm_open_handlers["jupyter.widget"] = (
        lambda msg: handler(msg) if "state" in msg["content"]["data"] else None)
    client.execute()  # raises CellExecutionError naming the cell that failed
    code = [c for c in nb.cells if c.cell_type == "code"]
    # the panel: displayed as a widget view
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
               for o in code[1].outputs), code[1].outputs
    last = code[2].outputs
    text = "".join(o.get("text", "") for o in last if o.output_type == "stream")
    assert "Outputs(mip: float32 (%d, %d)" % (H, W) in text and "| progress 1.0" in text, text
    pngs = [o["data"]["image/png"] for o in last if "image/png" in o.get("data", {})]
    assert len(pngs) == 1
    got = mimage.imread(io.BytesIO(base64.b64decode(pngs[0])), format="png")
    assert got.shape[:2] == (H, W)
    src = os.path.join(EXAMPLES, "mip", "mip.diderot")
    out = str(tmp_path / "exe.nrrd")
    run_exe(exe(src), ["-camFOV", "15", "-imgResU", str(W), "-imgResV", str(H), "-o", out],
            os.path.dirname(src))
    want = np.asarray(oracle.read(out).data, dtype=np.float64).reshape(H, W)
    assert want.max() - want.min() > 0.3  # the blobs are in view
    grey = np.clip(want, 0, 1) * 255
    diff = np.abs(got[..., 0].astype(np.float64) * 255 - grey)
    assert diff.max() <= 2, diff.max()
    assert np.array_equal(got[..., 0], got[..., 1]) and np.array_equal(got[..., 1], got[..., 2])
    shot = os.environ.get("DIDEROT_PICTURES")
    if shot:  # the README's picture: what the panel showed, as the notebook holds it
        tmp = os.path.join(shot, ".widgets-mip.png.tmp")
        with open(tmp, "wb") as f:
            f.write(base64.b64decode(pngs[0]))
        os.replace(tmp, os.path.join(shot, "widgets-mip.png"))

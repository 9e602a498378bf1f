"""The ParaView plugin (issue 33 §2, §5): pvbatch loads
plugins/paraview/DiderotPlugin.py and runs its filters (pv_filters.py) on a
volume made by VTK (an oblique vtkRTAnalyticSource) and on a NRRD read by
ParaView's reader; the results must equal the executables' output on the
same inputs (values), the rendered picture the executable's values mapped
to grey by NumPy (within 3 grey levels), and compiler errors must reach the
output window with their source position.

ParaView needs an X display on Debian 12 (its VTK is built without OSMesa
or EGL): pvbatch --force-offscreen-rendering is tried first, then pvbatch
on a private Xvfb started by the tests; if neither can render, the tests
are skipped saying so.
"""
# needs: vtkmodules  (python/tests/group.py picks a python3 that has it)

import os
import random
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import EXAMPLES, TOP, run_exe
from xvfb import xvfb as _xvfb

pytest.importorskip("vtkmodules", reason="VTK's Python modules are not installed "
                    "(Debian package python3-paraview)")
from vtkmodules.util import numpy_support as ns  # noqa: E402
from vtkmodules.vtkImagingCore import vtkRTAnalyticSource  # noqa: E402
from vtkmodules.vtkIOImage import vtkPNGReader  # noqa: E402
from vtkmodules.vtkIOXML import (vtkXMLImageDataReader, vtkXMLImageDataWriter,  # noqa: E402
                                 vtkXMLPolyDataReader)
from vtkmodules.vtkCommonDataModel import vtkImageData  # noqa: E402

import nrrd as oracle  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = """from paraview.simple import *
v = GetActiveViewOrCreate('RenderView'); v.ViewSize = [64, 48]
Show(Sphere(), v); Render(v)
SaveScreenshot(%r, v, ImageResolution=[64, 48])
print("PROBE-OK")
"""


def _tail(p):
    return " ".join(p.stdout.decode(errors="replace").strip().splitlines()[-2:])[-300:]


class PV:
    """How to run pvbatch here: the command and its environment."""

    def __init__(self, cmd, env, restart=None):
        self.cmd, self.env, self.restart = cmd, env, restart

    def run(self, args, env=None, timeout=900, cwd=None, unset=()):
        """pvbatch ARGS; where it could not reach the X server (another X
        server starting beside ours can take its socket away), again on a
        new server, up to 3 times."""
        for attempt in range(3):
            e = {k: v for k, v in self.env.items() if k not in unset}
            e.update(env or {})
            p = subprocess.run(self.cmd + args, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd)
            if b"bad X server connection" not in p.stdout or self.restart is None or attempt == 2:
                return p
            self.env = self.restart()
        return p


@pytest.fixture(scope="module")
def pvbatch(tmp_path_factory):
    """A PV that renders offscreen here, or a skip naming why not."""
    exe = shutil.which("pvbatch")
    if not exe:
        pytest.skip("pvbatch not found (Debian package paraview)")
    d = tmp_path_factory.mktemp("pvprobe")
    png = str(d / "probe.png")
    with open(str(d / "probe.py"), "w") as f:
        f.write(PROBE % png)
    why = []
    xvfb = None
    tries = [lambda: PV([exe, "--force-offscreen-rendering"], os.environ)]

    def with_xvfb():
        nonlocal xvfb
        if xvfb is not None:  # the try before failed: a new server
            xvfb.terminate()
            xvfb.wait()
            time.sleep(1 + random.random() * 2)
        xvfb, disp = _xvfb()
        if xvfb is None:
            why.append(disp)
            return None
        return PV([exe], dict(os.environ, DISPLAY=disp), restart=restart)

    def restart():
        nonlocal xvfb
        xvfb.terminate()
        xvfb.wait()
        time.sleep(1 + random.random() * 2)
        xvfb, disp = _xvfb()
        assert xvfb is not None, disp
        return dict(os.environ, DISPLAY=disp)
    # X servers starting at the same moment (other tests, other users) can
    # leave one unreachable ("bad X server connection"): up to 3 of them
    tries += [with_xvfb] * 3
    try:
        for make in tries:
            pv = make()
            if pv is None:
                continue
            try:
                p = pv.run([str(d / "probe.py")], timeout=300)
            except subprocess.TimeoutExpired:
                why.append("%s: timed out" % " ".join(pv.cmd))
                continue
            if "PROBE-OK" in p.stdout.decode(errors="replace") and os.path.exists(png):
                break
            why.append("%s%s: status %d (%s)" % (" ".join(pv.cmd), " on Xvfb" if xvfb else "",
                                                p.returncode, _tail(p)))
        else:
            pytest.skip("ParaView cannot start offscreen on this machine: " + "; ".join(why))
        yield pv
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait()


def wave_volume(d):
    """VTK's wavelet source on 21^3 points, scaled to [0, 1], given spacing
    0.08, an oblique direction matrix and the origin that centres it: saved
    as wave.vti (by VTK) and wave.nrrd (written independently from VTK's
    geometry with tests/oracle/nrrd.py)."""
    src = vtkRTAnalyticSource()
    src.SetWholeExtent(-10, 10, -10, 10, -10, 10)
    src.Update()
    v = ns.vtk_to_numpy(src.GetOutput().GetPointData().GetScalars()).astype(np.float32)
    v = (v - v.min()) / (v.max() - v.min())
    a, b = 0.5, 0.3
    Rz = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
    D = Rz @ Rx
    sp = 0.08
    img = vtkImageData()
    img.SetDimensions(21, 21, 21)
    img.SetSpacing(sp, sp, sp)
    origin = -D @ np.array([10 * sp] * 3)
    img.SetOrigin(*origin)
    img.SetDirectionMatrix(*[float(x) for x in D.ravel()])
    arr = ns.numpy_to_vtk(v, deep=True)
    arr.SetName("RTData")
    img.GetPointData().SetScalars(arr)
    w = vtkXMLImageDataWriter()
    w.SetFileName(os.path.join(d, "wave.vti"))
    w.SetInputData(img)
    w.SetDataModeToBinary()  # not appended: see save() in pv_filters.py
    assert w.Write()
    n = oracle.Nrrd("float", [21, 21, 21], [float(x) for x in v], kinds=["space"] * 3,
                    space_dim=3, space_directions=[tuple(D[:, c] * sp) for c in range(3)],
                    space_origin=tuple(origin))
    oracle.write(os.path.join(d, "wave.nrrd"), n)


def read_vti(path, name):
    r = vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    o = r.GetOutput()
    return o.GetDimensions(), ns.vtk_to_numpy(o.GetPointData().GetArray(name))


W, H, K = 48, 48, 4  # a square view: ParaView's screenshots of non-square views were distorted
LO, HI = 0.0, 1.0


@pytest.fixture(scope="module")
def pv(pvbatch, tmp_path_factory):
    d = str(tmp_path_factory.mktemp("pv"))
    wave_volume(d)
    p = pvbatch.run([os.path.join(HERE, "pv_filters.py"), d, os.path.join(d, "wave.vti"),
                     os.path.join(EXAMPLES, "data", "blobs.nrrd"), str(LO), str(HI)])
    log = p.stdout.decode(errors="replace")
    assert "DONE" in log, log[-3000:]  # pvbatch's word (see pvbatch())
    return d, log


def mip_exe(exe, d, args, name):
    src = os.path.join(EXAMPLES, "mip", "mip.diderot")
    out = os.path.join(d, name)
    run_exe(exe(src), args + ["-imgResU", str(W), "-imgResV", str(H), "-o", out],
            os.path.dirname(src))
    return np.asarray(oracle.read(out).data, dtype=np.float64)


def test_mip_on_vtk_volume(pv, exe):
    d, _ = pv
    want = mip_exe(exe, d, ["-vol", os.path.join(d, "wave.nrrd"), "-camEye", "6", "4", "3",
                            "-rayStep", "0.02"], "exe-wave.nrrd")
    dims, got = read_vti(os.path.join(d, "mip-wave.vti"), "mip")
    assert dims == (W, H, 1)
    assert want.max() - want.min() > 0.2  # the volume is in view
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_mip_on_nrrd_and_generic_filter(pv, exe):
    d, _ = pv
    want = mip_exe(exe, d, [], "exe-blobs.nrrd")
    np.testing.assert_allclose(read_vti(os.path.join(d, "mip-blobs.vti"), "mip")[1], want,
                               rtol=1e-6, atol=1e-7)
    want15 = mip_exe(exe, d, ["-camFOV", "15"], "exe-blobs15.nrrd")
    np.testing.assert_allclose(read_vti(os.path.join(d, "generic-blobs.vti"), "mip")[1], want15,
                               rtol=1e-6, atol=1e-7)
    assert np.abs(want15 - want).max() > 0.05  # the Inputs text changed the run


def test_particles(pv, exe):
    d, _ = pv
    src = os.path.join(EXAMPLES, "paraview", "isoparticles.diderot")
    run_exe(exe(src), ["-res", "16", "-o-pos", os.path.join(d, "pos.nrrd"),
                       "-o-normal", os.path.join(d, "normal.nrrd")], os.path.dirname(src))
    want = np.asarray(oracle.read(os.path.join(d, "pos.nrrd")).data, dtype=float).reshape(-1, 3)
    r = vtkXMLPolyDataReader()
    r.SetFileName(os.path.join(d, "iso-blobs.vtp"))
    r.Update()
    got = ns.vtk_to_numpy(r.GetOutput().GetPoints().GetData()).astype(float)
    assert len(want) > 100 and got.shape == want.shape
    key = lambda a: a[np.lexsort(a.T[::-1])]
    np.testing.assert_allclose(key(got), key(want), rtol=1e-6, atol=1e-7)
    assert r.GetOutput().GetPointData().GetArray("normal").GetNumberOfComponents() == 3


def test_rendered_picture(pv, exe):
    """The screenshot's pixel at the centre of each KxK block is the
    executable's value there mapped LO..HI -> 0..255."""
    d, _ = pv
    want = mip_exe(exe, d, ["-vol", os.path.join(d, "wave.nrrd"), "-camEye", "6", "4", "3",
                            "-rayStep", "0.02"], "exe-wave.nrrd").reshape(H, W)
    grey = np.clip(np.round(255 * (want - LO) / (HI - LO)), 0, 255)
    r = vtkPNGReader()
    r.SetFileName(os.path.join(d, "mip-wave.png"))
    r.Update()
    o = r.GetOutput()
    nx, ny, _ = o.GetDimensions()
    assert (nx, ny) == (W * K, H * K)
    px = ns.vtk_to_numpy(o.GetPointData().GetScalars()).reshape(ny, nx, -1)[::-1]  # VTK: bottom row first
    centres = px[K // 2::K, K // 2::K, :3].astype(float)
    assert np.abs(centres - grey[..., None]).max() <= 3, np.abs(centres - grey[..., None]).max()
    shot = os.environ.get("DIDEROT_PICTURES")
    if shot:  # the README's picture (made by this test)
        shutil.copyfile(os.path.join(d, "mip-wave.png"), os.path.join(shot, "paraview-mip.png"))


def test_compiler_error_in_output_window(pv):
    _, log = pv
    assert "bad.diderot:3:36: error: unable to resolve overloaded operator '+'" in log


def test_state_file(pvbatch, tmp_path):
    """examples/paraview/diderot-state.py renders (particles and DVR)."""
    png = str(tmp_path / "state.png")
    p = pvbatch.run([os.path.join(EXAMPLES, "paraview", "diderot-state.py")],
                    env=dict(DIDEROT_STATE_SCREENSHOT=png))
    log = p.stdout.decode(errors="replace")
    assert os.path.exists(png) and "Traceback" not in log, log[-3000:]
    assert "Diderot:" not in log, log[-3000:]
    r = vtkPNGReader()
    r.SetFileName(png)
    r.Update()
    nx, ny, _ = r.GetOutput().GetDimensions()
    px = ns.vtk_to_numpy(r.GetOutput().GetPointData().GetScalars()).reshape(ny, nx, -1)[..., :3]
    right = px[:, nx // 2:].astype(int)
    # the DVR panel: a grey picture (R = G = B) with a bright object, not black
    grey = (right[..., 0] == right[..., 1]) & (right[..., 1] == right[..., 2])
    assert (grey & (right[..., 0] > 128)).sum() > 0.02 * right[..., 0].size
    shot = os.environ.get("DIDEROT_PICTURES")
    if shot:
        shutil.copyfile(png, os.path.join(shot, "paraview-state.png"))


INSTALLED = """import os, site, sys
site.addsitedir(%(site)r)  # as Python does for the prefix's dist-packages: runs the .pth
import inspect
assert hasattr(inspect, "getargspec"), "diderot-paraview-compat.pth did not run"
from paraview import servermanager as sm
from paraview.simple import LoadPlugin, XMLImageDataReader
from vtkmodules.vtkIOXML import vtkXMLImageDataWriter
LoadPlugin(%(plugin)r, ns=globals())
import diderot
print("PACKAGE", os.path.dirname(diderot.__file__), diderot.find_diderotc())
m = Diderotmip(Input=XMLImageDataReader(FileName=[%(vti)r]), imgResU=%(w)d, imgResV=%(h)d,
               camEye=[6.0, 4.0, 3.0], rayStep=0.02)
m.UpdatePipeline()
w = vtkXMLImageDataWriter()
w.SetFileName(%(out)r)
w.SetInputData(sm.Fetch(m))
w.SetDataModeToBinary()
assert w.Write()
print("DONE")
"""


def test_installed_plugin(pv, pvbatch, exe, diderotc, tmp_path):
    """The plugin as `make install` puts it (scripts/install-python.py with
    the Makefile's --plugindir), loaded by path with nothing of the source
    tree on the path: 'Diderot: mip' from its programs/ on a .vti volume
    equals the executable's output."""
    d, _ = pv
    prefix = tmp_path / "prefix"
    bindir = prefix / "bin"
    bindir.mkdir(parents=True)
    os.symlink(diderotc, str(bindir / "diderotc"))
    site = str(prefix / "site")
    plugdir = str(prefix / "lib" / "diderot" / "paraview")
    subprocess.run([sys.executable, os.path.join(TOP, "scripts", "install-python.py"), "install",
                    "--srcdir", TOP, "--prefix", str(prefix), "--bindir", str(bindir),
                    "--pythondir", site, "--plugindir", plugdir], check=True, stdout=subprocess.DEVNULL)
    script = str(tmp_path / "installed.py")
    out = str(tmp_path / "installed-mip.vti")
    with open(script, "w") as f:
        f.write(INSTALLED % dict(site=site, plugin=os.path.join(plugdir, "DiderotPlugin.py"),
                                 vti=os.path.join(d, "wave.vti"), w=W, h=H, out=out))
    p = pvbatch.run([script], env=dict(DIDEROT_CACHE_DIR=str(tmp_path / "cache")), cwd=str(tmp_path),
                    unset=("PYTHONPATH", "DIDEROTC", "DIDEROT_PARAVIEW_PROGRAMS"))
    log = p.stdout.decode(errors="replace")
    assert "DONE" in log, log[-3000:]
    assert "PACKAGE %s %s" % (os.path.join(site, "diderot"), str(bindir / "diderotc")) in log, log[-3000:]
    want = mip_exe(exe, str(tmp_path), ["-vol", os.path.join(d, "wave.nrrd"), "-camEye", "6", "4", "3",
                                        "-rayStep", "0.02"], "exe-wave.nrrd")
    dims, got = read_vti(out, "mip")
    assert dims == (W, H, 1)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)

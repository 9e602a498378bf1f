"""ParaView's graphical client, `paraview`, with the plugin as `make install`
puts it (issue 33, "Done when": a user with only ParaView and our make
install runs examples/mip on a .vti, following doc/user-guide.md).

The build tree's `make install prefix=P` installs into a temporary prefix;
the GUI starts on a private Xvfb with PV_PLUGIN_PATH=P/lib/diderot/paraview
(the guide's way of loading the plugin at every start) and nothing of the
source tree on its path, and runs a script (`paraview --script=... --exit`)
that does what the guide's steps do from the menus: blobs.nrrd opened with
ParaView's NRRD reader and saved as .vti (File > Open, File > Save Data),
the .vti opened, "Diderot: mip" applied (its menu entry: the ShowInMenu
hint the Filters > Diderot menu is built from), shown as a Slice coloured
by `mip`, and the filter's output saved. That output must equal the
executable's on blobs.nrrd. The menus themselves are not clicked: nothing
here drives Qt's widgets.

The Python package goes into P's user site folder (PYTHONUSERBASE): as
/usr/local/lib/python3.X/dist-packages is for the default prefix, a folder
whose .pth files Python runs, which the plugin's compatibility shim needs
(doc/user-guide.md, "ParaView").

Skipped, saying why, without `paraview` or Xvfb, where the GUI cannot reach
its X server or gets no OpenGL there, or when the compiler under test is not
in a configured build tree (nothing to `make install`).
"""
# needs: vtkmodules  (python/tests/group.py picks a python3 that has it)

import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import DATA, EXAMPLES, run_exe
from xvfb import xvfb

pytest.importorskip("vtkmodules", reason="VTK's Python modules are not installed "
                    "(Debian package python3-paraview)")
from vtkmodules.util import numpy_support as ns  # noqa: E402
from vtkmodules.vtkIOImage import vtkPNGReader  # noqa: E402
from vtkmodules.vtkIOXML import vtkXMLImageDataReader  # noqa: E402

import nrrd as oracle  # noqa: E402

W, H = 64, 48

# run by the GUI's Python; its results go to a file (the GUI's print goes
# to its Output Messages window)
GUI = """import sys
from paraview.simple import *
import paraview.simple as ps
from paraview import servermanager as sm
res = open(%(res)r, "w")
res.write("FILTER %%s\\n" %% hasattr(ps, "Diderotmip"))
res.flush()
nrrd = OpenDataFile(%(nrrd)r)
SaveData(%(vti)r, proxy=nrrd, DataMode="Binary")  # not appended: pv_filters.py save()
vol = OpenDataFile(%(vti)r)
m = ps.Diderotmip(Input=vol, imgResU=%(w)d, imgResV=%(h)d)
x = sm.ProxyManager().GetProxyDefinitionManager().GetProxyDefinition(m.GetXMLGroup(), m.GetXMLName())
if x is not None:
    res.write("LABEL %%s\\n" %% x.GetAttribute("label"))
    for i in range(x.GetNumberOfNestedElements()):
        h = x.GetNestedElement(i)
        if h.GetName() == "Hints":
            for j in range(h.GetNumberOfNestedElements()):
                e = h.GetNestedElement(j)
                if e.GetName() == "ShowInMenu":
                    res.write("MENU %%s\\n" %% e.GetAttribute("category"))
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [%(w)d * 4, %(h)d * 4]
d = Show(m, view)
d.SetRepresentationType("Slice")
ColorBy(d, ("POINTS", "mip"))
view.CameraViewUp = [0, -1, 0]
view.CameraPosition = [0, 0, -1]
view.CameraFocalPoint = [0, 0, 0]
ResetCamera(view)
Render(view)
SaveScreenshot(%(png)r, view, ImageResolution=[%(w)d * 4, %(h)d * 4])
SaveData(%(out)r, proxy=m, DataMode="Binary")
res.write("DONE\\n")
res.close()
"""


@pytest.fixture(scope="module")
def installed(diderotc, tmp_path_factory):
    """`make install` of the build tree under test into a new prefix:
    (prefix, user base), or a skip saying why it cannot be done."""
    builddir = os.path.dirname(os.path.realpath(diderotc))
    if not os.path.exists(os.path.join(builddir, "Makefile")):
        pytest.skip("%s is not in a configured build tree (no Makefile to make install)" % diderotc)
    for tool in ("paraview", "flock"):
        if not shutil.which(tool):
            pytest.skip("%s not found (Debian package %s)"
                        % (tool, "paraview" if tool == "paraview" else "util-linux"))
    d = tmp_path_factory.mktemp("gui")
    prefix, base = str(d / "prefix"), str(d / "userbase")
    site = subprocess.run(["/usr/bin/python3", "-c", "import site; print(site.getusersitepackages())"],
                          env=dict(os.environ, PYTHONUSERBASE=base), stdout=subprocess.PIPE,
                          check=True).stdout.decode().strip()
    p = subprocess.run(["flock", os.path.join(builddir, ".make-lock"), "make", "-s", "-C", builddir,
                        "install", "prefix=" + prefix, "pythondir=" + site],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout.decode(errors="replace")[-3000:]
    return prefix, base


def _gui(args, env, tries=2):
    """paraview ARGS on a private Xvfb; a new server when the first could
    not be reached. Returns the log, or skips naming why the GUI cannot
    start here."""
    why = []
    for _ in range(tries):
        srv, disp = xvfb()
        if srv is None:
            pytest.skip("ParaView's GUI needs an X server: " + disp)
        try:
            p = subprocess.run(["paraview", "--dr"] + args, env=dict(env, DISPLAY=disp),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=600)
        finally:
            srv.terminate()
            srv.wait()
        log = p.stdout.decode(errors="replace")
        if "could not connect to display" not in log and "bad X server connection" not in log:
            return p.returncode, log
        why.append(log.strip().splitlines()[-1][-200:])
    pytest.skip("ParaView's GUI cannot reach its Xvfb: " + "; ".join(why))


def test_gui_runs_mip_on_vti(installed, exe, tmp_path):
    prefix, base = installed
    t = str(tmp_path)
    paths = dict(res=os.path.join(t, "result.txt"), nrrd=os.path.join(DATA, "blobs.nrrd"),
                 vti=os.path.join(t, "blobs.vti"), out=os.path.join(t, "mip.vti"),
                 png=os.path.join(t, "mip.png"), w=W, h=H)
    script = os.path.join(t, "gui.py")
    with open(script, "w") as f:
        f.write(GUI % paths)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "DIDEROTC", "DIDEROT_PARAVIEW_PROGRAMS", "DIDEROT_TEST_CACHE")}
    env.update(PV_PLUGIN_PATH=os.path.join(prefix, "lib", "diderot", "paraview"),
               PYTHONUSERBASE=base, DIDEROT_CACHE_DIR=os.path.join(t, "cache"))
    rc, log = _gui(["--script=" + script, "--exit"], env)
    res = open(paths["res"]).read() if os.path.exists(paths["res"]) else ""
    gl = [ln for ln in log.splitlines() if "GLX" in ln or "XOpenGLRenderWindow" in ln
          or "Could not find a decent config" in ln]
    if not res and gl:  # the GUI started but has no OpenGL on this X server
        pytest.skip("ParaView's GUI cannot render on Xvfb here: " + gl[0].strip()[:200])
    tail = "status %d; result: %r; log: %s" % (rc, res, log[-3000:])
    assert "FILTER True" in res, tail  # the plugin was loaded at start from PV_PLUGIN_PATH
    assert "LABEL Diderot: mip" in res and "MENU Diderot" in res, tail
    assert "DONE" in res and "Traceback" not in log, tail
    # the .vti that ParaView's Save Data made keeps blobs.nrrd's geometry
    r = vtkXMLImageDataReader()
    r.SetFileName(paths["vti"])
    r.Update()
    v = r.GetOutput()
    assert v.GetDimensions() == (40, 40, 40)
    np.testing.assert_allclose(v.GetOrigin(), (-1, -1, -1))
    np.testing.assert_allclose(v.GetSpacing(), (2 / 39,) * 3)
    # the filter's output equals the executable's on blobs.nrrd
    r = vtkXMLImageDataReader()
    r.SetFileName(paths["out"])
    r.Update()
    o = r.GetOutput()
    assert o.GetDimensions() == (W, H, 1)
    got = ns.vtk_to_numpy(o.GetPointData().GetArray("mip"))
    src = os.path.join(EXAMPLES, "mip", "mip.diderot")
    want_path = os.path.join(t, "exe.nrrd")
    run_exe(exe(src), ["-imgResU", str(W), "-imgResV", str(H), "-o", want_path], os.path.dirname(src))
    want = np.asarray(oracle.read(want_path).data, dtype=np.float64)
    assert want.max() - want.min() > 0.3  # the blobs are in view
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    # shown as a Slice coloured by mip: a picture with more than a background
    p = vtkPNGReader()
    p.SetFileName(paths["png"])
    p.Update()
    px = ns.vtk_to_numpy(p.GetOutput().GetPointData().GetScalars())
    assert len(np.unique(px[:, :3], axis=0)) > 50

"""pv_filters.py -- run by pvbatch for test_paraview.py (issue 33 §5):

    pvbatch pv_filters.py OUTDIR WAVE.vti BLOBS.nrrd LO HI

loads the plugin of this source tree, runs its filters and writes, in
OUTDIR: mip-wave.vti ("Diderot: mip" on the VTK-made volume WAVE.vti),
mip-blobs.vti (the same on the NRRD, through ParaView's NRRD reader),
generic-blobs.vti ("Diderot Program" with the Inputs text), iso-blobs.vtp
(isosurface particles: points), mip-wave.png (the first rendered as a grey
picture, one image point per 4x4 pixels, values LO..HI black to white);
a program that does not compile reports on stderr (the output window).
The checks are in test_paraview.py; this script only produces.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "plugins", "paraview"))
import diderot_paraview_compat  # noqa: E402  (Debian 12's ParaView on Python 3.11)

diderot_paraview_compat.patch()
from paraview import servermanager as sm  # noqa: E402
from paraview.simple import (GetActiveViewOrCreate, GetColorTransferFunction, LoadPlugin,  # noqa: E402
                             OpenDataFile, Render, SaveScreenshot, Show, XMLImageDataReader)
from vtkmodules.vtkIOXML import vtkXMLImageDataWriter, vtkXMLPolyDataWriter  # noqa: E402

out, wave, blobs = sys.argv[1:4]
os.environ["DIDEROT_PARAVIEW_PROGRAMS"] = os.pathsep.join([
    os.path.join(TOP, "examples", "mip", "mip.diderot"),
    os.path.join(TOP, "examples", "paraview")])
LoadPlugin(os.path.join(TOP, "plugins", "paraview", "DiderotPlugin.py"), ns=globals())


def save(proxy, name):
    proxy.UpdatePipeline()
    d = sm.Fetch(proxy)
    w = vtkXMLPolyDataWriter() if d.IsA("vtkPolyData") else vtkXMLImageDataWriter()
    w.SetFileName(os.path.join(out, name))
    w.SetInputData(d)
    # Inline base64, not VTK's default "appended" section: with the expat of
    # Debian 12's security updates (2.5.0-1+deb12u2 and later, which have
    # expat 2.6's reparse deferral) the XML readers of ParaView 5.11 and of
    # python3-vtk9 reject appended data as "not well-formed (invalid token)"
    # (found by CI in a fresh root; diderot.save_vti writes inline too).
    w.SetDataModeToBinary()
    assert w.Write(), name
    return d


W, H = 48, 48  # test_paraview.py's
rw = XMLImageDataReader(FileName=[wave])
mw = Diderotmip(Input=rw, imgResU=W, imgResV=H, camEye=[6.0, 4.0, 3.0], rayStep=0.02)  # noqa: F821
save(mw, "mip-wave.vti")
rb = OpenDataFile(blobs)
mb = Diderotmip(Input=rb, imgResU=W, imgResV=H)  # noqa: F821
save(mb, "mip-blobs.vti")
gb = DiderotProgram(Input=rb, Program=os.path.join(TOP, "examples", "mip", "mip.diderot"),  # noqa: F821
                    Inputs="imgResU = %d\nimgResV = %d\ncamFOV = 15  # narrower\n" % (W, H))
save(gb, "generic-blobs.vti")
ib = Diderotisoparticles(Input=rb, res=16)  # noqa: F821
save(ib, "iso-blobs.vtp")

# the picture: mip-wave as a grey slice, value lo..hi -> black..white, one
# image point per KxK pixels, row 0 (vi = 0) at the top like the executable's
lo, hi = [float(x) for x in sys.argv[4:6]]
K = 4
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [W * K, H * K]
view.OrientationAxesVisibility = 0
view.Background = [0.0, 0.0, 0.0]
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
disp = Show(mw, view)
disp.Representation = "Slice"
disp.ColorArrayName = ["POINTS", "mip"]
disp.MapScalars = 1
disp.Ambient = 1.0
disp.Diffuse = 0.0
lut = GetColorTransferFunction("mip")
lut.ColorSpace = "RGB"
lut.RGBPoints = [lo, 0.0, 0.0, 0.0, hi, 1.0, 1.0, 1.0]
lut.Discretize = 0
lut.AutomaticRescaleRangeMode = "Never"
lut.RescaleTransferFunction(lo, hi)
Render(view)  # the first render resets the camera: set it after
view.CameraParallelProjection = 1
view.CameraFocalPoint = [(W - 1) / 2.0, (H - 1) / 2.0, 0.0]
view.CameraPosition = [(W - 1) / 2.0, (H - 1) / 2.0, -100.0]  # from -z with y down:
view.CameraViewUp = [0.0, -1.0, 0.0]                           # x right, row 0 on top
# the Slice representation draws point data as a texture of W x H texels
# stretched over the image's bounds (first point to last: W - 1 units), so
# the view spans those bounds for texel k to fill pixel block k
view.CameraParallelScale = (H - 1) / 2.0
Render(view)

SaveScreenshot(os.path.join(out, "mip-wave.png"), view, ImageResolution=[W * K, H * K])

# a program that does not compile: the message in the output window
bad = os.path.join(out, "bad.diderot")
with open(bad, "w") as f:
    f.write("#version 2.0\ninput real x = 1.0;\nstrand S (int i) { output real y = x + true;"
            " update { stabilize; } }\ncreate_array { S(i) | i in 0..1 };\n")
eb = DiderotProgram(Input=rb, Program=bad)  # noqa: F821
try:
    eb.UpdatePipeline()
except Exception as e:  # pvbatch reports the failure through the output window
    print("update raised", e)
print("DONE")

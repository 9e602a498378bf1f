# state file for ParaView 5.11 (File > Load State, or pvbatch diderot-state.py):
# examples/data/blobs.nrrd through two Diderot programs of this folder,
# side by side: isosurface particles (isoparticles.diderot, points shown as
# spheres over an outline of the volume) and a direct volume rendering
# (dvr.diderot, a grey image). Needs the Diderot plugin: loaded from
# $DIDEROT_PARAVIEW_PLUGIN, else from this source tree
# (plugins/paraview/DiderotPlugin.py), else the installed one named in
# doc/user-guide.md ("ParaView"). With $DIDEROT_STATE_SCREENSHOT set, the
# layout is also saved as that PNG file (the README's picture).

import os
import sys

try:
    HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # ParaView's Load State runs the text without __file__
    HERE = os.environ.get("DIDEROT_EXAMPLES_PARAVIEW", os.getcwd())
TOP = os.path.dirname(os.path.dirname(HERE))
plugin = os.environ.get("DIDEROT_PARAVIEW_PLUGIN") or os.path.join(
    TOP, "plugins", "paraview", "DiderotPlugin.py")
sys.path.insert(0, os.path.dirname(plugin))
import diderot_paraview_compat  # noqa: E402  (Debian 12's ParaView and Python 3.11)

diderot_paraview_compat.patch()
from paraview.simple import (AssignViewToLayout, CreateLayout, CreateView, GetColorTransferFunction,  # noqa: E402
                             LoadPlugin, OpenDataFile, Outline, Render, SaveScreenshot, Show)

os.environ["DIDEROT_PARAVIEW_PROGRAMS"] = HERE  # "Diderot: isoparticles", "Diderot: dvr"
LoadPlugin(plugin, ns=globals())

vol = OpenDataFile(os.path.join(TOP, "examples", "data", "blobs.nrrd"))
particles = Diderotisoparticles(Input=vol, isoval=0.5, res=28)  # noqa: F821
picture = Diderotdvr(Input=vol, imgResU=300, imgResV=300)  # noqa: F821

layout = CreateLayout("Diderot")
layout.SplitHorizontal(0, 0.5)  # cells 1 (left) and 2 (right)
left = CreateView("RenderView")
AssignViewToLayout(view=left, layout=layout, hint=1)
outline = Show(Outline(Input=vol), left)
outline.AmbientColor = outline.DiffuseColor = [0.6, 0.6, 0.6]
pts = Show(particles, left)
pts.SetRepresentationType("Point Gaussian")
pts.GaussianRadius = 0.012
pts.ColorArrayName = ["POINTS", "normal"]
pts.LookupTable = GetColorTransferFunction("normal")
pts.LookupTable.VectorMode = "Component"
pts.LookupTable.VectorComponent = 2
pts.LookupTable.ApplyPreset("Cool to Warm", True)
pts.LookupTable.RescaleTransferFunction(-1.0, 1.0)
left.OrientationAxesVisibility = 0
Render(left)
left.CameraPosition = [6.0, 4.0, 3.0]
left.CameraFocalPoint = [0.0, 0.0, 0.0]
left.CameraViewUp = [0.0, 0.0, 1.0]
left.CameraViewAngle = 18.0

right = CreateView("RenderView")
AssignViewToLayout(view=right, layout=layout, hint=2)
img = Show(picture, right)
img.Representation = "Slice"
img.ColorArrayName = ["POINTS", "gray"]
img.MapScalars = 1
img.Ambient = 1.0
img.Diffuse = 0.0
gray = GetColorTransferFunction("gray")
gray.ApplyPreset("Grayscale", True)
gray.RescaleTransferFunction(0.0, 1.0)
img.LookupTable = gray
right.OrientationAxesVisibility = 0
Render(right)  # the first render resets the camera: set it after
right.CameraParallelProjection = 1
right.CameraFocalPoint = [149.5, 149.5, 0.0]
right.CameraPosition = [149.5, 149.5, -500.0]  # row 0 of the picture at the top
right.CameraViewUp = [0.0, -1.0, 0.0]
right.ResetCamera()  # fit the picture, keeping that direction

Render(left)
Render(right)
shot = os.environ.get("DIDEROT_STATE_SCREENSHOT")
if shot:
    SaveScreenshot(shot, layout, ImageResolution=[800, 400])

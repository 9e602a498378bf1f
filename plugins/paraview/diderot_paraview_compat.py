"""diderot_paraview_compat -- lets Debian 12's ParaView 5.11 load Python
plugins at all.

ParaView 5.11's paraview/detail/pythonalgorithm.py (which every Python
plugin goes through) does `from inspect import getargspec`, a function
Python 3.11 removed, so on Debian 12 (python3.11) Tools > Manage Plugins
and LoadPlugin fail with "Failed to import paraview.detail.pythonalgorithm"
for any Python plugin. getfullargspec has the `.args` that file uses.

`make install` installs this module with diderot-paraview-compat.pth into
the Python package folder, so that it runs when a ParaView process
(paraview, pvpython, pvbatch: their interpreter is .../vtkpython) starts;
it changes nothing elsewhere, nor where inspect still has getargspec.
Scripts run from the source tree call patch() before LoadPlugin.
"""

import inspect
import os
import sys


def in_paraview():
    return os.path.basename(sys.executable or "") in ("vtkpython", "pvpython", "pvbatch",
                                                      "paraview", "pvserver")


def patch():
    if not hasattr(inspect, "getargspec"):
        inspect.getargspec = inspect.getfullargspec


if in_paraview():
    patch()

"""DiderotPlugin.py -- the ParaView plugin of diderotc (issue 33 §2).

Load it in ParaView with Tools > Manage Plugins > Load New (this file), or
in pvpython/pvbatch with LoadPlugin("/path/DiderotPlugin.py", ns=globals()).
It adds the filters of diderot._paraview (doc/user-guide.md, "ParaView"):
"Diderot Program" and one "Diderot: NAME" per program found in the
programs/ folder beside this file (where `make install` puts examples) and
in $DIDEROT_PARAVIEW_PROGRAMS.

The Python package diderot is imported from sys.path; failing that, from
the folder `make install` recorded in DiderotPluginConfig.txt beside this
file, or from the source tree this file is in (../../python).
"""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


def _package_dirs():
    dirs = []
    cfg = os.path.join(_here, "DiderotPluginConfig.txt")
    if os.path.exists(cfg):
        with open(cfg) as f:
            # relative to this folder: a moved or staged install still works
            dirs += [os.path.join(_here, l.strip()) for l in f if l.strip() and not l.startswith("#")]
    dirs.append(os.path.join(os.path.dirname(os.path.dirname(_here)), "python"))
    return dirs


try:
    import diderot  # noqa: F401
except ImportError:
    for d in _package_dirs():
        if os.path.isfile(os.path.join(d, "diderot", "__init__.py")):
            sys.path.insert(0, d)
            break
    import diderot  # noqa: F401

from diderot import _paraview  # noqa: E402

globals().update(_paraview.filters([os.path.join(_here, "programs")]))

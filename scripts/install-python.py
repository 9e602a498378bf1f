#!/usr/bin/env python3
"""install-python.py -- `make install` / `make uninstall` of the Python
package `diderot` (python/diderot; issue 14 §1 and §3).

  install-python.py install   --srcdir=S --prefix=P --bindir=B [--pythondir=D] [--destdir=R] [--plugindir=G]
  install-python.py uninstall --prefix=P [--pythondir=D] [--destdir=R] [--plugindir=G]

The package goes into D/diderot, D being --pythondir when given (make
install pythondir=...), else the directory where the Python that runs this
script looks for packages under the prefix P: P/lib/pythonX.Y/dist-packages
for Debian's python3 (which has the posix_local scheme: /usr/local/lib/...
/dist-packages is on its sys.path), its posix_prefix purelib otherwise. R is
DESTDIR. The package's _config.py names the installed diderotc relative to
the package itself, so a staged (DESTDIR) or moved install still finds the
compiler installed with it. Uninstall removes D/diderot (with the
__pycache__ that imports leave there). With --plugindir G (make install:
LIBDIR/diderot/paraview), the ParaView plugin goes into G (see
install_plugin), and uninstall removes it.
"""

import argparse
import os
import shutil
import sys
import sysconfig


def site_dir(prefix):
    v = sys.version_info
    if "posix_local" in sysconfig.get_scheme_names():  # Debian's python3
        return os.path.join(prefix, "lib", "python%d.%d" % (v[0], v[1]), "dist-packages")
    return sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix})


def staged(destdir, path):
    return destdir + path if destdir else path


def main(argv):
    ap = argparse.ArgumentParser(description="install the Python package diderot")
    ap.add_argument("action", choices=("install", "uninstall"))
    ap.add_argument("--srcdir", default=".")
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--bindir")
    ap.add_argument("--pythondir", default="")
    ap.add_argument("--destdir", default="")
    ap.add_argument("--plugindir", default="", help="where the ParaView plugin goes (none if empty)")
    a = ap.parse_args(argv)
    pkg = os.path.join(a.pythondir or site_dir(a.prefix), "diderot")
    dest = staged(a.destdir, pkg)
    if a.action == "uninstall":
        shutil.rmtree(dest, ignore_errors=True)
        if a.plugindir:
            uninstall_plugin(a, os.path.dirname(pkg))
        return 0
    src = os.path.join(a.srcdir, "python", "diderot")
    files = sorted(f for f in os.listdir(src) if f.endswith(".py") and f != "_config.py")
    os.makedirs(dest, exist_ok=True)
    for f in files:
        shutil.copyfile(os.path.join(src, f), os.path.join(dest, f))
        os.chmod(os.path.join(dest, f), 0o644)
    rel = os.path.relpath(os.path.join(a.bindir, "diderotc"), pkg)
    with open(os.path.join(dest, "_config.py"), "w") as fh:
        fh.write('"""Written by make install: the diderotc installed with this package\n'
                 '(found relative to it, so a moved or staged install keeps working)."""\n'
                 "import os\n\n"
                 "DIDEROTC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath("
                 "__file__)), %r))\n" % rel)
    print("installed the Python package diderot in %s" % dest)
    if a.plugindir:
        install_plugin(a, os.path.dirname(pkg))
    return 0


def _copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    tmp = dst + ".tmp%d" % os.getpid()
    shutil.copyfile(src, tmp)
    os.chmod(tmp, 0o644)
    os.replace(tmp, dst)


PROGRAMS = [("examples/mip/mip.diderot", "mip/mip.diderot"),
            ("examples/paraview/isoparticles.diderot", "paraview/isoparticles.diderot"),
            ("examples/paraview/dvr.diderot", "paraview/dvr.diderot"),
            ("examples/data/blobs.nrrd", "data/blobs.nrrd")]  # the programs' default volume


def install_plugin(a, site):
    """The ParaView plugin (plugins/paraview): DiderotPlugin.py in
    --plugindir with a DiderotPluginConfig.txt naming the package's folder
    (relative to the plugin), the example programs in programs/, and
    diderot_paraview_compat.py with its .pth beside the package (Debian
    12's ParaView needs it to load any Python plugin)."""
    pd = staged(a.destdir, a.plugindir)
    src = os.path.join(a.srcdir, "plugins", "paraview")
    _copy(os.path.join(src, "DiderotPlugin.py"), os.path.join(pd, "DiderotPlugin.py"))
    _copy(os.path.join(src, "diderot_paraview_compat.py"), os.path.join(pd, "diderot_paraview_compat.py"))
    for f in ("diderot_paraview_compat.py", "diderot-paraview-compat.pth"):
        _copy(os.path.join(src, f), os.path.join(staged(a.destdir, site), f))
    for s_, d in PROGRAMS:
        _copy(os.path.join(a.srcdir, s_), os.path.join(pd, "programs", d))
    cfg = os.path.join(pd, "DiderotPluginConfig.txt")
    with open(cfg + ".tmp", "w") as fh:
        fh.write("# written by make install: the folder of the Python package diderot,\n"
                 "# relative to this file's folder\n%s\n" % os.path.relpath(site, a.plugindir))
    os.replace(cfg + ".tmp", cfg)
    print("installed the ParaView plugin in %s" % pd)


def uninstall_plugin(a, site):
    pd = staged(a.destdir, a.plugindir)
    for f in ("DiderotPlugin.py", "diderot_paraview_compat.py", "DiderotPluginConfig.txt"):
        _remove(os.path.join(pd, f))
    for _, d in PROGRAMS:
        _remove(os.path.join(pd, "programs", d))
    for f in ("diderot_paraview_compat.py", "diderot-paraview-compat.pth"):
        _remove(os.path.join(staged(a.destdir, site), f))
    shutil.rmtree(os.path.join(pd, "__pycache__"), ignore_errors=True)
    for d in ("programs/mip", "programs/paraview", "programs/data", "programs", ""):
        try:
            os.rmdir(os.path.join(pd, d))
        except OSError:
            pass


def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""install-python.py -- `make install` / `make uninstall` of the Python
package `diderot` (python/diderot; issue 14 §1 and §3).

  install-python.py install   --srcdir=S --prefix=P --bindir=B [--pythondir=D] [--destdir=R]
  install-python.py uninstall --prefix=P [--pythondir=D] [--destdir=R]

The package goes into D/diderot, D being --pythondir when given (make
install pythondir=...), else the directory where the Python that runs this
script looks for packages under the prefix P: P/lib/pythonX.Y/dist-packages
for Debian's python3 (which has the posix_local scheme: /usr/local/lib/...
/dist-packages is on its sys.path), its posix_prefix purelib otherwise. R is
DESTDIR. The package's _config.py names the installed diderotc relative to
the package itself, so a staged (DESTDIR) or moved install still finds the
compiler installed with it. Uninstall removes D/diderot (with the
__pycache__ that imports leave there).
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
    a = ap.parse_args(argv)
    pkg = os.path.join(a.pythondir or site_dir(a.prefix), "diderot")
    dest = staged(a.destdir, pkg)
    if a.action == "uninstall":
        shutil.rmtree(dest, ignore_errors=True)
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""readme_session.py -- run the Python session shown in README.md.

    DIDEROTC=build/diderotc python3 python/examples/readme_session.py [PICTURE]

The block of README.md whose info string is `python session` is run as it
is, in a scratch directory that has the source tree's examples/ (the
session refers to examples/mip/mip.diderot, as from the repository root).
With PICTURE, the picture the session draws (mip-numpy.png, which needs
matplotlib) is copied there: that is how python/examples/mip-numpy.png, the
README's picture, is made. python/tests/test_readme.py runs the same block.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def session_code(readme=os.path.join(TOP, "README.md")):
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^```python session\n(.*?)^```$", text, re.S | re.M)
    if not m:
        raise ValueError("README.md has no ```python session block")
    return m.group(1)


def run_session(workdir, code=None, env=None):
    """Run the session in workdir (made to look like the source tree)."""
    if not os.path.exists(os.path.join(workdir, "examples")):
        os.symlink(os.path.join(TOP, "examples"), os.path.join(workdir, "examples"))
    path = os.path.join(workdir, "session.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(code if code is not None else session_code())
    e = dict(env or os.environ)
    e["PYTHONPATH"] = os.path.join(TOP, "python") + (os.pathsep + e["PYTHONPATH"]
                                                     if e.get("PYTHONPATH") else "")
    e.setdefault("MPLBACKEND", "Agg")
    return subprocess.run([sys.executable, path], cwd=workdir, env=e,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def main(argv):
    work = tempfile.mkdtemp(prefix="readme-session-")
    try:
        p = run_session(work)
        sys.stdout.write(p.stdout.decode())
        if p.returncode != 0:
            return p.returncode
        if argv:
            shutil.copyfile(os.path.join(work, "mip-numpy.png"), argv[0])
            print("wrote", argv[0])
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

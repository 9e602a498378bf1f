"""A private X server for the ParaView tests (test_paraview, test_paraview_gui):
Debian 12's ParaView needs an X display (its VTK has neither OSMesa nor EGL)."""

import os
import select
import shutil
import subprocess


def xvfb():
    """A private Xvfb that picks its own free display (-displayfd: no race
    with other X servers starting at the same time, as xvfb-run -a has);
    returns (process, ":N") or (None, why)."""
    exe = shutil.which("Xvfb")
    if not exe:
        return None, "Xvfb not found (Debian package xvfb)"
    r, w = os.pipe()
    p = subprocess.Popen([exe, "-displayfd", str(w), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                         pass_fds=(w,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    os.close(w)
    got = b""
    while select.select([r], [], [], 30)[0]:
        chunk = os.read(r, 64)
        if not chunk:
            break
        got += chunk
        if got.endswith(b"\n"):
            break
    os.close(r)
    if not got.strip().isdigit():
        p.kill()
        p.wait()
        return None, "Xvfb did not start (status %s)" % p.poll()
    return p, ":" + got.decode().strip()

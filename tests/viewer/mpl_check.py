"""mpl_check.py SRCDIR DIDEROTC WORK -- the Python viewer
(examples/viewer/mpl_viewer.py) driven through matplotlib's events with the
Agg backend (no display): a drag, two wheel clicks, the slider, M. Checks the
camera against the closed forms of the C viewer (vw_camera.h) and each
rendered image against the executable compiled from the same program,
given the same float32 inputs: equal floats, no tolerance (the same
generated code on the same inputs). Prints one line per problem; exits 1
when there is one. Run by tests/viewer/viewer.py (viewer/python)."""

import math
import os
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
from matplotlib.backend_bases import KeyEvent, MouseEvent  # noqa: E402
import numpy as np  # noqa: E402

srcdir, diderotc, work = sys.argv[1:4]
sys.path[:0] = [os.path.join(srcdir, "python"), os.path.join(srcdir, "examples", "viewer"),
                os.path.join(srcdir, "tests", "oracle")]
os.environ["DIDEROTC"] = diderotc
os.environ["DIDEROT_CACHE_DIR"] = os.path.join(work, "cache")
import mpl_viewer  # noqa: E402
import nrrd  # noqa: E402

problems = []
exe = os.path.join(work, "viewer-exec")
subprocess.run([diderotc, "--exec", mpl_viewer.PROGRAM, "-o", exe], check=True)
vol = os.path.join(srcdir, "examples", "data", "blobs.nrrd")


def check_image(tag, v):
    """v's last image against the executable's render of the same inputs."""
    args = [exe, "-q", "-o", os.path.join(work, "exec.nrrd")]
    for k, x in v.inputs().items():
        if k == "vol":
            args += ["-vol", vol]
        else:
            args += ["-" + k] + ["%.9g" % c for c in np.atleast_1d(x)]
    subprocess.run(args, check=True)
    ref = nrrd.read(os.path.join(work, "exec.nrrd"))
    want = np.array(ref.data, np.float32).reshape(ref.sizes[::-1])  # (rows, columns, 3)
    got = v.rgb
    if got.shape != want.shape:
        problems.append("%s: image %s, the executable's %s" % (tag, got.shape, want.shape))
    elif not np.array_equal(got, want):
        problems.append("%s: %d values differ from the executable's (max %g)"
                        % (tag, int(np.sum(got != want)), float(np.max(np.abs(got - want)))))
    if np.count_nonzero(want.max(axis=2) > 0.05) < want.shape[0] * want.shape[1] // 20:
        problems.append("%s: the view misses the volume" % tag)


def close(a, b, tol=1e-12):
    return all(abs(x - y) <= tol * (1 + abs(y)) for x, y in zip(a, b))


v = mpl_viewer.Viewer(vol, size=64)
r = math.sqrt(3.0)
az0, el0, d0 = math.atan2(4, 6), math.asin(3 / math.sqrt(61)), 4.5 * r
if not close([v.cam.azim, v.cam.elev, v.cam.dist], [az0, el0, d0], 1e-9):
    problems.append("start: camera %s" % [v.cam.azim, v.cam.elev, v.cam.dist])
check_image("start", v)

c = v.fig.canvas
bb = v.ax.get_window_extent()
W = bb.width
x0, y0, DX, DY = bb.x0 + 20, bb.y0 + 40, 32, 8  # DY up on screen: -DY in SDL's convention
for name, x, y in (("button_press_event", x0, y0), ("motion_notify_event", x0 + DX / 2, y0),
                   ("motion_notify_event", x0 + DX, y0 + DY),
                   ("button_release_event", x0 + DX, y0 + DY)):
    c.callbacks.process(name, MouseEvent(name, c, x, y, button=1))
for _ in range(2):
    c.callbacks.process("scroll_event", MouseEvent("scroll_event", c, x0, y0, step=1))
az, el, d = az0 - math.pi * DX / W, el0 - math.pi * DY / W, d0 * 0.9 ** 2
if not close([v.cam.azim, v.cam.elev, v.cam.dist], [az, el, d], 1e-9):
    problems.append("after the drag: camera %s, expected %s" % ([v.cam.azim, v.cam.elev, v.cam.dist],
                                                                 [az, el, d]))
v.slider.set_val(0.5)
if v.iso != 0.5:
    problems.append("slider: isovalue %s" % v.iso)
check_image("moved (DVR)", v)
c.callbacks.process("key_press_event", KeyEvent("key_press_event", c, "m"))
if v.mode != 0:
    problems.append("M: mode %d" % v.mode)
check_image("MIP", v)

for p in problems:
    print(p)
print("python viewer: %d problems" % len(problems))
sys.exit(1 if problems else 0)

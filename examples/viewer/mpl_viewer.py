"""mpl_viewer.py -- the viewer again, in Python: matplotlib on the package
`diderot` (python/diderot), with the same program (viewer.diderot) and the
same camera as the C viewer (vw_camera.c: the same closed forms).

    PYTHONPATH=python python3 examples/viewer/mpl_viewer.py [VOLUME.nrrd] [--size N] [--mip]
                                                           [--save PNG]

Drag to rotate, scroll to zoom, the slider for the isovalue, M for MIP/DVR;
the frame time is in the title. It uses only matplotlib's own events and
widgets, so it works in any interactive backend, including a notebook's
(`%matplotlib widget` with ipympl):

    from mpl_viewer import Viewer
    v = Viewer("examples/data/blobs.nrrd", size=160)

While a drag goes on it renders at a quarter of the size (matplotlib redraws
are slow, a full frame slower still), the full frame when the button is let go.
"""

import math
import os
import sys
import time

import numpy as np
import diderot

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "viewer.diderot")

# the C viewer's constants (vw_camera.h, vw_main.c)
DRAG_ANGLE_PER_WIDTH = math.pi
ELEV_LIMIT = math.radians(85.0)
ZOOM_PER_CLICK = 0.9
ZOOM_RANGE = 8.0
PREVIEW_DIV = 4


class Camera:
    """The orbit camera of vw_camera.c: azimuth and elevation around z."""

    def __init__(self, eye, at, fov=18.0):
        d = np.asarray(eye, float) - np.asarray(at, float)
        self.at = np.asarray(at, float)
        self.dist = self.dist0 = float(np.linalg.norm(d))
        self.azim = math.atan2(d[1], d[0])
        self.elev = max(-ELEV_LIMIT, min(ELEV_LIMIT, math.asin(d[2] / self.dist)))
        self.fov = fov

    def drag(self, dx, dy, view_w):
        k = DRAG_ANGLE_PER_WIDTH / max(view_w, 1)
        self.azim = math.remainder(self.azim - k * dx, 2 * math.pi)
        self.elev = max(-ELEV_LIMIT, min(ELEV_LIMIT, self.elev + k * dy))

    def zoom(self, clicks):
        self.dist = max(self.dist0 / ZOOM_RANGE,
                        min(self.dist0 * ZOOM_RANGE, self.dist * ZOOM_PER_CLICK ** clicks))

    def eye(self):
        c = math.cos(self.elev)
        return self.at + self.dist * np.array([c * math.cos(self.azim), c * math.sin(self.azim),
                                               math.sin(self.elev)])


def volume_geometry(img):
    """Centre and radius of the volume's world bounding box, and its value
    range (as vw_render.c computes them)."""
    a = np.asarray(img.data, dtype=float)
    n = a.shape  # (z, y, x): NumPy axis k steps along directions[k]
    dirs = np.asarray(img.directions, float)
    corners = [np.asarray(img.origin, float) + sum((n[k] - 1) * ((c >> k) & 1) * dirs[k]
                                                   for k in range(3)) for c in range(8)]
    lo, hi = np.min(corners, axis=0), np.max(corners, axis=0)
    vmin, vmax = float(a.min()), float(a.max())
    return (lo + hi) / 2, float(np.linalg.norm(hi - lo) / 2), vmin, (vmax if vmax > vmin else vmin + 1)


class Viewer:
    def __init__(self, volume=os.path.join(HERE, "..", "data", "blobs.nrrd"), size=128,
                 mode="dvr", fig=None, prog=None):
        import matplotlib.pyplot as plt
        from matplotlib.widgets import Slider

        self.prog = prog or diderot.compile(PROGRAM)
        self.img = volume if isinstance(volume, diderot.Image) else diderot.Image.load(volume)
        center, self.radius, self.vmin, self.vmax = volume_geometry(self.img)
        d = np.array([6.0, 4.0, 3.0]) / math.sqrt(61.0)
        self.cam0 = Camera(center + d * 4.5 * self.radius, center)
        self.cam = Camera(center + d * 4.5 * self.radius, center)
        self.size = size
        self.mode = 1 if mode == "dvr" else 0
        self.iso = self.vmin + 0.3 * (self.vmax - self.vmin)
        self.thick = 0.05 / math.sqrt(3.0) * self.radius
        self.step = 0.01 / math.sqrt(3.0) * self.radius
        self.drag_from = None

        self.fig = fig or plt.figure(figsize=(4, 4.4))
        self.ax = self.fig.add_axes([0.02, 0.12, 0.96, 0.82])
        self.ax.set_axis_off()
        self.im = self.ax.imshow(np.zeros((size, size, 3), np.float32), interpolation="nearest")
        sax = self.fig.add_axes([0.2, 0.03, 0.6, 0.04])
        self.slider = Slider(sax, "iso", self.vmin, self.vmax, valinit=self.iso)
        self.slider.on_changed(self.on_slider)
        c = self.fig.canvas
        c.mpl_connect("button_press_event", self.on_press)
        c.mpl_connect("motion_notify_event", self.on_motion)
        c.mpl_connect("button_release_event", self.on_release)
        c.mpl_connect("scroll_event", self.on_scroll)
        c.mpl_connect("key_press_event", self.on_key)
        self.render()

    def inputs(self, div=1):
        """The program's inputs for the current view (float32, as the library takes them)."""
        n = (self.size + div - 1) // div
        f = np.float32
        return dict(vol=self.img, camEye=self.cam.eye().astype(f), camAt=self.cam.at.astype(f),
                    camUp=np.array([0, 0, 1], f), camFOV=f(self.cam.fov),
                    camRadius=f(1.04 * self.radius), imgResU=n, imgResV=n,
                    rayStep=f(self.step * (2 if div > 1 else 1)), mode=self.mode,
                    isoval=f(self.iso), thick=f(self.thick))

    def render(self, div=1):
        t0 = time.perf_counter()
        out = self.prog.run(**self.inputs(div))
        ms = 1000 * (time.perf_counter() - t0)
        self.rgb = out.rgb  # (rows, columns, 3)
        self.im.set_data(np.clip(self.rgb, 0, 1))
        self.im.set_extent((-0.5, self.size - 0.5, self.size - 0.5, -0.5))
        self.ax.set_title("%s %.1f ms %dx%d%s" % ("DVR" if self.mode else "MIP", ms,
                                                  self.rgb.shape[1], self.rgb.shape[0],
                                                  " drag" if div > 1 else ""), fontsize=9)
        self.fig.canvas.draw_idle()

    def view_width_px(self):
        return self.ax.get_window_extent().width

    def on_press(self, e):
        if e.inaxes is self.ax and e.button == 1:
            self.drag_from = (e.x, e.y)

    def on_motion(self, e):
        if self.drag_from is None or e.x is None:
            return
        # matplotlib's y grows upwards, the C viewer's (SDL's) downwards
        dx, dy = e.x - self.drag_from[0], -(e.y - self.drag_from[1])
        self.drag_from = (e.x, e.y)
        self.cam.drag(dx, dy, self.view_width_px())
        self.render(PREVIEW_DIV)

    def on_release(self, e):
        if self.drag_from is not None:
            self.drag_from = None
            self.render()

    def on_scroll(self, e):
        self.cam.zoom(e.step)
        self.render()

    def on_slider(self, val):
        self.iso = float(val)
        if self.mode == 1:
            self.render()

    def on_key(self, e):
        if e.key == "m":
            self.mode = 1 - self.mode
        elif e.key == "r":
            self.cam = Camera(self.cam0.eye(), self.cam0.at)
        else:
            return
        self.render()


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="the Diderot volume viewer, in matplotlib")
    ap.add_argument("volume", nargs="?", default=os.path.join(HERE, "..", "data", "blobs.nrrd"))
    ap.add_argument("--size", type=int, default=128, help="image size in pixels (square)")
    ap.add_argument("--mip", action="store_true", help="start in MIP mode")
    ap.add_argument("--save", metavar="PNG",
                    help="no window: turn the view as a 40-pixel drag would, save the figure")
    a = ap.parse_args(argv)
    if a.save:
        import matplotlib
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    v = Viewer(a.volume, size=a.size, mode="mip" if a.mip else "dvr")
    if a.save:
        v.cam.drag(40, -10, v.view_width_px())
        v.render()
        v.fig.savefig(a.save, dpi=80)
    else:
        plt.show()


if __name__ == "__main__":
    main(sys.argv[1:])

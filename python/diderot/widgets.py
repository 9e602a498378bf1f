"""diderot.widgets: a Diderot program in a Jupyter notebook (issue 33 §3).

    import diderot, diderot.widgets
    prog = diderot.compile("mip.diderot")
    ui = diderot.widgets.ProgramWidget(prog, vol="blobs.nrrd", ranges={"camFOV": (5, 40)})
    ui                      # the panel: one field or slider per input, Run, progress, picture

Every value input of the program gets a control (a slider where a range is
given in `ranges`, else a number field; a check box for a bool, a text field
for a string, one field per component for vectors and tensors); image inputs
and anything else the panel cannot edit are given as keywords and stay
fixed. Changing a control runs the program again, a world of it stepped a
few super-steps at a time (`chunk`) with a progress bar between them; the
result is shown as a grey picture (a 2-D grid output, values vmin..vmax
black..white, by default the output's own range) or a scatter plot (a
collection: the first vec2/vec3 output's first two components). Needs
ipywidgets, and matplotlib for the pictures (Debian: python3-ipywidgets,
python3-matplotlib).
"""

import io

import numpy as np

from ._errors import DiderotError

try:
    import ipywidgets as _w
except ImportError as e:  # pragma: no cover - the package works without it
    raise ImportError("diderot.widgets needs ipywidgets (Debian package python3-ipywidgets)") from e

__all__ = ["ProgramWidget"]


def _control(name, ty, value, rng):
    """An ipywidget for one input (None: not editable here)."""
    label = name
    if ty.dynamic or ty.kind == "image":
        return None
    if ty.kind == "string" and not ty.shape:
        return _w.Text(value=value or "", description=label)
    if ty.kind == "bool" and not ty.shape:
        return _w.Checkbox(value=bool(value), description=label)
    if ty.kind not in ("int", "real"):
        return None
    if ty.shape:
        flat = np.ravel(np.zeros(ty.shape) if value is None else value)
        cls = _w.IntText if ty.kind == "int" else _w.FloatText
        parts = [cls(value=(int(v) if ty.kind == "int" else float(v)), layout=_w.Layout(width="7em"))
                 for v in flat]
        box = _w.HBox([_w.Label(label)] + parts)
        box._diderot_parts = parts
        return box
    v = 0 if value is None else value
    if rng is not None:
        lo, hi = rng
        if ty.kind == "int":
            return _w.IntSlider(value=int(v), min=int(lo), max=int(hi), description=label,
                                continuous_update=False)
        return _w.FloatSlider(value=float(v), min=float(lo), max=float(hi), step=(hi - lo) / 100.0,
                              description=label, continuous_update=False)
    if ty.kind == "int":
        return _w.IntText(value=int(v), description=label)
    return _w.FloatText(value=float(v), description=label)


def _value(ctl, ty):
    parts = getattr(ctl, "_diderot_parts", None)
    if parts is not None:
        return np.array([p.value for p in parts]).reshape(ty.shape)
    return ctl.value


def _observe(ctl, fn):
    for c in getattr(ctl, "_diderot_parts", None) or [ctl]:
        c.observe(fn, names="value")


def grey_png(values, vmin=None, vmax=None):
    """PNG bytes of a 2-D array as a grey picture, row 0 at the top, one
    pixel per value: vmin..vmax (default: the array's range) black..white."""
    from matplotlib import image as mimage
    a = np.asarray(values, dtype=np.float64)
    lo = float(np.nanmin(a)) if vmin is None else float(vmin)
    hi = float(np.nanmax(a)) if vmax is None else float(vmax)
    buf = io.BytesIO()
    mimage.imsave(buf, a, cmap="gray", vmin=lo, vmax=hi if hi > lo else lo + 1.0, format="png")
    return buf.getvalue()


def scatter_png(points, size=(4, 4)):
    """PNG bytes of a scatter plot of points' first two components."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    del matplotlib
    fig = Figure(figsize=size, dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    p = np.asarray(points, dtype=float).reshape(len(points), -1)
    ax.scatter(p[:, 0], p[:, 1], s=2)
    ax.set_aspect("equal", adjustable="datalim")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


class ProgramWidget:
    """The panel of a program (see the module's text). After a run:
    `outputs` (diderot.Outputs), `png` (the picture's bytes), `steps`;
    `error` is the message of a run that failed (shown in the panel)."""

    def __init__(self, prog, ranges=None, show=None, vmin=None, vmax=None, chunk=10,
                 steps=None, threads=None, auto=True, **fixed):
        self.program = prog
        self.fixed = dict(fixed)
        self.show, self.vmin, self.vmax = show, vmin, vmax
        self.chunk, self.max_steps, self.threads = int(chunk), steps, threads
        self.outputs = self.png = self.error = None
        self.steps = 0
        ranges = dict(ranges or {})
        unknown = set(ranges) - set(prog.inputs)
        if unknown:
            raise DiderotError("ranges for inputs the program does not have: " + ", ".join(sorted(unknown)))
        defaults = prog.defaults()
        self.controls = {}
        rows = []
        for n, ty in prog.inputs.items():
            if n in self.fixed:
                continue
            c = _control(n, ty, defaults.get(n), ranges.get(n))
            if c is not None:
                self.controls[n] = c
                # the input's description beside it (ipywidgets 6 has no tooltips)
                rows.append(_w.HBox([c, _w.Label(prog.input_descriptions.get(n) or str(ty))]))
        self.run_button = _w.Button(description="Run")
        self.run_button.on_click(lambda _b: self.run())
        self.progress = _w.FloatProgress(value=0.0, min=0.0, max=1.0, description="strands done")
        self.status = _w.Label("")
        self.picture = _w.Image(format="png")
        self.panel = _w.VBox(rows + [_w.HBox([self.run_button, self.progress, self.status]), self.picture])
        if auto:
            for n, c in self.controls.items():
                _observe(c, lambda _ch: self.run())

    def _ipython_display_(self):
        from IPython.display import display
        display(self.panel)

    def inputs(self):
        """name -> value: the controls' values and the fixed inputs."""
        vals = {n: _value(c, self.program.inputs[n]) for n, c in self.controls.items()}
        vals.update(self.fixed)
        return vals

    def run(self):
        """Run the program on the current inputs (stepwise, the progress
        bar updated between steps) and show the result; returns the
        Outputs, or None when the run failed (self.error says why)."""
        self.error = None
        self.progress.value = 0.0
        self.status.value = "running"
        try:
            with self.program.world(threads=self.threads, **self.inputs()) as w:
                self.steps = 0
                while not w.done and (self.max_steps is None or self.steps < self.max_steps):
                    n = self.chunk if self.max_steps is None else min(self.chunk, self.max_steps - self.steps)
                    taken = w.step(n)
                    self.steps += taken
                    total = w.strands
                    self.progress.value = 1.0 - (w.active / total if total else 0.0)
                    if taken == 0:
                        break
                self.outputs = w.outputs()
            self.png = self._picture(self.outputs)
            self.picture.value = self.png
            self.status.value = "%d steps" % self.steps
            return self.outputs
        except (DiderotError, TypeError, ValueError, OSError) as e:
            self.error = "%s: %s" % (type(e).__name__, e)
            self.status.value = self.error
            return None

    def _picture(self, out):
        names = list(out)
        name = self.show or names[0]
        kinds = out.nrrd_kinds(name)
        v = np.asarray(out[name])
        if kinds[-1:] == ["list"] or "list" in kinds:
            pts = next((out[n] for n in names if np.asarray(out[n]).ndim == 2
                        and np.asarray(out[n]).shape[1] in (2, 3)), None)
            if pts is None:
                raise DiderotError("no vec2/vec3 output to plot the strands at")
            return scatter_png(pts)
        if v.ndim != 2:
            raise DiderotError("output %r has shape %s: the panel shows 2-D grids of scalars"
                               % (name, v.shape))
        return grey_png(v, self.vmin, self.vmax)

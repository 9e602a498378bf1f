"""ParaView filters that run Diderot programs (issue 33 §2).

Loaded by the plugin plugins/paraview/DiderotPlugin.py inside ParaView,
pvpython or pvbatch (paraview.util.vtkAlgorithm is ParaView's). Two kinds
of filter:

  * "Diderot Program": any program, named by its Program property (a
    .diderot file); its inputs are set by the Inputs text, one
    `name = value` per line (values as in Diderot: 0.5, [1, 2, 3], true,
    "text"); the pipeline input is the program's first image input.
  * "Diderot: NAME", one per program the plugin finds when it is loaded
    (the programs installed beside it, and $DIDEROT_PARAVIEW_PROGRAMS): its
    property panel is the program's description, one property per input
    with the input's type, description and default; image inputs are the
    filter's pipeline inputs (the first required, the others optional where
    the program has a default).

Both compile through the package (so a program is compiled again only when
its source or a file it loads changes: the package's cache) and run on the
pipeline's vtkImageData; the output is a vtkImageData for a grid of strands
and a vtkPolyData of points for a collection (Outputs.to_vtk). Compiler
and runtime errors go to ParaView's output window (compiler messages with
the file:line:col of the source) and make the filter fail.
"""

import json
import os
import re
import sys
import traceback

import numpy as np
from paraview.util.vtkAlgorithm import VTKPythonAlgorithmBase, smdomain, smhint, smproperty, smproxy
from vtkmodules.vtkCommonCore import vtkOutputWindow
from vtkmodules.vtkCommonDataModel import vtkDataObject, vtkImageData, vtkPolyData
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as _SDDP

from . import _vtk
from ._errors import DiderotError

_PROGRAM_FILTERS = []


def _report(msg):
    """An error in ParaView's output window (stderr under pvbatch)."""
    vtkOutputWindow.GetInstance().DisplayErrorText("Diderot: " + msg + "\n")


def _compile(path, double=False):
    import diderot
    return diderot.compile(path, double=double)


def _kind_of(prog):
    # the source as compiled, kept in the cache entry (the description's
    # source-file names the temporary build folder)
    src = os.path.join(prog.directory, "prog.diderot")
    try:
        with open(src, encoding="utf-8") as f:
            return _vtk.strands_kind(f.read())
    except (OSError, TypeError):
        return "grid"


def parse_value(ty, text):
    """A value of a Diderot type from the text of the Inputs property."""
    t = text.strip()
    if ty.kind == "string" and not ty.shape:
        if len(t) >= 2 and t[0] == t[-1] == '"':
            return json.loads(t)
        return t
    if ty.kind == "bool" and not ty.shape:
        if t not in ("true", "false"):
            raise ValueError("expected true or false, got %r" % t)
        return t == "true"
    try:
        v = json.loads(t.replace("true", "1").replace("false", "0") if ty.shape else t)
    except ValueError:
        raise ValueError("cannot read %r as a %s" % (t, ty)) from None
    if ty.shape:
        a = np.asarray(v, dtype=bool if ty.kind == "bool" else
                       np.int64 if ty.kind == "int" else float)
        return a
    return int(v) if ty.kind == "int" else float(v)


def parse_inputs(prog, text):
    """name -> value from `name = value` lines (# starts a comment)."""
    vals = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^([A-Za-z_]\w*)\s*=\s*(.+)$", line)
        if not m:
            raise ValueError("Inputs line %d: expected `name = value`, got %r" % (n, line))
        name = m.group(1)
        if name not in prog.inputs:
            raise ValueError("Inputs line %d: the program has no input %r (inputs: %s)"
                             % (n, name, ", ".join(prog.inputs)))
        try:
            vals[name] = parse_value(prog.inputs[name], m.group(2))
        except ValueError as e:
            raise ValueError("Inputs line %d: input %r: %s" % (n, name, e)) from None
    return vals


def _run(prog, values, images, steps, points):
    """Run prog; returns the VTK data of its outputs."""
    ins = dict(values)
    for name, img in images.items():
        if img is not None:
            ins[name] = img
    out = prog.run(steps=steps or None, **ins)
    if _kind_of(prog) == "collection" or points:
        return out.to_vtk(points=points or None)
    return out.to_vtk()


def _output(self, outInfo, data):
    target = vtkDataObject.GetData(outInfo)
    if data.IsA("vtkImageData") != target.IsA("vtkImageData"):
        raise DiderotError("the program's output is a %s, the filter was set up for a %s "
                           "(Apply again)" % (data.GetClassName(), target.GetClassName()))
    # a deep copy: the arrays of Outputs.to_vtk share NumPy's memory, which
    # must not be what ParaView keeps rendering after this call returns
    target.DeepCopy(data)


def _data_object(self, request, inInfo, outInfo, kind):
    info = outInfo.GetInformationObject(0)
    cls = vtkPolyData if kind == "collection" else vtkImageData
    cur = info.Get(vtkDataObject.DATA_OBJECT())
    if cur is None or not cur.IsA(cls.__name__):
        info.Set(vtkDataObject.DATA_OBJECT(), cls())
    return 1


def _input_data(self, port):
    """The image on an input port (None where nothing is connected)."""
    if port >= self.GetNumberOfInputPorts() or not self.GetNumberOfInputConnections(port):
        return None
    return vtkImageData.GetData(self.GetInputInformation(port, 0))


def _update_inputs(self):
    """Bring every connected input up to date with its whole extent.
    RequestInformation must tell the pipeline the output's extent, and a
    program's grid size is known only once it has run on its images, which
    the pipeline hands over only after that pass: so the filter updates its
    inputs itself, then runs (the result is kept for RequestData)."""
    for port in range(self.GetNumberOfInputPorts()):
        for c in range(self.GetNumberOfInputConnections(port)):
            conn = self.GetInputConnection(port, c)
            alg, idx = conn.GetProducer(), conn.GetIndex()
            info = alg.GetOutputInformation(idx)
            if info.Has(_SDDP.WHOLE_EXTENT()):
                info.Set(_SDDP.UPDATE_EXTENT(), info.Get(_SDDP.WHOLE_EXTENT()), 6)
            alg.Update(idx)


def _key(self):
    """What a result depends on: the filter's settings and the inputs' data."""
    ins = []
    for port in range(self.GetNumberOfInputPorts()):
        d = _input_data(self, port)
        ins.append(None if d is None else (id(d), d.GetMTime()))
    return (self.GetMTime(), tuple(ins))


def _result(self, inInfo):
    """The program's VTK output for the current settings and inputs: the
    one RequestInformation computed, or computed now (raises its error)."""
    key = _key(self)
    cached = getattr(self, "_diderot_cached", None)
    if cached is None or cached[0] != key:
        try:
            cached = (key, self._compute(inInfo), None)
        except Exception as e:
            cached = (key, None, e)
        self._diderot_cached = cached
    if cached[2] is not None:
        raise cached[2]
    return cached[1]


def _request_information(self, request, inInfo, outInfo):
    """The output's extent, origin, spacing and direction (image outputs):
    without them ParaView keeps the input's (copied down by the pipeline)
    and shows only that part of the picture."""
    info = outInfo.GetInformationObject(0)
    out = info.Get(vtkDataObject.DATA_OBJECT())
    if out is None or not out.IsA("vtkImageData"):
        return 1  # points: no extent to announce
    try:
        _update_inputs(self)
        data = _result(self, inInfo)
    except Exception:
        return 1  # reported by RequestData
    if data is None or not data.IsA("vtkImageData"):
        return 1
    info.Set(_SDDP.WHOLE_EXTENT(), data.GetExtent(), 6)
    info.Set(vtkDataObject.ORIGIN(), data.GetOrigin(), 3)
    info.Set(vtkDataObject.SPACING(), data.GetSpacing(), 3)
    if hasattr(vtkDataObject, "DIRECTION"):
        m = data.GetDirectionMatrix()
        info.Set(vtkDataObject.DIRECTION(), [m.GetElement(i, j) for i in range(3) for j in range(3)], 9)
    return 1


def _request_update_extent(self, request, inInfo, outInfo):
    """Every input whole: a program may probe its images anywhere, whatever
    part of the output is asked for."""
    for port in range(len(inInfo)):
        for c in range(inInfo[port].GetNumberOfInformationObjects()):
            i = inInfo[port].GetInformationObject(c)
            if i.Has(_SDDP.WHOLE_EXTENT()):
                i.Set(_SDDP.UPDATE_EXTENT(), i.Get(_SDDP.WHOLE_EXTENT()), 6)
    return 1


def _request_data(self, request, inInfo, outInfo):
    try:
        data = _result(self, inInfo)
        self._diderot_cached = None  # ParaView keeps its own (deep) copy
        _output(self, outInfo, data)
    except Exception as e:
        self._diderot_cached = None
        _report_exception(e)
        return 0
    return 1


def _report_exception(e):
    if isinstance(e, DiderotError):
        _report(str(e))
    elif isinstance(e, (TypeError, ValueError, OSError)):
        _report("%s: %s" % (type(e).__name__, e))
    else:
        _report(traceback.format_exc())


@smproxy.filter(name="DiderotProgram", label="Diderot Program", support_reload=False)
@smhint.xml('<ShowInMenu category="Diderot" />')
@smproperty.input(name="Input", port_index=0)
@smdomain.datatype(dataTypes=["vtkImageData"], composite_data_supported=False)
class DiderotProgram(VTKPythonAlgorithmBase):
    """Any Diderot program: Program (a .diderot file) and its Inputs as text."""

    def __init__(self):
        VTKPythonAlgorithmBase.__init__(self, nInputPorts=1, nOutputPorts=1,
                                        outputType="vtkImageData")
        self._path = ""
        self._inputs = ""
        self._steps = 0
        self._points = ""
        self._double = False
        self._image = ""

    def _program(self):
        if not self._path:
            raise DiderotError("set the Program property to a .diderot file")
        return _compile(self._path, self._double)

    @smproperty.stringvector(name="Program", default_values="", number_of_elements=1)
    @smdomain.filelist()
    @smhint.filechooser(extensions="diderot", file_description="Diderot programs")
    def SetProgram(self, path):
        self._path = path
        self.Modified()

    @smproperty.stringvector(name="Inputs", default_values="", number_of_elements=1)
    @smhint.xml('<Widget type="multi_line" />')
    def SetInputs(self, text):
        self._inputs = text
        self.Modified()

    @smproperty.stringvector(name="ImageInput", label="Image input", default_values="",
                             number_of_elements=1)
    def SetImageInput(self, name):
        self._image = name
        self.Modified()

    @smproperty.intvector(name="Steps", default_values=0)
    def SetSteps(self, n):
        self._steps = int(n)
        self.Modified()

    @smproperty.stringvector(name="Points", default_values="", number_of_elements=1)
    def SetPoints(self, name):
        self._points = name
        self.Modified()

    @smproperty.intvector(name="Double", default_values=0)
    @smdomain.xml('<BooleanDomain name="bool" />')
    def SetDouble(self, v):
        self._double = bool(v)
        self.Modified()

    RequestData = _request_data
    RequestInformation = _request_information
    RequestUpdateExtent = _request_update_extent

    def RequestDataObject(self, request, inInfo, outInfo):
        try:
            kind = _kind_of(self._program()) if self._path else "grid"
        except Exception:
            kind = "grid"  # the error is reported by RequestData
        return _data_object(self, request, inInfo, outInfo, kind)

    def _compute(self, inInfo):
        prog = self._program()
        values = parse_inputs(prog, self._inputs)
        imgs = [n for n, t in prog.inputs.items() if t.kind == "image"]
        images = {}
        if imgs:
            name = self._image or imgs[0]
            if name not in imgs:
                raise DiderotError("Image input %r is not an image input of the program (%s)"
                                   % (name, ", ".join(imgs)))
            images[name] = vtkImageData.GetData(inInfo[0])
        return _run(prog, values, images, self._steps, self._points)


# ---- one filter per program, its panel from the program's description -----

def _xml_escape(s):
    return (s or "").replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _fmt(v):
    return " ".join(repr(float(x)) if isinstance(x, (float, np.floating)) else str(int(x))
                    for x in np.ravel(v))


def _property_xml(name, ty, default, doc):
    """The ServerManager XML of one input's property (None: not settable
    from the panel, e.g. dynamic sequences)."""
    cmd = "SetDiderotInput_" + name
    d = '<Documentation>%s</Documentation>' % _xml_escape(doc) if doc else ""
    if ty.dynamic or ty.kind == "image":
        return None
    n = int(np.prod(ty.shape)) if ty.shape else 1
    if ty.kind == "string":
        if ty.shape:
            return None
        return ('<StringVectorProperty name="%s" command="%s" number_of_elements="1" '
                'default_values="%s">%s</StringVectorProperty>'
                % (name, cmd, _xml_escape(default or ""), d))
    if ty.kind == "bool":
        dv = _fmt(np.asarray(default if default is not None else np.zeros(ty.shape or ()), dtype=int))
        return ('<IntVectorProperty name="%s" command="%s" number_of_elements="%d" '
                'default_values="%s"><BooleanDomain name="bool"/>%s</IntVectorProperty>'
                % (name, cmd, n, dv, d))
    tag = "IntVectorProperty" if ty.kind == "int" else "DoubleVectorProperty"
    dv = _fmt(default if default is not None else np.zeros(n))
    return ('<%s name="%s" command="%s" number_of_elements="%d" default_values="%s">%s</%s>'
            % (tag, name, cmd, n, dv, d, tag))


def _setter(name, ty):
    def set_input(self, *vals):
        if ty.kind == "string":
            v = vals[0]
        elif ty.shape:
            v = np.asarray(vals, dtype=bool if ty.kind == "bool" else
                           np.int64 if ty.kind == "int" else float).reshape(ty.shape)
        elif ty.kind == "bool":
            v = bool(vals[0])
        else:
            v = int(vals[0]) if ty.kind == "int" else float(vals[0])
        self._values[name] = v
        self.Modified()
    set_input.__name__ = "SetDiderotInput_" + name
    return set_input


def _class_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return "Diderot_" + re.sub(r"\W", "_", stem)


def program_filter(path):
    """A filter class for the program at path, its properties from the
    program's description (compiled now, or loaded from the cache)."""
    prog = _compile(path)
    defaults = prog.defaults()
    cname = _class_name(path)
    images = [n for n, t in prog.inputs.items() if t.kind == "image"]
    kind = _kind_of(prog)
    props = []
    ports = []
    for i, n in enumerate(images):
        port = "Input" if i == 0 else "Input_" + n
        opt = i > 0 and prog.has_default[n]
        ports.append((port, n))
        props.append('<InputProperty name="%s" port_index="%d" command="SetInputConnection">'
                     '<DataTypeDomain name="input_type"><DataType value="vtkImageData"/>'
                     '</DataTypeDomain><Documentation>image input %s (%s)%s</Documentation>%s'
                     '</InputProperty>'
                     % (port, i, n, _xml_escape(prog.input_descriptions.get(n) or str(prog.inputs[n])),
                        "; optional: the program's default" if opt else "",
                        "<Hints><Optional/></Hints>" if opt else ""))
    methods = {}
    for n, ty in prog.inputs.items():
        x = _property_xml(n, ty, defaults.get(n), prog.input_descriptions.get(n))
        if x is not None:
            props.append(x)
            methods["SetDiderotInput_" + n] = _setter(n, ty)
    props.append('<IntVectorProperty name="Steps" command="SetSteps" number_of_elements="1" '
                 'default_values="0"><Documentation>super-steps to run (0: until no strand '
                 'is active)</Documentation></IntVectorProperty>')
    label = "Diderot: " + os.path.splitext(os.path.basename(path))[0]
    proxy = ('<SourceProxy name="%s" class="%s.%s" label="%s" si_class="vtkSIPythonSourceProxy">'
             '<Documentation>%s (%s)</Documentation>%s'
             '<Hints><ShowInMenu category="Diderot"/></Hints></SourceProxy>'
             % (cname, __name__, cname, _xml_escape(label), _xml_escape(path),
                "points" if kind == "collection" else "image", "".join(props)))
    group = "filters" if images else "sources"
    xml = ('<ServerManagerConfiguration><ProxyGroup name="%s">%s</ProxyGroup>'
           '</ServerManagerConfiguration>' % (group, proxy))

    def __init__(self):
        VTKPythonAlgorithmBase.__init__(
            self, nInputPorts=len(images), nOutputPorts=1,
            outputType="vtkPolyData" if kind == "collection" else "vtkImageData")
        self._values = {}
        self._steps = 0

    def SetSteps(self, n):
        self._steps = int(n)
        self.Modified()

    def FillInputPortInformation(self, port, info):
        info.Set(self.INPUT_REQUIRED_DATA_TYPE(), "vtkImageData")
        if port > 0:
            info.Set(self.INPUT_IS_OPTIONAL(), 1)
        return 1

    def RequestDataObject(self, request, inInfo, outInfo):
        return _data_object(self, request, inInfo, outInfo, kind)

    def _compute(self, inInfo):
        p = _compile(path)  # the cache: compiled again only if the source changed
        imgs = {}
        for i, (_, n) in enumerate(ports):
            d = vtkImageData.GetData(inInfo[i]) if inInfo[i].GetNumberOfInformationObjects() else None
            if d is None and not p.has_default[n]:
                raise DiderotError("image input %r has no pipeline input and no default" % n)
            imgs[n] = d
        return _run(p, self._values, imgs, self._steps, None)

    ns = dict(methods, __init__=__init__, SetSteps=SetSteps, RequestData=_request_data, _compute=_compute,
              RequestInformation=_request_information, RequestUpdateExtent=_request_update_extent,
              RequestDataObject=RequestDataObject,
              FillInputPortInformation=FillInputPortInformation, _pvsm_proxy_xml=xml,
              __module__=__name__, __doc__="Diderot program %s" % path)
    cls = type(cname, (VTKPythonAlgorithmBase,), ns)
    setattr(sys.modules[__name__], cname, cls)  # ParaView finds the class by module and name
    return cls


def program_paths(extra_dirs=()):
    """The programs to make filters of: $DIDEROT_PARAVIEW_PROGRAMS (files or
    folders, separated by os.pathsep), then the given folders (the plugin's
    programs/); each folder's */*.diderot and *.diderot."""
    found = []
    entries = [e for e in os.environ.get("DIDEROT_PARAVIEW_PROGRAMS", "").split(os.pathsep) if e]
    for e in entries + list(extra_dirs):
        if os.path.isfile(e):
            found.append(os.path.abspath(e))
        elif os.path.isdir(e):
            for root in [e] + sorted(os.path.join(e, d) for d in os.listdir(e)):
                if os.path.isdir(root):
                    found += sorted(os.path.join(root, f) for f in os.listdir(root)
                                    if f.endswith(".diderot"))
    seen, out = set(), []
    for p in found:
        if _class_name(p) not in seen:
            seen.add(_class_name(p))
            out.append(p)
    return out


def filters(extra_dirs=()):
    """name -> class of every filter, for the plugin's module: the generic
    one and one per program found (a program that does not compile is
    reported and left out)."""
    out = {"DiderotProgram": DiderotProgram}
    for p in program_paths(extra_dirs):
        try:
            out[_class_name(p)] = program_filter(p)
        except Exception as e:  # a broken program must not stop the plugin
            _report("%s: not made a filter: %s" % (p, e))
    return out

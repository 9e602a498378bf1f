"""diderot: compile Diderot programs and run them on NumPy arrays.

    import diderot, numpy as np
    prog = diderot.compile("examples/mip/mip.diderot")
    out = prog.run(vol=diderot.Image(volume, spacing=(0.1, 0.1, 0.1)), imgResU=128)
    out.mip                      # a NumPy array, shape (imgResV, imgResU)
    out.save_nrrd("mip.nrrd")    # the file the executable writes

See python/README.md for the conventions (axis order, images, sequences,
errors, threads, the cache).
"""

from ._compile import default_cache_dir, find_diderotc
from ._compile import build as _build
from ._errors import (CompileError, DescriptionError, DiderotError, InputError, InputFileNotFoundError,
                      OutOfMemoryError, RunError)
from ._image import Image
from ._program import Outputs, Program, Progress, Sequences, World

__all__ = ["compile", "Program", "World", "Outputs", "Sequences", "Image", "Progress",
           "DiderotError", "CompileError", "DescriptionError", "InputError", "InputFileNotFoundError", "RunError",
           "OutOfMemoryError",
           "default_cache_dir", "find_diderotc"]


def compile(path_or_source, double=False, target="seq", *, cache_dir=None, diderotc=None,
            base_dir=None, force=False, **options):
    """Compile a Diderot program (a file name or the source text) into a
    shared library and load it; returns a Program.

    double: real is C double (--double); target: "seq" or "omp" (OpenMP,
    run with threads=). Options: snapshot (default True: World.snapshot()),
    long_int, scalar, debug, strand_layout, image_layout, no_space_partition,
    constants (a dict: --Cname=value), flags (more diderotc arguments),
    tune ("quick" or "full": diderotc --tune, which times the run-time
    schedule's candidates on tune_args, the program's command line as a
    string or a list of words, files relative to the current directory,
    and caches the winner; tune_steps=N times the first N super-steps) and
    tune_args alone (the tuned schedule of those inputs from diderotc's
    cache, if any). Program.messages holds what diderotc said.

    Relative file names in the program (proxy images, defaults) are taken
    relative to the program's file (base_dir, or the current directory, for
    source text). Results are cached under cache_dir (default
    $DIDEROT_CACHE_DIR, else $XDG_CACHE_HOME/diderot or ~/.cache/diderot),
    keyed by the source, the files it loads, the options and the compiler;
    force=True compiles again. diderotc: the compiler to use (default
    $DIDEROTC, the installed one, then PATH). Raises CompileError with
    diderotc's messages when the program is rejected.
    """
    directory, cached = _build(path_or_source, double, target, options, cache_dir=cache_dir,
                               diderotc=diderotc, base_dir=base_dir, force=force)
    return Program(directory, cached)

"""The package's exceptions."""

import re


class DiderotError(Exception):
    """Base class of the errors this package raises for a program."""


class CompileError(DiderotError):
    """diderotc rejected the program; the message is its diagnostics."""

    def __init__(self, message, status=None, command=None):
        super().__init__(message)
        self.status = status
        self.command = command


class DescriptionError(DiderotError):
    """A compiled program's description (prog.json in its cache folder) is
    damaged or not one this package can read; the message names the file
    and what is wrong (diderot._describe)."""


class InputError(DiderotError, ValueError):
    """The runtime refused an input (an image of the wrong type, shape or
    dimension, an unreadable file); the message is the runtime's."""


class InputFileNotFoundError(InputError, FileNotFoundError):
    """An input names a file that does not exist."""


class RunError(DiderotError, RuntimeError):
    """The runtime reported an error while creating strands or running."""


class OutOfMemoryError(RunError, MemoryError):
    """The runtime refused to create strands or an output that do not fit
    the memory this process may use ("4e10 strands of 24 bytes need 960 GB;
    this process may use 23 GB (cgroup memory.max)"), or an allocation
    failed ("out of memory: ..."). Also a MemoryError, so that
    `except MemoryError` sees it."""


# what the runtime's memory errors say (rt/rt_mem.c drt_mem_describe)
_MEMORY_RE = re.compile(r"; this process may use | of the GPU's memory; it has |\bout of memory\b")


def run_error(msg):
    """The exception for the runtime's message MSG: OutOfMemoryError for a
    memory error, else RunError."""
    return (OutOfMemoryError if _MEMORY_RE.search(msg) else RunError)(msg)

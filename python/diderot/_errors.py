"""The package's exceptions."""


class DiderotError(Exception):
    """Base class of the errors this package raises for a program."""


class CompileError(DiderotError):
    """diderotc rejected the program; the message is its diagnostics."""

    def __init__(self, message, status=None, command=None):
        super().__init__(message)
        self.status = status
        self.command = command


class InputError(DiderotError, ValueError):
    """The runtime refused an input (an image of the wrong type, shape or
    dimension, an unreadable file); the message is the runtime's."""


class InputFileNotFoundError(InputError, FileNotFoundError):
    """An input names a file that does not exist."""


class RunError(DiderotError, RuntimeError):
    """The runtime reported an error while creating strands or running."""

"""The one kind of error a user can cause: bad input. Everything else is our bug.

The CLI catches `UsageError` only: it prints the message on one line and exits with status 2.
Any other exception keeps its traceback, because it means the code is wrong, not the input.
Pages show a `UsageError` as a notice and carry on.
"""
from __future__ import annotations


class UsageError(ValueError):
    """Bad input from a user: a knob out of range, an unknown name, a file that is not a
    recording, a path that cannot be written, a GPU asked for where there is none."""


class RecordingError(UsageError):
    """A recording file that cannot be used: unreadable, truncated, foreign or incomplete.
    The message names the file and the field."""


class NoCudaDevice(UsageError):
    """Backend "cuda" was asked for, and torch sees no CUDA device here."""


class CaptureError(RuntimeError):
    """A CUDA graph capture that failed, for example because the captured region synchronized
    (a sync cannot be recorded). The capture is abandoned and the device stays usable; the
    message says what was not allowed. Not a UsageError: it is the captured code that is wrong."""

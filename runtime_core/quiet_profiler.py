"""torch.profiler without its native chatter: Kineto prints "USDT: ... profiler_start" and
"profiler_stop" lines (and "STAGE: ...") straight to file descriptor 2 each time a profile starts
and stops, whatever its log level, and a classroom server's terminal filled with them.

    with quiet_profile(activities=[ProfilerActivity.CPU]) as prof:
        ...

Only the profiler's own start and stop run with fd 2 pointed at /dev/null; the profiled region
keeps its stderr, so a real error inside it is still seen.
"""
from __future__ import annotations

import contextlib
import os
import sys


@contextlib.contextmanager
def native_stderr_silenced():
    """Point file descriptor 2 at /dev/null for the body (Python's sys.stderr is flushed first)."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


@contextlib.contextmanager
def quiet_profile(**kwargs):
    """torch.profiler.profile(**kwargs), its start and stop silenced; yields the profile."""
    from torch.profiler import profile
    prof = profile(**kwargs)
    with native_stderr_silenced():
        prof.__enter__()
    try:
        yield prof
    except BaseException:
        with native_stderr_silenced():
            prof.__exit__(*sys.exc_info())
        raise
    with native_stderr_silenced():
        prof.__exit__(None, None, None)

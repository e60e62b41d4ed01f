"""Which CPU cores the measuring thread runs on: migrations between cores add timing noise, so
timing runs pinned to one core (the middle one of those this process may use, when it has more
than two), and children that need every core get them back (the trace worker)."""
from __future__ import annotations

import contextlib
import os


def pin_to_one_core() -> set[int] | None:
    """Pin this process to one core; returns the cores it had (None where affinity is not
    available, or with two cores or fewer, where nothing changes)."""
    try:
        before = os.sched_getaffinity(0)
        cores = sorted(before)
        if len(cores) > 2:
            os.sched_setaffinity(0, {cores[len(cores) // 2]})
            return before
    except (AttributeError, OSError):
        pass
    return None


@contextlib.contextmanager
def one_core():
    """Run the enclosed timing on one core, then give the process its cores back (torch.compile's
    workers, started later, need them)."""
    before = pin_to_one_core()
    try:
        yield
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)


def all_cores() -> None:
    """In a child process: run on any core, even if the parent pinned itself to one."""
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except (AttributeError, OSError):
        pass

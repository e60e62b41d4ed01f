"""File locks on the AOT cache: who may build, use or clear what under .cache/aot/, across threads
and processes.

    file_lock(path)      flock(2) on a lock file: exclusive (or shared) between every thread and
                         process that opens it. Each call opens the file anew, so two threads of one
                         process exclude each other too (flock belongs to the open file, not the
                         process; a POSIX fcntl lock would not).
    cache_in_use()       a shared lock on <root>/.in-use.lock for as long as files under the cache
                         are read, run or built. Re-entrant per thread.
    cache_exclusive()    the exclusive side of it: "clear cache" waits until nobody uses the cache.

Lock files live at the top of the cache root (".in-use.lock", ".measure.lock") and are never
deleted by clear_cache: a lock on a deleted file would no longer exclude anyone.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from pathlib import Path

from .cache_paths import cache_root

IN_USE_LOCK = ".in-use.lock"
MEASURE_LOCK = ".measure.lock"
LOCK_FILES = (IN_USE_LOCK, MEASURE_LOCK)

_held = threading.local()  # per thread: {cache root: depth} of cache_in_use()


@contextlib.contextmanager
def file_lock(path: str | Path, shared: bool = False, on_wait=None, poll_s: float = 0.25,
              timeout_s: float | None = None):
    """Hold flock on `path` (created if missing) for the body.

    Args:
        shared: LOCK_SH instead of LOCK_EX.
        on_wait: called with no argument if the lock is busy, then about every second while it
            stays busy (the lock is polled meanwhile).
        poll_s: seconds between polls while busy.
        timeout_s: give up after this long (TimeoutError).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        op = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        try:
            fcntl.flock(fd, op | fcntl.LOCK_NB)
        except BlockingIOError:
            deadline = None if timeout_s is None else time.monotonic() + timeout_s
            told_at = -1e9
            while True:
                if deadline is None and on_wait is None:
                    fcntl.flock(fd, op)  # nobody to tell: just block
                    break
                if on_wait is not None and time.monotonic() - told_at >= 1.0:
                    told_at = time.monotonic()
                    on_wait()
                try:
                    fcntl.flock(fd, op | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() > deadline:
                        raise TimeoutError(f"{path} stayed locked for {timeout_s:g} s") from None
                    time.sleep(poll_s)
        yield
    finally:
        os.close(fd)  # closing the file releases its lock


@contextlib.contextmanager
def cache_in_use():
    """A shared hold on the cache root: "clear cache" waits until every holder is done."""
    root = str(cache_root())
    depth = getattr(_held, "depth", None)
    if depth is None:
        depth = _held.depth = {}
    if depth.get(root, 0):  # this thread holds it already (a build inside a measurement)
        depth[root] += 1
        try:
            yield
        finally:
            depth[root] -= 1
        return
    with file_lock(Path(root) / IN_USE_LOCK, shared=True):
        depth[root] = 1
        try:
            yield
        finally:
            depth[root] = 0


@contextlib.contextmanager
def cache_exclusive(on_wait=None):
    """The cache to ourselves: no build, run or measurement holds any part of it.

    Raises:
        RuntimeError: this thread itself uses the cache (it would wait for itself forever).
    """
    if (getattr(_held, "depth", None) or {}).get(str(cache_root()), 0):
        raise RuntimeError("the AOT cache cannot be cleared from inside a use of it (a build, a run "
                           "or a measurement in this thread)")
    with file_lock(cache_root() / IN_USE_LOCK, shared=False, on_wait=on_wait):
        yield

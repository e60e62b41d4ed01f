"""File locks on the AOT cache, through the `filelock` package: who may build, use or clear what
under .cache/aot/, across threads and processes.

    file_lock(path)      an exclusive filelock.FileLock. Each call takes a fresh lock object, so two
                         threads of one process exclude each other too.
    cache_in_use()       a shared (read) hold of filelock.ReadWriteLock on <root>/.in-use.lock for
                         as long as files under the cache are read, run or built. Re-entrant per
                         thread.
    cache_exclusive()    the exclusive (write) side of it: "clear cache" waits until nobody uses
                         the cache.

Lock files live at the top of the cache root (".in-use.lock", ".measure.lock") and are never
deleted by clear_cache: a lock on a deleted file would no longer exclude anyone.
"""
from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

from filelock import FileLock, ReadWriteLock, Timeout

from .cache_paths import cache_root

IN_USE_LOCK = ".in-use.lock"
MEASURE_LOCK = ".measure.lock"
LOCK_FILES = (IN_USE_LOCK, MEASURE_LOCK)

_held = threading.local()  # per thread: {cache root: depth} of cache_in_use()


def _acquire(acquire, path: Path, on_wait, poll_s: float, timeout_s: float | None) -> None:
    """Call acquire(timeout=...) until it succeeds, telling on_wait about every second."""
    try:
        acquire(timeout=0)
        return
    except Timeout:
        pass
    if on_wait is None and timeout_s is None:
        acquire(timeout=-1)  # nobody to tell: just block
        return
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        if on_wait is not None:
            on_wait()
        step = 1.0 if deadline is None else max(0.0, min(1.0, deadline - time.monotonic()))
        try:
            acquire(timeout=step, poll_s=poll_s)
            return
        except Timeout:
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"{path} stayed locked for {timeout_s:g} s") from None


@contextlib.contextmanager
def file_lock(path: str | Path, on_wait=None, poll_s: float = 0.25, timeout_s: float | None = None):
    """Hold an exclusive lock on `path` (created if missing) for the body.

    Args:
        on_wait: called with no argument if the lock is busy, then about every second while it
            stays busy.
        poll_s: seconds between polls while busy.
        timeout_s: give up after this long (TimeoutError).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path)

    def acquire(timeout, poll_s=0.05):
        lock.acquire(timeout=timeout, poll_interval=poll_s)
    _acquire(acquire, path, on_wait, poll_s, timeout_s)
    try:
        yield
    finally:
        lock.release()


@contextlib.contextmanager
def _rw_lock(path: Path, write: bool, on_wait=None, poll_s: float = 0.25):
    """A read (shared) or write (exclusive) hold on the ReadWriteLock at `path`. A fresh lock
    object per hold, so that threads of one process wait for each other (filelock's rule)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = ReadWriteLock(path, is_singleton=False)
    take = lock.acquire_write if write else lock.acquire_read

    def acquire(timeout, poll_s=None):
        take(timeout=timeout, blocking=timeout != 0)
    try:
        _acquire(acquire, path, on_wait, poll_s, None)
        try:
            yield
        finally:
            lock.release()
    finally:
        lock.close()


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
    with _rw_lock(Path(root) / IN_USE_LOCK, write=False):
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
    with _rw_lock(cache_root() / IN_USE_LOCK, write=True, on_wait=on_wait):
        yield

"""Clearing the AOT lesson's files: everything under one directory, .cache/aot/ (where it is:
../cache_paths.py).

One directory so the page's "clear cache" button (and `aot clear-cache`) resets it all:
compiled packages, the C++ runner binary, Inductor's compile caches and measured results.
Clearing takes its turn in the AOT queue (queue.py) and then the cache to itself
(../cache_lock.py), so it waits for a measurement or a build in progress instead of pulling files
from under it. The lock files at the top of the root stay: they are how everyone agrees.
"""
from __future__ import annotations

import shutil

from ..cache_paths import cache_root


def clear_cache(on_wait=None) -> int:
    """Delete everything under the cache root but its lock files, once no measurement, build or
    run uses it. Returns how many bytes were freed.

    Args:
        on_wait: called while waiting: with a queue.Waiting for the AOT queue, then with a
            queue.Waiting(other_process=True) while a build or run still holds the cache.
    """
    from ..cache_lock import LOCK_FILES, cache_exclusive
    from .queue import Waiting, aot_turn
    root = cache_root()
    if not root.exists():
        return 0
    with aot_turn(on_wait=on_wait):
        with cache_exclusive(on_wait=(lambda: on_wait(Waiting(1, other_process=True))) if on_wait else None):
            freed = 0
            for entry in list(root.iterdir()):
                if entry.name in LOCK_FILES:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    freed += sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    freed += entry.stat().st_size
                    entry.unlink(missing_ok=True)
            return freed

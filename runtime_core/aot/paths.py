"""Clearing the AOT lesson's files: everything under one directory, .cache/aot/ (where it is:
../cache_paths.py).

One directory so the page's "clear cache" button (and `aot clear-cache`) resets it all:
compiled packages, the C++ runner binary, Inductor's compile caches and measured results.
Clearing takes its turn in the AOT queue (queue.py) and then the cache to itself
(../cache_lock.py), so it waits for a measurement or a build in progress instead of pulling files
from under it. The lock files at the top of the root stay: they are how everyone agrees.

The root is ours only if we made it: a marker file is written when the folder is created (or
found empty), and clear_cache deletes nothing in a folder without it. RUNTIME_CORE_AOT_CACHE
must be an absolute path; an empty or relative value, a file, or a folder that is the current
directory, a home directory, `/` or a git checkout is refused in one line (UsageError).
"""
from __future__ import annotations

import shutil

from ..cache_paths import MARKER, cache_dir, cache_root, forbidden_reason, shown_root  # noqa: F401  cache_dir, shown_root: for importers
from ..errors import UsageError


def clear_cache(on_wait=None) -> int:
    """Delete everything under the cache root but its lock files and marker, once no
    measurement, build or run uses it. Returns how many bytes were freed. A root without our
    marker, or one that may never be a cache, is refused (UsageError) and nothing is deleted.

    Args:
        on_wait: called while waiting: with a queue.Waiting for the AOT queue, then with a
            queue.Waiting(other_process=True) while a build or run still holds the cache.
    """
    from ..cache_lock import LOCK_FILES, cache_exclusive
    from .queue import Waiting, aot_turn
    root = cache_root()
    with aot_turn(on_wait=on_wait):
        with cache_exclusive(on_wait=(lambda: on_wait(Waiting(1, other_process=True))) if on_wait else None):
            why = forbidden_reason(root) or (None if (root / MARKER).is_file() else "it has no AOT-cache marker")
            if why:
                raise UsageError(f"not clearing {str(root)[:200]!r}: {why}")
            freed = 0
            for entry in list(root.iterdir()):
                if entry.name in LOCK_FILES or entry.name == MARKER:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    freed += sum(f.stat().st_size for f in entry.rglob("*") if f.is_file() and not f.is_symlink())
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    freed += entry.lstat().st_size
                    entry.unlink(missing_ok=True)
            return freed

"""Build a cache file once, however many threads and processes ask for it at the same moment.

    path, built = build_once(target, build, mode=0o755, cap=RUNNER_CAP)

`build(tmp)` makes the file at the temporary path it is given (a compiler's `-o`). The recipe:

1. fast path: the target exists (and is executable when `mode` says so): use it, no lock.
2. otherwise hold a shared lock on the whole cache (cache_in_use: "clear cache" waits) and an
   exclusive flock on <folder>/.build.lock (one builder per folder, across threads and
   processes), and look again: another builder may have finished while this one waited.
3. leftovers of builders that were killed (".<name>.<pid>-<thread>-<token>.tmp...") are deleted:
   under the folder's lock nobody else can be writing them.
4. build into a fresh temporary name beside the target (process id AND thread id in it: every
   Streamlit session is a thread of one process, so a pid alone is shared by all of them).
5. set the mode (the execute bit) on the finished file, then os.replace it onto the target, so
   the name never points at a half-written file or one without its execute bit.
6. whatever happens, the temporary file or folder is removed (try/finally); then the folder is
   held to its cap (newest N files, at most M bytes), oldest evicted first.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import atomic
from .cache_lock import cache_in_use, file_lock

BUILD_LOCK = ".build.lock"


@dataclass(frozen=True)
class Cap:
    """How much of one cache folder to keep: the newest `keep_newest` files matching `pattern`,
    and at most `max_bytes` of them in all (the file just built is always kept)."""

    pattern: str
    keep_newest: int
    max_bytes: int


def ready(target: Path, mode: int | None = None) -> bool:
    """The target is a complete file, executable when `mode` asks for an execute bit."""
    if not target.is_file():
        return False
    return not (mode is not None and mode & 0o111) or os.access(target, os.X_OK)


def build_once(target: str | Path, build: Callable[[Path], None], mode: int | None = None,
               cap: Cap | None = None, tmp_suffix: str = "") -> tuple[Path, bool]:
    """Make sure `target` exists, building it with `build(tmp_path)` at most once at a time.

    Args:
        target: the cache file.
        build: writes the file at the path it is given; raises on failure.
        mode: file mode to give it before it appears (0o755 for an executable); default: what
            open() would give.
        cap: keep the folder within this cap after a build.
        tmp_suffix: a suffix the builder insists on (".pt2" for AOTInductor packages).
    Returns:
        (target, built): built is False when the file was already there.
    """
    target = Path(target)
    if ready(target, mode):
        return target, False
    with cache_in_use():
        target.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(target.parent / BUILD_LOCK):
            if ready(target, mode):  # built by whoever held the lock before us
                return target, False
            remove_stale_temps(target.parent)
            tmp = atomic.temp_path(target, suffix=tmp_suffix)
            try:
                build(tmp)
                if not tmp.is_file():
                    raise RuntimeError(f"building {target.name} produced no file")
                atomic.publish(tmp, target, mode=mode)
            finally:
                _remove(tmp)
            if cap is not None:
                evict(target.parent, cap, protect=target)
            return target, True


def is_temp(name: str) -> bool:
    """A temporary name made by atomic.temp_path or atomic.write_* (".<name>.<...>.tmp[.suffix]")."""
    return name.startswith(".") and (atomic.TMP_SUFFIX + ".") in name + "." and not name.endswith(".lock")


def remove_stale_temps(folder: Path) -> int:
    """Delete temporary files and folders left in `folder` by killed builders; returns how many.
    Call only under the folder's build lock."""
    n = 0
    for p in list(folder.iterdir()):
        if is_temp(p.name):
            _remove(p)
            n += 1
    return n


def evict(folder: Path, cap: Cap, protect: Path | None = None) -> list[str]:
    """Hold `folder` to `cap`: delete the oldest matching files beyond `keep_newest`, then the
    oldest until the total is within `max_bytes`. Never deletes `protect`. Returns the names."""
    files = [p for p in folder.glob(cap.pattern) if p.is_file() and not is_temp(p.name)]
    files.sort(key=lambda p: p.stat().st_mtime, reverse=True)  # newest first
    keep, gone = [], []
    total = 0
    for p in files:
        size = p.stat().st_size
        if p == protect or (len(keep) < cap.keep_newest and total + size <= cap.max_bytes):
            keep.append(p)
            total += size
        else:
            gone.append(p)
    for p in gone:
        p.unlink(missing_ok=True)
    return [p.name for p in gone]


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        p.unlink(missing_ok=True)

"""Where the cached files live: everything under one directory, .cache/aot/ (compiled packages,
C++ binaries, Inductor's compile caches, measured results).

In the base layer because more than the AOT lesson builds there: engine/cuda/native.py caches its
C++ chain launcher under it too. Clearing it is aot/paths.py's clear_cache().

The root is ours only if we made it: a marker file is written when the folder is created (or
found empty), and clear_cache deletes nothing in a folder without it. RUNTIME_CORE_AOT_CACHE
must be an absolute path; an empty or relative value, a file, or a folder that is the current
directory, a home directory, `/` or a git checkout is refused in one line (UsageError).
"""
from __future__ import annotations

import os
from pathlib import Path

from .errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
ENV = "RUNTIME_CORE_AOT_CACHE"
MARKER = ".runtime-core-aot-cache"   # written when we create the root: "this folder is ours"
_OURS_ALWAYS = (MARKER, ".in-use.lock", ".measure.lock")  # names a fresh root may already hold
_RESOLVED: dict[str, Path] = {}


def default_root() -> Path:
    return ROOT / ".cache" / "aot"


def cache_root() -> Path:
    """The AOT cache folder (.cache/aot/ under the repo; RUNTIME_CORE_AOT_CACHE overrides it),
    created with its marker on first use. Resolved once per value of the variable.

    Raises:
        UsageError: the variable is empty or relative, or names a folder that is not ours to use.
    """
    raw = os.environ.get(ENV)
    key = "\0default" if raw is None else raw
    if key not in _RESOLVED:
        p = default_root() if raw is None else _parse(raw)
        why = forbidden_reason(p)
        if why:
            raise UsageError(f"{ENV}={str(p)[:200]!r} cannot be the AOT cache: {why}")
        _RESOLVED[key] = p
    p = _RESOLVED[key]
    return p if (p / MARKER).is_file() else _claim(p, raw is None)


def shown_root() -> str:
    """The AOT cache folder as a message names it: .cache/aot/ (relative to the repository) by
    default, the absolute folder RUNTIME_CORE_AOT_CACHE names otherwise; in words where it is refused."""
    try:
        p = cache_root()
    except UsageError:
        return "the AOT cache folder"
    try:
        return f"{p.relative_to(ROOT).as_posix()}/"
    except ValueError:
        return f"{p.as_posix()}/"


def _parse(raw: str) -> Path:
    if not raw.strip():
        raise UsageError(f"{ENV} is set but empty: give an absolute folder path, or unset it "
                         "for the default .cache/aot/")
    p = Path(raw)
    if not p.is_absolute():
        raise UsageError(f"{ENV}={raw[:200]!r} is not an absolute path: give one "
                         "(e.g. /tmp/runtime-aot-cache), or unset it")
    return Path(os.path.abspath(p))


def forbidden_reason(p: Path) -> str | None:
    """Why `p` may never be the cache (and so never be cleared), or None."""
    real = Path(os.path.realpath(p))
    homes = {Path(os.path.realpath(Path.home()))}
    if os.environ.get("HOME"):
        homes.add(Path(os.path.realpath(os.environ["HOME"])))
    if real == Path("/"):
        return "it is /"
    if real == Path(os.path.realpath(os.getcwd())):
        return "it is the current directory"
    if real in homes:
        return "it is a home directory"
    if (real / ".git").exists():
        return "it holds .git (a source checkout)"
    if real in (ROOT, *ROOT.parents):
        return "it holds this app's own files"
    return None


def _claim(p: Path, default: bool) -> Path:
    try:
        if p.exists() and not p.is_dir():
            raise UsageError(f"{ENV}={str(p)[:200]!r} is not a folder")
        p.mkdir(parents=True, exist_ok=True)
        marker = p / MARKER
        if not marker.exists():
            others = [e.name for e in p.iterdir() if e.name not in _OURS_ALWAYS]
            # another thread or process may have claimed it meanwhile: it writes the marker
            # before it puts anything else there, so look for the marker again after the listing
            if others and not default and not marker.exists():  # the default .cache/aot/ predates the marker
                raise UsageError(f"{ENV}={str(p)[:200]!r} already holds other files and is not an AOT "
                                 "cache (no marker): point it at a new or empty folder")
            marker.write_text("runtime_core AOT cache: clear-cache may empty this folder\n")
        if not os.access(p, os.W_OK | os.X_OK):
            raise UsageError(f"the AOT cache {str(p)[:200]!r} is not writable")
    except OSError as e:
        raise UsageError(f"the AOT cache {str(p)[:200]!r} cannot be used: {e.strerror or e}") from None
    return p


def cache_dir(*parts: str) -> Path:
    """A subdirectory of the cache root, created on first use."""
    p = cache_root().joinpath(*parts)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"the AOT cache folder {str(p)[:200]!r} cannot be created: {e.strerror or e}") from None
    return p


def torch_tag() -> str:
    """The torch version as a file-name-safe string, e.g. "2.13.0-cpu"."""
    import torch
    return torch.__version__.replace("+", "-")

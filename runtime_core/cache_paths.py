"""Where the cached files live: everything under one directory, .cache/aot/ (compiled packages,
C++ binaries, Inductor's compile caches, measured results).

In the base layer because more than the AOT lesson builds there: engine/cuda/native.py caches its
C++ chain launcher under it too. Clearing it is aot/paths.py's clear_cache().
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cache_root() -> Path:
    """.cache/aot/ under the repo (RUNTIME_CORE_AOT_CACHE overrides it, e.g. for tests)."""
    return Path(os.environ.get("RUNTIME_CORE_AOT_CACHE", ROOT / ".cache" / "aot"))


def cache_dir(*parts: str) -> Path:
    """A subdirectory of the cache root, created on first use."""
    p = cache_root().joinpath(*parts)
    p.mkdir(parents=True, exist_ok=True)
    return p


def torch_tag() -> str:
    """The torch version as a file-name-safe string, e.g. "2.13.0-cpu"."""
    import torch
    return torch.__version__.replace("+", "-")

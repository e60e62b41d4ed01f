"""Where the AOT lesson keeps its files: everything under one directory, .cache/aot/.

One directory so the page's "clear cache" button (and `rm -rf .cache/aot`) resets it all:
compiled packages, the C++ runner binary, Inductor's compile caches and measured results.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cache_root() -> Path:
    """.cache/aot/ under the repo (RUNTIME_CORE_AOT_CACHE overrides it, e.g. for tests)."""
    return Path(os.environ.get("RUNTIME_CORE_AOT_CACHE", ROOT / ".cache" / "aot"))


def cache_dir(*parts: str) -> Path:
    """A subdirectory of the cache root, created on first use."""
    p = cache_root().joinpath(*parts)
    p.mkdir(parents=True, exist_ok=True)
    return p


def clear_cache() -> int:
    """Delete everything under the cache root. Returns how many bytes were freed."""
    root = cache_root()
    if not root.exists():
        return 0
    freed = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
    shutil.rmtree(root)
    return freed


def torch_tag() -> str:
    """The torch version as a file-name-safe string, e.g. "2.13.0-cpu"."""
    import torch
    return torch.__version__.replace("+", "-")

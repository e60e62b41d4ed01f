"""Find a page file from the short names lesson data uses ("CUDA_graphs" -> pages/4_CUDA_graphs.py)."""
from __future__ import annotations

from pathlib import Path

PAGES = Path(__file__).resolve().parents[1]


def page_for(name: str) -> str | None:
    """"pages/<k>_<name>.py" for the page whose file name ends in `name`, or None if none does."""
    hits = sorted(PAGES.glob(f"*_{name}.py"))
    return f"pages/{hits[0].name}" if hits else None


def page_title(path: str) -> str:
    """"pages/4_CUDA_graphs.py" -> "CUDA graphs"."""
    return Path(path).stem.split("_", 1)[1].replace("_", " ")

"""The reduce-overhead lab on CUDA: torch.compile(mode="reduce-overhead") live, in a child."""
from __future__ import annotations

from .points import finish


def run() -> dict:
    """The lab live on this GPU, in a child process (aot/ro_lab.py)."""
    from ...aot.ro_lab import run_in_child
    points = run_in_child("cuda")
    return finish(points, backend="cuda", source="live", device_name=points.get("device_name", "cuda"))

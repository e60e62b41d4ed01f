"""Allocator statistics in PyTorch's grammar (`allocated_bytes.current`, `reserved_bytes.peak`, ...).

allocated: bytes of blocks handed out (rounded sizes, as torch.cuda.memory_allocated reports).
reserved:  bytes the pool holds from the backend (torch.cuda.memory_reserved).
fragmentation = 1 - largest_free_block / free_reserved_bytes, over blocks that are free now:
0 when all free memory is one block (or nothing is free), near 1 when it is scattered in
many small holes. Blocks waiting for a stream event are not free yet and are not counted.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stat:
    """A current value and the peak it ever reached."""

    current: int = 0
    peak: int = 0

    def add(self, delta: int) -> None:
        self.current += delta
        self.peak = max(self.peak, self.current)

    def reset_peak(self) -> None:
        self.peak = self.current


@dataclass
class Sample:
    """One point of memory-over-time: after event number `step`, at host time `t_us`."""

    step: int
    t_us: float
    allocated_bytes: int
    reserved_bytes: int
    what: str


@dataclass
class PoolStats:
    """Counters kept by CachingPool; read them through CachingPool.stats()."""

    allocated_bytes: Stat = field(default_factory=Stat)
    requested_bytes: Stat = field(default_factory=Stat)
    reserved_bytes: Stat = field(default_factory=Stat)
    active_blocks: Stat = field(default_factory=Stat)
    num_allocs: int = 0
    num_frees: int = 0
    num_alloc_retries: int = 0
    num_ooms: int = 0
    timeline: list[Sample] = field(default_factory=list)

    def as_dict(self) -> dict:
        """Flat {"allocated_bytes.current": ..., "allocated_bytes.peak": ..., ...}."""
        out = {}
        for name in ("allocated_bytes", "requested_bytes", "reserved_bytes", "active_blocks"):
            stat = getattr(self, name)
            out[f"{name}.current"], out[f"{name}.peak"] = stat.current, stat.peak
        for name in ("num_allocs", "num_frees", "num_alloc_retries", "num_ooms"):
            out[name] = getattr(self, name)
        return out


def fragmentation(free_block_sizes: list[int]) -> float:
    """1 - largest / total over the free blocks' sizes (bytes); 0.0 when nothing is free."""
    total = sum(free_block_sizes)
    return 0.0 if total == 0 else 1.0 - max(free_block_sizes) / total

"""What PyTorch's own allocator does during a call: how many allocations, and the peak bytes.

CPU: torch.profiler with profile_memory=True records every allocation and free made through
c10's CPU allocator (with its running total), so we can count them and find the peak.
CUDA: the caching allocator's own counters (torch.cuda.memory_stats), before and after.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TorchMemory:
    """Allocations made during a call and the peak bytes above the level at its start."""

    allocations: int
    peak_allocated_bytes: int
    peak_reserved_bytes: int  # CPU: same as allocated (no cache); CUDA: segment bytes reserved
    driver_mallocs: int       # CPU: every allocation is a malloc; CUDA: new segments (cudaMalloc)


def _walk(nodes):
    for node in nodes:
        yield node
        yield from _walk(node.children)


def cpu_memory(fn) -> TorchMemory:
    """Run `fn()` under the profiler; count its CPU allocations and their peak live bytes."""
    from torch._C._profiler import _EventType
    from torch.profiler import ProfilerActivity
    from ..quiet_profiler import quiet_profile
    with quiet_profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    tree = prof.profiler.kineto_results.experimental_event_tree()
    allocs = sorted((n for n in _walk(tree) if n.tag == _EventType.Allocation),
                    key=lambda n: n.start_time_ns)
    live = peak = count = 0
    for node in allocs:
        size = node.extra_fields.alloc_size  # negative for a free
        count += size > 0
        live += size
        peak = max(peak, live)
    return TorchMemory(count, peak, peak, count)


def cuda_memory(fn) -> TorchMemory:
    """Run `fn()` on CUDA; return allocations, and peak allocated/reserved bytes above the start."""
    import torch
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    after = torch.cuda.memory_stats()
    def delta(key):
        return after.get(key, 0) - before.get(key, 0)
    return TorchMemory(
        allocations=delta("allocation.all.allocated"),
        peak_allocated_bytes=after["allocated_bytes.all.peak"] - before["allocated_bytes.all.current"],
        peak_reserved_bytes=after["reserved_bytes.all.peak"] - before["reserved_bytes.all.current"],
        driver_mallocs=delta("segment.all.allocated"))


def torch_memory(fn, device: str = "cpu") -> TorchMemory:
    """cpu_memory or cuda_memory, by device."""
    return cuda_memory(fn) if str(device).startswith("cuda") else cpu_memory(fn)

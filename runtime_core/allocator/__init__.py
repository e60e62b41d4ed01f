"""A caching allocator that realizes a memory plan (lesson §3).

Find things by file name:
    sizes.py          PyTorch's rounding and segment-size rules
    segments.py       segments and the blocks that tile them (split, merge)
    caching_pool.py   the policy: malloc / free / empty_cache / stats
    free_lists.py     best-fit search over free blocks
    stream_reuse.py   where a freed block becomes reusable (stream events)
    expandable.py     segments that grow in place by pages
    backends/         the hooks, one module per backend: base.py (Backend), sim.py (the host-memory
                      HostArenaBackend, SimDevice streams), cuda.py (raw cudaMalloc/cudaFree through
                      ctypes, torch.cuda events); for_device(dev) finds a device's
    plan.py           a memory plan for a real model's forward (torch.fx)
    plan_run.py       realizing the plan: one arena, zero allocations per step
    graph_pool.py     a private pool that replays identical addresses (for CUDA graphs)
    labs.py           allocation orders and scenarios the page and CLI show
    compare.py        measured costs: plan arena vs our pool vs torch vs raw malloc
"""
from .backends.base import Backend
from .backends.sim import HostArenaBackend
from .caching_pool import CachingPool
from .errors import AllocatorOOM, BackendOutOfMemory, BadAllocSize, fmt_bytes
from .segments import ALLOCATED, AWAITING_EVENT, FREE

__all__ = ["Backend", "HostArenaBackend", "CachingPool", "AllocatorOOM", "BackendOutOfMemory",
           "BadAllocSize", "fmt_bytes", "ALLOCATED", "AWAITING_EVENT", "FREE"]

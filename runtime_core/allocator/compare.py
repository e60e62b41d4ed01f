"""Measured costs of four ways to get a buffer, per alloc+free pair (µs, median of many batches).

    plan_arena    a view at a fixed offset of one arena, cut once at setup (what a shipped plan does)
    caching_pool  our CachingPool (Python bookkeeping; no driver call once warm)
    torch         torch.empty + drop: CPU -> c10's CPU allocator (malloc every time);
                  CUDA -> PyTorch's caching allocator
    raw           CPU -> libc malloc/free through ctypes; CUDA -> cudaMalloc/cudaFree through ctypes

Each also reports driver mallocs counted during the steady-state timed loop (ours must be 0)
and the peak bytes reserved. CPU numbers are CPU numbers: label them so; they say nothing
about a GPU's driver.
"""
from __future__ import annotations

import ctypes
import statistics
import time

from .caching_pool import CachingPool
from .sizes import GiB

REPEATS = 15      # batches; we report the median batch
PAIRS = 200       # alloc+free pairs per batch
COUNT_PAIRS = 50  # pairs in the loop where torch's CPU allocations are counted (profiler)


def median_pair_us(pair, repeats: int = REPEATS, pairs: int = PAIRS) -> float:
    """Median over `repeats` batches of the mean µs of one `pair()` call (after one warm-up batch)."""
    for _ in range(pairs):
        pair()
    per_pair = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(pairs):
            pair()
        per_pair.append((time.perf_counter() - t0) * 1e6 / pairs)
    return statistics.median(per_pair)


def make_backend(backend: str, capacity_bytes: int = 1 * GiB):
    """"sim" -> HostArenaBackend; "cuda" -> CudaBackend (raw cudaMalloc)."""
    if backend == "cuda":
        from .cuda_backend import CudaBackend
        return CudaBackend(capacity_bytes)
    from .backends import HostArenaBackend
    return HostArenaBackend(capacity_bytes)


def _result(us: float, mallocs: int, peak: int, where: str, what: str) -> dict:
    return {"alloc_free_us": round(us, 3), "driver_mallocs_steady": int(mallocs),
            "steady_pairs": REPEATS * PAIRS, "peak_reserved_bytes": int(peak),
            "measured_on": where, "what": what}


def plan_arena(size_bytes: int, device: str) -> dict:
    """The plan's views are cut once, at setup; a step's handout is a lookup of its view.

    `view_setup_us` is the one-time cost of cutting one view (torch.narrow), for comparison.
    """
    import torch
    arena = torch.empty(size_bytes, dtype=torch.uint8, device=device)  # the one allocation
    setup_us = median_pair_us(lambda: arena.narrow(0, 0, size_bytes))
    views = {"buf0": arena.narrow(0, 0, size_bytes)}  # done once, by PlannedForward.__init__
    us = median_pair_us(lambda: views["buf0"])  # the handout; "free" is nothing at all
    out = _result(us, 0, size_bytes, device.upper(), "planned view of one arena, cut once at setup")
    out["view_setup_us"] = round(setup_us, 3)
    return out


def caching_pool(size_bytes: int, backend: str) -> dict:
    pool = CachingPool(make_backend(backend))
    pool.free(pool.malloc(size_bytes))  # warm-up: the one segment is reserved here
    before = pool.backend.driver_mallocs
    us = median_pair_us(lambda: pool.free(pool.malloc(size_bytes)))
    where = "CUDA" if backend == "cuda" else "CPU"
    mallocs, peak = pool.backend.driver_mallocs - before, pool.stats()["reserved_bytes.peak"]
    pool.empty_cache()  # give the segment back (on CUDA it is real cudaMalloc memory)
    return _result(us, mallocs, peak, where, f"our CachingPool on {pool.backend.name}")


def torch_empty(size_bytes: int, device: str) -> dict:
    import torch
    def pair():
        torch.empty(size_bytes, dtype=torch.uint8, device=device)  # dropped at once: freed
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        reserved0 = torch.cuda.memory_reserved()
        pair()  # warm-up: may reserve the one segment the loop then reuses
        segments0 = torch.cuda.memory_stats().get("segment.all.allocated", 0)
        us = median_pair_us(pair)
        torch.cuda.synchronize()
        mallocs = torch.cuda.memory_stats().get("segment.all.allocated", 0) - segments0
        return _result(us, mallocs, torch.cuda.max_memory_reserved() - reserved0, "CUDA",
                       "torch.empty through PyTorch's CUDA caching allocator")
    from .torch_memory import cpu_memory
    us = median_pair_us(pair)
    mem = cpu_memory(lambda: [pair() for _ in range(COUNT_PAIRS)])
    steady = mem.driver_mallocs * REPEATS * PAIRS // COUNT_PAIRS  # scaled to the timed loop's pairs
    return _result(us, steady, mem.peak_reserved_bytes, "CPU",
                   "torch.empty on the CPU (c10 CPU allocator, no cache)")


def raw(size_bytes: int, backend: str) -> dict:
    if backend == "cuda":
        from .cuda_backend import raw_free, raw_malloc
        alloc, free, where, what = raw_malloc, raw_free, "CUDA", "cudaMalloc + cudaFree (ctypes)"
    else:
        libc = ctypes.CDLL(None)
        libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
        libc.free.argtypes = [ctypes.c_void_p]
        alloc, free, where, what = libc.malloc, libc.free, "CPU", "libc malloc + free (ctypes)"
    us = median_pair_us(lambda: free(alloc(size_bytes)))
    return _result(us, REPEATS * PAIRS, size_bytes, where, what)  # one malloc per pair, by construction


def measure_allocators(size_bytes: int, backend: str) -> dict:
    """All four, for buffers of `size_bytes`, on "sim" (CPU) or "cuda"."""
    device = "cuda" if backend == "cuda" else "cpu"
    return {"plan_arena": plan_arena(size_bytes, device),
            "caching_pool": caching_pool(size_bytes, backend),
            "torch": torch_empty(size_bytes, device),
            "raw": raw(size_bytes, backend)}

"""What it costs to get a buffer, four ways, per alloc+free pair (µs, median of many batches).

    plan_arena    a view at a fixed offset of one arena, cut once at setup (what a shipped plan does)
    caching_pool  our CachingPool on the device's raw allocator (Python bookkeeping; no driver
                  call once warm)
    framework     the device's own buffer allocator: PyTorch's caching allocator on a GPU
    raw           the device's raw malloc + free: cudaMalloc + cudaFree on a GPU

One program for both devices, timed on the device's host clock. On the simulator the clock is
virtual: only what the simulator prices costs time (driver calls, at the H200's measured cost),
so the table shows where the driver is called, not how fast Python bookkeeping is.
Each row also reports the driver mallocs counted during the steady-state loop (ours must be 0)
and the peak bytes reserved.
"""
from __future__ import annotations

import statistics

from .backends import for_device
from .caching_pool import CachingPool
from .sizes import GiB

REPEATS = 15      # batches; we report the median batch
PAIRS = 200       # alloc+free pairs per batch


def median_pair_us(dev, pair, repeats: int = REPEATS, pairs: int = PAIRS) -> float:
    """Median over `repeats` batches of the mean µs of one `pair()` call (after one warm-up batch)."""
    for _ in range(pairs):
        pair()
    per_pair = []
    for _ in range(repeats):
        t0 = dev.host_now_us()
        for _ in range(pairs):
            pair()
        per_pair.append((dev.host_now_us() - t0) / pairs)
    return statistics.median(per_pair)


def _result(dev, us: float, mallocs: int, peak: int, what: str) -> dict:
    return {"alloc_free_us": round(us, 3), "driver_mallocs_steady": int(mallocs),
            "steady_pairs": REPEATS * PAIRS, "peak_reserved_bytes": int(peak),
            "measured_on": dev.source_label, "what": what}


def plan_arena(dev, size_bytes: int) -> dict:
    """The plan's views are cut once, at setup; a step's handout is a lookup of its view."""
    arena = dev.new_buffer(max(1, size_bytes // 4))  # the one allocation
    views = {"buf0": dev.view_prefix(arena, arena.numel)}  # done once, by PlannedForward.__init__
    us = median_pair_us(dev, lambda: views["buf0"])  # the handout; "free" is nothing at all
    return _result(dev, us, 0, size_bytes, "planned view of one arena, cut once at setup")


def caching_pool(dev, size_bytes: int) -> dict:
    pool = CachingPool(for_device(dev, 1 * GiB))
    pool.free(pool.malloc(size_bytes))  # warm-up: the one segment is reserved here
    before = pool.backend.driver_mallocs
    us = median_pair_us(dev, lambda: pool.free(pool.malloc(size_bytes)))
    mallocs, peak = pool.backend.driver_mallocs - before, pool.stats()["reserved_bytes.peak"]
    pool.empty_cache()  # give the segment back (on a GPU it is real cudaMalloc memory)
    return _result(dev, us, mallocs, peak, f"our CachingPool on {pool.backend.name}")


def framework(dev, size_bytes: int) -> dict:
    """dev.new_buffer and drop it: PyTorch's caching allocator on a GPU (one cached segment)."""
    numel = max(1, size_bytes // 4)
    dev.synchronize()
    reserved0 = dev.reserved_bytes()
    us = median_pair_us(dev, lambda: dev.new_buffer(numel))  # dropped at once: freed
    return _result(dev, us, 0, max(0, dev.reserved_bytes() - reserved0),
                   f"{dev.name}'s own allocator (new buffer, dropped)")


def raw(dev, size_bytes: int) -> dict:
    backend = for_device(dev, 1 * GiB)

    def pair():
        handle, _ = backend.alloc(size_bytes)
        backend.free(handle, size_bytes)
    us = median_pair_us(dev, pair)
    return _result(dev, us, REPEATS * PAIRS, size_bytes, f"raw malloc + free ({backend.name})")


def measure_allocators(dev, size_bytes: int) -> dict:
    """All four, for buffers of `size_bytes`, on `dev`."""
    return {"plan_arena": plan_arena(dev, size_bytes), "caching_pool": caching_pool(dev, size_bytes),
            "torch": framework(dev, size_bytes), "raw": raw(dev, size_bytes)}

"""empty_cache() on the hot path: every step pays cudaMalloc again, and reserved memory saws.

Each step allocates a few buffers, launches a kernel on each, frees them, and (when asked)
calls empty_cache(). With the cache kept, step 2 onwards makes no driver call. With empty_cache
every step, each step starts with driver mallocs before its first kernel (the gaps), and
reserved bytes rise and fall every step (the sawtooth).

sim: our CachingPool on a HostArenaBackend driving a SimDevice; each driver call costs
SIM_DRIVER_CALL_US of virtual host time, and a free first waits for the device, as cudaFree does.
cuda: PyTorch's caching allocator and torch.cuda.empty_cache(), on the wall clock.
"""
from __future__ import annotations

import time

from .backends import HostArenaBackend
from .caching_pool import CachingPool
from .sizes import KiB, MiB

# Half of the ≈102 µs measured for one cudaMalloc + cudaFree pair of 1 MiB on an H200
# (shared/reference/h200-measurements.md, Memory); how a pair splits between the two is not measured.
SIM_DRIVER_CALL_US = 51.0
STEP_SIZES_BYTES = (1 * MiB, 3 * MiB, 256 * KiB, 1 * MiB)


def hot_path_sim(steps: int = 6, empty_cache_each_step: bool = True) -> dict:
    """Run the loop on the simulator. Times are virtual µs from the loop's start.

    Returns samples (t_us, allocated_bytes, reserved_bytes, what), spans (lane, name, start_us,
    end_us), wall_us, driver_mallocs and driver_mallocs_after_first_step.
    """
    from ..engine.sim_device import SimDevice, SimParams
    dev = SimDevice(SimParams(elems_per_us=20_000.0))  # a 1 MiB fp32 kernel takes ≈13 µs
    backend = HostArenaBackend(256 * MiB, device=dev, driver_call_us=SIM_DRIVER_CALL_US)
    pool = CachingPool(backend, record_timeline=True)
    mallocs_after_step = []
    with dev.trace() as tr:
        t0 = dev.host_now_us()
        for _ in range(steps):
            blocks = [pool.malloc(n) for n in STEP_SIZES_BYTES]
            for b in blocks:
                dev.launch_chain_kernel(backend.sim_buffer(b))
            for b in blocks:
                pool.free(b)  # same stream as the kernels: stream order makes reuse safe
            if empty_cache_each_step:
                pool.empty_cache()
            mallocs_after_step.append(backend.driver_mallocs)
        wall_us = dev.host_now_us() - t0
    spans = [("cpu", name, a - t0, b - t0) for a, b, name in backend.driver_spans]
    spans += [(s.lane, s.name, s.start_us, s.end_us) for s in tr.spans if s.kind in ("launch", "kernel")]
    samples = [(s.t_us - t0, s.allocated_bytes, s.reserved_bytes, s.what) for s in pool.timeline()]
    return {"samples": samples, "spans": spans, "wall_us": wall_us,
            "driver_mallocs": backend.driver_mallocs,
            "driver_mallocs_after_first_step": mallocs_after_step[-1] - mallocs_after_step[0]}


def hot_path_cuda(steps: int = 20, empty_cache_each_step: bool = True) -> dict:
    """The same loop with PyTorch's caching allocator on CUDA; wall-clock µs from the start."""
    import torch
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    def segments():
        return torch.cuda.memory_stats().get("segment.all.allocated", 0)
    seg0, samples, seg_after_first = segments(), [], None
    t0 = time.perf_counter()
    def sample(what):
        samples.append(((time.perf_counter() - t0) * 1e6, torch.cuda.memory_allocated(),
                        torch.cuda.memory_reserved(), what))
    for step in range(steps):
        bufs = [torch.empty(n // 4, device="cuda") for n in STEP_SIZES_BYTES]
        for b in bufs:
            b.fill_(1.0)
        sample("malloc")
        del bufs
        if empty_cache_each_step:
            torch.cuda.empty_cache()
        sample("step end")
        seg_after_first = segments() if step == 0 else seg_after_first
    torch.cuda.synchronize()
    wall_us = (time.perf_counter() - t0) * 1e6
    return {"samples": samples, "spans": [], "wall_us": wall_us, "driver_mallocs": segments() - seg0,
            "driver_mallocs_after_first_step": segments() - seg_after_first}

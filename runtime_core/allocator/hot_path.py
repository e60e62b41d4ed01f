"""empty_cache() on the hot path: every step pays cudaMalloc again, and reserved memory saws.

Each step allocates a few buffers from our CachingPool, launches a kernel on each, frees them,
and (when asked) calls empty_cache(). With the cache kept, step 2 onwards makes no driver call.
With empty_cache every step, each step starts with driver mallocs before its first kernel (the
gaps), and reserved bytes rise and fall every step (the sawtooth).

One program for both devices: the pool sits on `backends.for_device(dev)`, which is raw
cudaMalloc/cudaFree on a GPU and, on the simulator, a host arena whose driver calls cost the
H200's measured time (SimParams.driver_call_us). Times are the device's host clock.
"""
from __future__ import annotations

from ..engine.tracing import trace_inline
from .backends import for_device
from .caching_pool import CachingPool
from .sizes import KiB, MiB

STEP_SIZES_BYTES = (1 * MiB, 3 * MiB, 256 * KiB, 1 * MiB)
CAPACITY_BYTES = 256 * MiB
# A simulated machine whose 1 MiB fp32 kernel takes ≈13 µs, so the kernels show between the calls.
SIM_PARAMS = {"elems_per_us": 20_000.0}


def hot_path(dev, steps: int = 6, empty_cache_each_step: bool = True) -> dict:
    """Run the loop on `dev`. Times are µs of the device's host clock from the loop's start.

    Returns samples (t_us, allocated_bytes, reserved_bytes, what), spans (lane, name, start_us,
    end_us) where the device traces for free (else []), wall_us, driver_mallocs and
    driver_mallocs_after_first_step.
    """
    backend = for_device(dev, CAPACITY_BYTES)
    pool = CachingPool(backend, record_timeline=True)
    mallocs_after_step = []
    t0 = dev.host_now_us()

    def loop() -> None:
        for _ in range(steps):
            blocks = [pool.malloc(n) for n in STEP_SIZES_BYTES]
            for b in blocks:
                dev.launch_chain_kernel(backend.device_buffer(b))
            for b in blocks:
                pool.free(b)  # same stream as the kernels: stream order makes reuse safe
            if empty_cache_each_step:
                pool.empty_cache()
            mallocs_after_step.append(backend.driver_mallocs)
        dev.synchronize()
    tr = trace_inline(dev, loop)
    wall_us = dev.host_now_us() - t0
    samples = [(s.t_us - t0, s.allocated_bytes, s.reserved_bytes, s.what) for s in pool.timeline()]
    pool.empty_cache()  # hand the segments back (real device memory on a GPU)
    spans = [] if tr is None else [(s.lane, s.name, s.start_us, s.end_us) for s in tr.spans
                                   if s.kind in ("launch", "kernel", "spin")]
    return {"samples": samples, "spans": spans, "wall_us": wall_us,
            "driver_mallocs": mallocs_after_step[-1],
            "driver_mallocs_after_first_step": mallocs_after_step[-1] - mallocs_after_step[0]}


def hot_path_sim(steps: int = 6, empty_cache_each_step: bool = True) -> dict:
    """The loop on a fresh simulated device (what the page runs without a GPU)."""
    from ..recordings.shipped import get_device
    return hot_path(get_device("sim", **SIM_PARAMS), steps, empty_cache_each_step)

"""calibrate(): measure the calibrated model's six constants on this device.

Each constant comes from one small measurement with our own executors, so the model and the
measurements describe the same code path:

    tax_us          host time of one chain launch, no sync (400 back-to-back launches)
    kernel_floor_us per-node GPU time of the smallest kernel inside a replayed graph
    eager_floor_us  per-kernel wall of blocking dispatch at zero work: the sync round-trip floor
    sync_us         what blocking dispatch costs per kernel beyond tax + work, at 40 µs of work
    graph_launch_us host time of one replay call (cudaGraphLaunch), no sync
    fixed_us        the rest of a one-kernel graph step: launch latency + final sync

The per-node gap of a replayed graph is folded into kernel_floor_us (node_gap_us = 0): a
replayed graph's nodes run back to back, and the table that sizes kernels times them that way.
"""
from __future__ import annotations

import statistics
import time

from .model import Constants

CAL_N = 200


def calibrate(dev) -> Constants:
    """Measure this device's constants (about a second on an H200). Returns model Constants."""
    from .measure import measure
    tax = dev.intrinsic_tax_us()
    floor = dev.sizes().floor_us if hasattr(dev, "sizes") else 0.0
    e0 = measure(dev, "eager", CAL_N, 0.0, trace=False).wall_us / CAL_N
    hi = measure(dev, "eager", CAL_N, 40.0, trace=False)
    w40 = hi.kernel_work_us / CAL_N
    sync = max(0.0, hi.wall_us / CAL_N - tax - w40)
    g = _replay_host_us(dev)
    one = measure(dev, "graph", 1, 0.0, trace=False)
    fixed = max(0.0, one.wall_us - g - one.kernel_work_us - sync)
    return Constants(sync_us=round(sync, 3), graph_launch_us=round(g, 3), node_gap_us=0.0,
                     kernel_floor_us=round(floor, 3), eager_floor_us=round(e0, 3),
                     fixed_us=round(fixed, 3),
                     source=f"calibrate() on {dev.name}; tax_us measured {tax:.2f}")


def _replay_host_us(dev, replays: int = 200) -> float:
    """Median host time of one graph replay call of a 1-kernel graph (no sync in between)."""
    buf = dev.new_buffer(1)
    for _ in range(3):
        dev.launch_chain_kernel(buf)
    dev.synchronize()
    graph = dev.capture(lambda: dev.launch_chain_kernel(buf), pool=dev.new_pool())
    graph.replay()
    dev.synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        for _ in range(replays):
            graph.replay()
        times.append((time.perf_counter_ns() - t0) / 1000.0 / replays)
        dev.synchronize()
    return statistics.median(times)

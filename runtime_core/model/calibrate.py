"""Calibration: the constants that describe a device, measured by calibrate() or read from the simulator.

Each constant comes from a small measurement with our own executors, so the model and the
measurements describe the same code path. The launch tax t itself is measured directly
(CudaDevice.intrinsic_tax_us) and is an input of the model, like the knob it replaces.

    kernel_floor_us  per-node GPU time of the smallest kernel in a replayed graph (bulk timing)
    eager_floor_us   per-kernel wall of blocking dispatch at zero work
    sync_us          per-kernel wall of blocking dispatch at 10 µs of work, minus t and the kernel
    graph_launch_us  host time of one replay call (cudaGraphLaunch), no sync
    node_gap_us      per-node slope of a graph step (N=1000 vs N=1, zero work) minus the floor
    fixed_us         what a one-kernel graph step costs beyond the formula's other terms

The first measurements of a process run slow (lazy initialisation, clocks), so calibrate()
measures everything twice and keeps the second pass. A host on a shared machine also drifts
between a fast and a slow state for tens of seconds at a time; the sweep therefore calls
calibrate() several times spread over its run and keeps each constant's median.
"""
from __future__ import annotations

import statistics
import time

from ..constants import TEXTBOOK, Constants
from ..knobs import Knobs

CAL_N = 200
LONG_N = 1000


def calibrate(dev, passes: int = 2) -> Constants:
    """Measure this device's constants (about two seconds on an H200). Returns Constants."""
    consts = None
    for _ in range(passes):
        consts = _one_pass(dev)
    return consts


def _wall(dev, mode: str, n: int, work_us: float):
    from ..engine.measure import measure
    return measure(dev, Knobs(mode, n, work_us), trace=False, repeats=15)


def _one_pass(dev) -> Constants:
    tax = dev.intrinsic_tax_us()
    floor = dev.sizes().floor_us
    e0 = _wall(dev, "eager", CAL_N, 0.0).wall_us / CAL_N
    hi = _wall(dev, "eager", CAL_N, 10.0)
    sync = max(0.0, (hi.wall_us - hi.kernel_work_us) / CAL_N - tax)
    g = _replay_host_us(dev)
    one = _wall(dev, "graph", 1, 0.0).wall_us
    many = _wall(dev, "graph", LONG_N, 0.0).wall_us
    gap = max(0.0, (many - one) / (LONG_N - 1) - floor)
    node = floor + gap
    fixed = max(0.0, one - (tax + max(g, node) + node + sync))  # the graph formula, solved for L
    return Constants(sync_us=round(sync, 3), graph_launch_us=round(g, 3), node_gap_us=round(gap, 3),
                     kernel_floor_us=round(floor, 3), eager_floor_us=round(e0, 3),
                     fixed_us=round(fixed, 3), static_copy=True,
                     source=f"calibrate() on {dev.name}; launch tax measured {tax:.2f} µs")


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


def constants_for(dev) -> Constants:
    """The model constants that describe `dev` (textbook ones if nothing is known)."""
    if dev.backend == "sim":
        return dev.params.machine
    cal = getattr(dev, "calibration", None)
    return cal() if callable(cal) else TEXTBOOK

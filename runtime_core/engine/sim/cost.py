"""What a measurement costs on the simulator: Python seconds, since SimDevice simulates every
launch, node and synchronize in Python (engine/cost.py prices a request with it).

SIM_COSTS were measured on the 2-core development machine; `calibrate_sim()` (or
`python -m runtime_core.engine.sim.cost`) measures them again on another host.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...knobs import Knobs

SIM_TAX_LAUNCHES = 200          # SimDevice.measure_tax


@dataclass(frozen=True)
class SimCosts:
    """Python seconds SimDevice spends per simulated event on the development machine (2 cores).

    Measured values (best of 5, 5000 calls each, `calibrate_sim()`) are in the comments; the
    fields round them up. Until issue 21 item 9 the simulator ran every launch and node on its own
    (launch 12.3 µs, eager launch+sync 24.7 µs, node 2.9 µs, record 4.0 µs); it now runs a chain's
    identical kernels in bulk with the same results (tests/test_sim_bulk.py).
    """

    launch_s: float = 1.5e-6       # a chain launch, in bulk (SimDevice.launch_chain): host span,
    #                                its start and end on the stream's clock, race bookkeeping (0.91 µs;
    #                                1.37 µs where the launch queue fills and a sync drains it one by one)
    sync_s: float = 0.5e-6         # a synchronize after each launch (eager launch+sync in bulk: 1.27 µs)
    node_s: float = 0.3e-6         # one node of a replayed graph (a running sum of its steps: 0.20 µs)
    record_s: float = 0.4e-6       # one launch recorded during capture (0.28 µs)
    spin_s: float = 2e-6           # a host_spin span (the extra tax costs no real time here)
    per_elem_s: float = 0.25e-9    # the kernel's numpy effect, per element (0.10 ns in cache,
    #                                0.19 ns at 10M elements; 0.16-0.25 ns inside measure()): a run of
    #                                them in bulk is one add, but a queue drained by a sync runs each
    alloc_per_elem_s: float = 0.5e-9  # a fresh input buffer: zeros, fill, first touch
    fixed_s: float = 0.05          # executors, workload, result


SIM_COSTS = SimCosts()


EAGER_ONE_BY_ONE = 2  # blocking launches simulated one by one before a run goes in bulk (launch_chain_blocking)
BULK_PASSES = 5       # a run's effects in bulk (events.add_ones): abs, max, floor, compare, add over the buffer


class SimCostModel:
    """Python seconds a SimDevice spends: it simulates every launch, node and sync in Python, and
    runs kernel effects on numpy buffers of work_us × elems_per_us elements: one by one where
    launches are simulated one at a time, one add for a run in bulk.

    Which effects run one by one (2026-12-07, effects counted in `measure` and timed on the 2-core
    machine; the estimate had charged one effect per launch and priced eager N=20,000 at 10 ms of
    work at 13 minutes, a run of 0.8 s): a blocking run's first two launches; an asynchronous
    run's launches until the launch queue (queue_depth) fills and a sync drains it (0.4 n to
    queue_depth counted; all n charged). The rest of a run, and a replay's nodes, are one bulk
    add of BULK_PASSES passes over the buffer."""

    deterministic = True

    def __init__(self, elems_per_us: float, c: SimCosts = SIM_COSTS, queue_depth: int = 1024):
        self.elems_per_us, self.c, self.queue_depth = elems_per_us, c, max(1, queue_depth)

    def step_s(self, kind: str, n: int, work_us: float, extra_us: float, scale: float = 1.0) -> float:
        """Seconds of one step of `kind` ("eager", "streams", "replay", "capture")."""
        c = self.c
        effect = c.per_elem_s * (int(max(1, round(work_us * self.elems_per_us)) * scale) + 256)
        spin = c.spin_s if extra_us > 0 else 0.0
        queued = min(n, self.queue_depth)  # effects run one by one in an asynchronous run
        bulk = BULK_PASSES * effect
        if kind == "eager":
            return n * (c.launch_s + c.sync_s + spin) + min(n, EAGER_ONE_BY_ONE) * effect + bulk
        if kind == "streams":
            return n * (c.launch_s + spin) + queued * effect + bulk + c.sync_s
        if kind == "replay":  # copy into the static buffer, one graph launch, N nodes (their effects in bulk), sync
            return (c.launch_s + effect) + c.launch_s + spin + n * c.node_s + bulk + c.sync_s
        if kind == "capture":  # warm-up on a side stream, then N launches recorded
            return n * (c.launch_s + c.record_s) + queued * effect + bulk + c.sync_s
        raise ValueError(kind)

    def fixed_parts(self, k: Knobs, calls: int) -> dict[str, float]:
        numel = max(1, int(round(k.work_us * self.elems_per_us)))
        return {"buffers": calls * self.c.alloc_per_elem_s * 2 * numel + self.c.fixed_s,
                "tax": SIM_TAX_LAUNCHES * self.c.launch_s}  # one sample on a virtual clock


# ---- calibration ---------------------------------------------------------------------------
def calibrate_sim(calls: int = 5000, best_of: int = 5) -> dict:
    """Measure SimCosts' per-event seconds on this host (a few seconds). Returns µs per event:
    launch, launch+sync (eager), node, record (capture), and ns per element of a kernel effect."""
    import time

    from ..capture import warm_up_and_capture
    from .device import SimDevice

    def best(fn) -> float:
        times = []
        for _ in range(best_of):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    dev = SimDevice()
    x = dev.new_buffer(1)
    big = dev.new_buffer(1_000_000)

    def launches(buf=x, k=calls):
        dev.launch_chain(buf, k)
        dev.synchronize()

    def eager():
        dev.launch_chain_blocking(x, calls)
    graph, _ = warm_up_and_capture(dev, lambda: dev.launch_chain(x, calls))

    def replay():
        graph.replay()
        dev.synchronize()
    launch = best(launches) / calls
    capture = best(lambda: warm_up_and_capture(dev, lambda: dev.launch_chain(x, calls)))
    big_launch = best(lambda: launches(big, 200)) / 200
    return {"launch_us": launch * 1e6, "eager_launch_sync_us": best(eager) / calls * 1e6,
            "node_us": best(replay) / calls * 1e6, "record_us": (capture / calls - launch) * 1e6,
            "per_elem_ns": (big_launch - launch) / 1_000_000 * 1e9}


if __name__ == "__main__":  # python -m runtime_core.engine.sim.cost: this host's simulator costs
    import json
    print(json.dumps({k: round(v, 3) for k, v in calibrate_sim().items()}, indent=2))

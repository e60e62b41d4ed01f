"""How big an `add_` kernel must be to take `work_us` on this GPU: a measured size→time table.

Each size is timed in bulk: a graph of K kernels on one buffer, replayed a few times between
two CUDA events, divided by K × replays. (A single tiny kernel between two events reads about
16 µs on an H200: the event floor, not the kernel.) The per-node time includes the small gap
between graph nodes, so "work" means the time a kernel occupies the GPU in a chain.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import torch

from ..capture import warm_up_and_capture

# Half-octave steps from 1 element to 2^27 elements (512 MiB of float32): enough to reach
# well past 100 µs of work on an H200 and fine enough to land within ±20% of a request.
SIZES = sorted({max(1, int(round(2 ** (k / 2)))) for k in range(0, 55)})


@dataclass
class SizeTable:
    """Measured (numel, µs per kernel) pairs, made monotone."""

    numels: list[int]
    us: list[float]

    @property
    def floor_us(self) -> float:
        """Time of the smallest kernel: requests below this get a 1-element kernel."""
        return self.us[0]

    def numel_for(self, work_us: float) -> int:
        """Interpolate (log-log) the size whose kernel takes `work_us`."""
        if work_us <= self.us[0]:
            return 1
        if work_us >= self.us[-1]:
            return self.numels[-1]
        i = bisect.bisect_left(self.us, work_us)
        (n0, t0), (n1, t1) = (self.numels[i - 1], self.us[i - 1]), (self.numels[i], self.us[i])
        if t1 <= t0:
            return n1
        f = (math.log(work_us) - math.log(t0)) / (math.log(t1) - math.log(t0))
        return max(1, int(round(math.exp(math.log(n0) + f * (math.log(n1) - math.log(n0))))))

    def time_chain_us(self, dev, n: int, numel: int) -> float:
        """Measure n kernels over `numel` elements as one replayed graph, µs per chain."""
        return time_graph_us(dev, numel, n, min_total_us=3000.0)

    def as_dict(self) -> dict:
        return {"numels": self.numels, "us": [round(t, 4) for t in self.us]}


def time_graph_us(dev, numel: int, kernels: int, min_total_us: float = 2000.0) -> float:
    """µs for `kernels` back-to-back add_ kernels over `numel` elements, from graph replays."""
    x = torch.zeros(numel, device="cuda")

    def chain():
        for _ in range(kernels):
            x.add_(1.0)
    g = warm_up_and_capture(dev, chain)[0].g
    g.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    g.replay()
    end.record()
    end.synchronize()
    one_ms = start.elapsed_time(end)
    reps = max(1, min(200, int(math.ceil(min_total_us / 1000.0 / max(one_ms, 1e-3)))))
    start.record()
    for _ in range(reps):
        g.replay()
    end.record()
    end.synchronize()
    total_us = start.elapsed_time(end) * 1000.0
    del g
    return total_us / reps


def measure_size_table(dev) -> SizeTable:
    """Time every size in SIZES (about a second on an H200) and return the monotone table."""
    us = []
    for numel in SIZES:
        k = 200 if numel < 1 << 20 else 20
        us.append(time_graph_us(dev, numel, k, min_total_us=1000.0) / k)
    for i in range(1, len(us)):  # L2-cache effects can dip; keep the table monotone
        us[i] = max(us[i], us[i - 1] + 1e-6)
    torch.cuda.empty_cache()
    return SizeTable(list(SIZES), us)


def sleep_cycles_per_us(dev, cycles: int = 20_000, kernels: int = 20, replays: int = 20) -> float:
    """GPU clock cycles per µs of torch.cuda._sleep, from a replayed graph of `kernels` sleeps
    timed in bulk (≈1870–2100 on an H200 at boost clock)."""
    g = warm_up_and_capture(dev, lambda: [torch.cuda._sleep(cycles) for _ in range(kernels)])[0].g
    g.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(replays):
        g.replay()
    end.record()
    end.synchronize()
    per_kernel_us = start.elapsed_time(end) * 1000.0 / (replays * kernels)
    return cycles / per_kernel_us

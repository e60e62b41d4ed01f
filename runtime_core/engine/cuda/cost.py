"""What a measurement costs on a GPU: device seconds, from the H200 recordings' costs rounded up
(engine/cost.py prices a request with it)."""
from __future__ import annotations

from dataclasses import dataclass

from ...knobs import Knobs
from ..measure import TAX_SAMPLES

CUDA_TAX_LAUNCHES = 20 + 7 * 400  # CudaDevice.measure_tax


@dataclass(frozen=True)
class CudaCosts:
    """Device costs, µs, rounded up from the H200 recordings (sweep_h200.json, bench_h200.json)."""

    tax_us: float = 25.0           # one launch call (H200: ~9 µs; the slow host state ~16 µs)
    sync_us: float = 25.0          # a blocking round trip (H200 eager: 16.5-23 µs per kernel in all)
    graph_launch_us: float = 30.0  # cudaGraphLaunch plus the graph's launch latency
    node_gap_us: float = 1.0       # between two nodes of a replay
    instantiate_us: float = 2.0    # per node, capture + instantiate
    profiler_factor: float = 3.0   # a step under torch.profiler (trace worker) vs an untraced one
    setup_s: float = 5.0           # first use in a process: the size table, the trace worker


CUDA_COSTS = CudaCosts()


class CudaCostModel:
    """Device seconds on a GPU (conservative: the parts add up, rounded-up H200 costs)."""

    deterministic = False
    profiler_factor = CUDA_COSTS.profiler_factor

    def __init__(self, c: CudaCosts = CUDA_COSTS):
        self.c = c

    def step_s(self, kind: str, n: int, work_us: float, extra_us: float, scale: float = 1.0) -> float:
        c, work_us = self.c, work_us * scale
        if kind == "eager":
            us = n * (c.tax_us + extra_us + c.sync_us + work_us)
        elif kind == "streams":
            us = n * (c.tax_us + extra_us + work_us) + c.sync_us
        elif kind == "replay":
            us = (c.tax_us + work_us) + extra_us + c.graph_launch_us + n * (work_us + c.node_gap_us) + c.sync_us
        elif kind == "capture":
            us = n * (c.tax_us + work_us) + n * (c.tax_us + c.instantiate_us) + c.sync_us
        else:
            raise ValueError(kind)
        return us / 1e6

    def fixed_parts(self, k: Knobs, calls: int) -> dict[str, float]:
        # GPU busy time is timed in bulk: a captured chain replayed for >= 3 ms; the tax, measured
        # TAX_SAMPLES times (7 batches of 400 launches after 20 warm ones, each).
        busy = self.step_s("capture", k.n, k.work_us, 0.0) + 2 * self.step_s("replay", k.n, k.work_us, 0.0)
        return {"busy_time_and_tax": busy + 0.003 + TAX_SAMPLES * CUDA_TAX_LAUNCHES * self.c.tax_us / 1e6,
                "process_setup": self.c.setup_s}

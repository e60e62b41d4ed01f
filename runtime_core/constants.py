"""The named constants that describe a machine's runtime costs, µs.

One type for two users: the analytic model prices a step with them (model/formulas.py), and the
simulated device runs with them (engine/sim/device.py). A recording stores them under
`meta.calibration`; `model.calibrate.calibrate()` measures them on any device, each by its own
experiment (METHODS, below, says which).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Constants:
    """Named costs of one machine, µs. The defaults give the seed's textbook model.

    Args:
        sync_us: s, what a synchronize adds beyond the kernel it waits for (the kernel's start
            latency and the round trip back to the host), paid after every eager kernel and once
            at the end of a streams or graph step. Textbook: 0. Calibrated: measured.
        graph_launch_us: g, host cost of one `cudaGraphLaunch`. Textbook: None, meaning "one
            launch's tax" (the seed: "overhead about one launch"). Calibrated: measured.
        node_gap_us: gn, GPU time between consecutive nodes of a replayed graph. Textbook: 0.
        stream_gap_us: gs, GPU time between two kernels from separate launches on one stream
            while the queue is not empty (the front end fetching the next launch). Textbook: 0.
        graph_launch_per_node_us: how much `cudaGraphLaunch`'s host cost grows per node beyond the
            first (measured at 1, 10, 120 and 1000 nodes). Textbook: 0.
        graph_upload_us: extra host cost of a one-node graph's first replay (its upload). Textbook: 0.
        graph_upload_per_node_us: how much that upload grows per node beyond the first. Textbook: 0.
        kernel_floor_us: the shortest time any kernel takes on the GPU. Textbook: 0.
        eager_floor_us: f, the floor under one eager launch+sync round trip. Textbook: 0.
        fixed_us: L, launch latency of a graph step: from the replay call until its first node
            runs on the GPU (longer than a kernel's: the graph is scheduled as a whole). Textbook: 0.
        static_copy: whether a graph step on the copy path pays for copying its input into the
            static buffer (c). The textbook model leaves the copy out.
        miss_runs: what dispatches a call whose shape misses the captured graph under the
            fallback policy: "eager" in the seed's textbook widget, "streams" in PyTorch
            (asynchronous dispatch), which is what our GraphExecutor does.
        source: where the numbers came from (the seed, a named recording, calibrate() on a device).
    """

    sync_us: float = 0.0
    graph_launch_us: float | None = None
    node_gap_us: float = 0.0
    stream_gap_us: float = 0.0
    graph_upload_us: float = 0.0
    graph_launch_per_node_us: float = 0.0
    graph_upload_per_node_us: float = 0.0
    kernel_floor_us: float = 0.0
    eager_floor_us: float = 0.0
    fixed_us: float = 0.0
    static_copy: bool = False
    miss_runs: str = "eager"
    source: str = "textbook (seed §6)"

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> "Constants":
        """Build from a recording's meta.calibration (unknown keys are ignored; None → textbook)."""
        if not d:
            return TEXTBOOK
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        """The numeric constants (not `static_copy`, `miss_runs` or `source`)."""
        return tuple(f for f in cls.__dataclass_fields__ if f not in ("static_copy", "miss_runs", "source"))


TEXTBOOK = Constants()

# How each constant is measured (model/experiments.py; model/calibrate.py derives them): one
# experiment per constant, each reading the quantity it names. A recording keeps these lines in
# meta.calibration_methods; the pages show them beside the values.
METHODS = {
    "tax_us": "Python dispatch + launch: host µs per x.add_(1) in a batch of 400 launches with no sync",
    "kernel_floor_us": "GPU µs of a chain kernel asked for no work, from profiled kernel spans",
    "eager_floor_us": "per-kernel wall of 200 blocking launches (launch, then synchronize) at zero work",
    "sync_us": "unprofiled: how long synchronize() takes after a 10 µs kernel's launch returned, less "
               "that kernel's profiled duration (median of 200 timed calls)",
    "graph_launch_us": "host µs of one cudaGraphLaunch of a 1-node graph, in a loop of replays with no sync",
    "graph_launch_per_node_us": "the growth of that host cost per node: least squares over graphs of "
                                "1, 10, 120 and 1000 nodes",
    "graph_upload_us": "a fresh 1-node graph's first replay call, less a later replay call of it",
    "graph_upload_per_node_us": "the growth of that first-replay cost per node, over 1, 10, 120 and 1000 nodes",
    "fixed_us": "profiled replay of a 120-node graph: cudaGraphLaunch returns → its first node starts",
    "node_gap_us": "unprofiled: intercept of the per-node wall slope (100 vs 1000 nodes) against profiled "
                   "kernel durations at 0, 5 and 20 µs of work; the profiler's gap between nodes is shown beside it",
    "stream_gap_us": "unprofiled: intercept of the per-kernel wall slope of streams steps (20 vs 200 kernels) "
                     "against profiled durations at 20, 40 and 80 µs of work; the profiler's gap is shown beside it",
}

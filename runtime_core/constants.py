"""The named constants that describe a machine's runtime costs, µs.

One type for two users: the analytic model prices a step with them (model/formulas.py), and the
simulated device runs with them (engine/sim/device.py). A recording stores them under
`meta.calibration`; `model.calibrate.calibrate()` measures them on any device.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Constants:
    """Named costs of one machine, µs. The defaults give the seed's textbook model.

    Args:
        sync_us: s, a synchronize round trip once the GPU is idle, paid after every eager kernel
            and once at the end of a streams or graph step. Textbook: 0. Calibrated: measured.
        graph_launch_us: g, host cost of one `cudaGraphLaunch`. Textbook: None, meaning "one
            launch's tax" (the seed: "overhead about one launch"). Calibrated: measured.
        node_gap_us: gn, GPU time between consecutive nodes of a replayed graph. Textbook: 0.
        stream_gap_us: gs, GPU time between two kernels from separate launches on one stream
            while the queue is not empty (the front end fetching the next launch). Textbook: 0.
        graph_upload_us: extra host cost of a graph's first replay (its upload). Textbook: 0.
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

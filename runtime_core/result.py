"""What every source of numbers returns: a Result with metrics, counts and a two-lane timeline.

Times are microseconds everywhere. A Span lives on the "cpu" lane (host work: launch calls,
syncs, graph launches) or the "gpu" lane (kernels, copies) and is measured from the start of
the step, so the model, the simulator and the real GPU all draw on the same axis.
"""
from __future__ import annotations

from dataclasses import dataclass, field

@dataclass
class Span:
    """One bar of the timeline: `lane` is "cpu" or "gpu", `kind` groups colours (launch, kernel, graph, sync, copy)."""

    lane: str
    kind: str
    name: str
    start_us: float
    end_us: float

    @property
    def dur_us(self) -> float:
        return self.end_us - self.start_us


@dataclass
class Result:
    """One step of the widget, from any source ("model", "sim", "cuda" or "recorded").

    `kernel_work_us` is the GPU work the chain asked for (model) or was measured doing (sim,
    cuda); `launch_overhead_us` is always `wall_us - kernel_work_us`. Counts (driver, copy and
    sync calls) are None where the step was not traced: measured or absent, never guessed.
    `host_free_us` (when the host finished dispatching) is None where the source can't know it.
    """

    source: str
    mode: str
    n: int
    work_us: float
    tax_us: float
    dynamic: bool
    wall_us: float
    kernel_work_us: float
    driver_calls: int | None
    graph_valid: bool
    copy_calls: int | None = 0
    sync_calls: int | None = 0
    host_free_us: float | None = None
    policy: str = "fallback"  # a knobs.Policy value
    timeline: list[Span] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    chrome_trace: dict | None = field(default=None, repr=False)  # the profiler's own trace, if any

    @property
    def launch_overhead_us(self) -> float:
        return self.wall_us - self.kernel_work_us

    def metrics(self) -> dict:
        """The JSON keys of design.md's CLI contract (no timeline)."""
        out = {
            "source": self.source,
            "mode": self.mode,
            "n": self.n,
            "work_us": self.work_us,
            "tax_us": self.tax_us,
            "dynamic": self.dynamic,
            "launch_overhead_us": round(self.launch_overhead_us, 3),
            "wall_us": round(self.wall_us, 3),
            "kernel_work_us": round(self.kernel_work_us, 3),
            "driver_calls": self.driver_calls,
            "copy_calls": self.copy_calls,
            "sync_calls": self.sync_calls,
            "graph_valid": self.graph_valid,
        }
        if self.host_free_us is not None:
            out["host_free_us"] = round(self.host_free_us, 3)
        if self.policy != "fallback":
            out["dynamic_policy"] = self.policy
        out.update(self.extra)
        return out

    def timeline_rows(self) -> list[dict]:
        # what asdict gives, built directly: asdict's deep copy cost 15 ms for a 6,000-span step
        return [{"lane": s.lane, "kind": s.kind, "name": s.name, "start_us": s.start_us, "end_us": s.end_us}
                for s in self.timeline]

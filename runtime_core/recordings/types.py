"""What a recording is, as types: `Recording` (meta + points + timelines + labs) and a sweep's `Point`.

A recording is a JSON file under lessons/recordings/ (format in design.md). Its `meta.kind`
says what it holds; `meta.schema_version` says which layout. `store.load()` checks a file
against the JSON Schema of its kind (schemas/<kind>.schema.json) before it builds these types,
so code that reads a Recording never has to guess whether a field exists.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..constants import Constants
from ..knobs import GraphInput, Knobs, Mode, Policy

SCHEMA_VERSION = 2
SOURCE_OF_RECORDING = {"sim": "simulated"}  # meta.backend -> the label; a real device is "recorded"
KINDS = ("sweep", "alloc", "decoder", "bench", "aot", "reduce_overhead", "diagnose", "labs", "serving", "node_costs", "aot_timing",
         "compile_cache")


def simulated_backend(backend: str | None) -> bool:
    """Whether numbers recorded on `backend` (a recording's meta.backend, a point's "backend") are
    the simulator's rather than a real device's."""
    return SOURCE_OF_RECORDING.get(backend, "recorded") == "simulated"


@dataclass(frozen=True)
class Meta:
    """Where a recording comes from.

    Args:
        kind: sweep, alloc, decoder, bench, aot, reduce_overhead, diagnose, labs, serving or aot_timing.
        backend: "cuda" (a real GPU), "sim" (the simulator) or "cpu".
        complete: False for a sweep that ran out of budget: never preferred over a complete one.
        calibration: the calibrated model's constants (sweeps only).
        intrinsic_tax_us: the device's own launch tax, µs (sweeps only).
        file: the file name it was loaded from.
    """

    kind: str
    schema_version: int
    device_name: str
    torch_version: str
    recorded_at: str
    backend: str
    complete: bool
    calibration: Constants | None = None
    intrinsic_tax_us: float | None = None
    file: str = ""

    @property
    def source(self) -> str:
        """The source label a page shows: "recorded" (a real device) or "simulated"."""
        return SOURCE_OF_RECORDING.get(self.backend, "recorded")

    @property
    def simulated(self) -> bool:
        return self.source == "simulated"

    def label(self) -> str:
        """One line a student reads: device · torch · date, and what kind of numbers these are."""
        text = f"{self.device_name} · torch {self.torch_version} · {self.recorded_at[:10]}"
        if self.simulated:
            text += " · simulated, not a GPU"
        if not self.complete:
            text += " · partial"
        return text


@dataclass(frozen=True)
class Point:
    """One measured point of a sweep: the requested knobs (the grid key) and what was measured, µs.

    `driver_calls` and `copy_calls` are None where the step was not traced (a partial sweep).
    """

    mode: Mode
    n: int
    work_us: float
    extra_tax_us: float
    dynamic: bool
    policy: Policy
    wall_us: float
    tax_us: float
    kernel_time_us: float
    launch_overhead_us: float
    graph_valid: bool
    graph_input: GraphInput = GraphInput.COPY
    launcher: str = "python"  # "cpp": measured by the native chain launcher (the low-tax slice)
    model_wall_us: float | None = None
    driver_calls: int | None = None
    copy_calls: int | None = None
    graph_stats: dict | None = None
    wall_us_passes: tuple[float, ...] = ()

    @classmethod
    def from_dict(cls, d: dict) -> "Point":
        return cls(mode=Mode(d["mode"]), n=int(d["n"]), work_us=float(d["work_us"]),
                   extra_tax_us=float(d["extra_tax_us"]), dynamic=bool(d["dynamic"]),
                   policy=Policy(d.get("dynamic_policy", Policy.FALLBACK)), wall_us=float(d["wall_us"]),
                   tax_us=float(d["tax_us"]), kernel_time_us=float(d["kernel_time_us"]),
                   launch_overhead_us=float(d["launch_overhead_us"]), graph_valid=bool(d["graph_valid"]),
                   graph_input=GraphInput(d.get("graph_input", GraphInput.COPY)),
                   launcher=d.get("launcher", "python"),
                   model_wall_us=d.get("model_wall_us"), driver_calls=d.get("driver_calls"),
                   copy_calls=d.get("copy_calls"), graph_stats=d.get("graph_stats"),
                   wall_us_passes=tuple(d.get("wall_us_passes", ())))

    @property
    def knobs(self) -> Knobs:
        """The setting this point was measured at, with its measured launch tax as `tax_us`."""
        return Knobs(self.mode, self.n, self.work_us, tax_us=self.tax_us, extra_tax_us=self.extra_tax_us,
                     dynamic=self.dynamic, policy=self.policy, graph_input=self.graph_input)

    def metrics(self) -> dict:
        """The widget's keys (design.md's `measure` JSON) for this point."""
        out = {"source": "recorded", "mode": self.mode.value, "n": self.n, "work_us": self.work_us,
               "extra_tax_us": self.extra_tax_us, "tax_us": self.tax_us, "dynamic": self.dynamic,
               "wall_us": self.wall_us, "launch_overhead_us": self.launch_overhead_us,
               "kernel_time_us": self.kernel_time_us, "kernel_work_us": self.kernel_time_us,
               "driver_calls": self.driver_calls, "copy_calls": self.copy_calls,
               "graph_valid": self.graph_valid, "model_wall_us": self.model_wall_us}
        if self.policy != Policy.FALLBACK:
            out["dynamic_policy"] = self.policy.value
        if self.graph_input != GraphInput.COPY:
            out["graph_input"] = self.graph_input.value
        if self.launcher != "python":
            out["launcher"] = self.launcher
        if self.graph_stats is not None:
            out["graph_stats"] = self.graph_stats
        return out


@dataclass
class Recording:
    """A validated recording.

    Args:
        meta: where it comes from.
        points: a sweep's points (empty for the other kinds).
        timelines: per setting, the two-lane spans (sweeps).
        labs: lab results, one object per lab.
        data: the whole validated document, for a kind's own sections (decoder, aot).
        path: the file it was read from, if any.
    """

    meta: Meta
    points: list[Point] = field(default_factory=list)
    timelines: dict[str, list[dict]] = field(default_factory=dict)
    labs: dict[str, dict] = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    path: Path | None = None

    def label(self) -> str:
        return self.meta.label()

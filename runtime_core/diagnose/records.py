"""Reading a diagnose recording: its points by setting, sweeps, timelines, step curves, planner cases.

    rec = best_recording()                       # lessons/recordings/, real GPUs first; or None
    rec = DiagnoseRecording.load(SIM_FIXTURE)    # the simulated demo (tests/fixtures/)
    rec.sweep("cnn")                             # fp32 batch sweep at the default shape
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..constants import Constants
from ..errors import UsageError
from ..recordings import store
from ..recordings.types import Recording
from .predict import Machine
from .record_grid import timeline_key
from .step_curve import StepCurve

ROOT = Path(__file__).resolve().parents[2]
SIM_FIXTURE = ROOT / "tests" / "fixtures" / "diagnose_sim.json"


@dataclass
class DiagnoseRecording:
    """A validated diagnose recording, with lookups by (model, dtype, batch, seq)."""

    rec: Recording

    @classmethod
    def load(cls, path) -> "DiagnoseRecording":
        return cls(store.load(path, kind="diagnose"))

    @property
    def doc(self) -> dict:
        return self.rec.data

    @property
    def points(self) -> list[dict]:
        return self.doc["points"]

    @property
    def meta(self):
        return self.rec.meta

    def label(self) -> str:
        return self.rec.label()

    def models(self) -> list[str]:
        """Model names, in the recording's order."""
        return list(dict.fromkeys(p["model"] for p in self.points))

    def default_shape(self, model: str):
        return self.doc["meta"]["models"].get(model, {}).get("default_shape")

    def about(self, model: str) -> dict:
        return self.doc["meta"]["models"].get(model, {})

    def settings(self, model: str) -> list[dict]:
        return [p for p in self.points if p["model"] == model]

    def point(self, model: str, dtype: str, batch: int, seq) -> dict | None:
        return next((p for p in self.points if (p["model"], p["dtype"], p["batch"], p.get("seq")) ==
                     (model, dtype, batch, seq)), None)

    def sweep(self, model: str, dtype: str = "fp32") -> list[dict]:
        """The batch sweep at the model's default shape, by batch."""
        seq = self.default_shape(model)
        return sorted((p for p in self.points if (p["model"], p["dtype"], p.get("seq")) == (model, dtype, seq)),
                      key=lambda p: p["batch"])

    def token_sweep(self, model: str) -> list[dict]:
        """Batch-1 fp32 points at more than one shape (the encoder's tokens), by shape."""
        pts = sorted((p for p in self.points if (p["model"], p["dtype"], p["batch"]) == (model, "fp32", 1)
                      and p.get("seq") is not None), key=lambda p: p["seq"])
        return pts if len(pts) >= 2 else []

    def curve(self, model: str, kind: str = "batch") -> StepCurve:
        """The planner's cost model for `model`: by batch, or by tokens (a token sweep)."""
        pts = self.sweep(model) if kind == "batch" else self.token_sweep(model)
        if len(pts) < 2:
            raise UsageError(f"this recording has no {kind} sweep of {model}")
        return StepCurve.from_points(pts, kind)

    def timeline(self, model: str, dtype: str, batch: int, seq, variant: str) -> list[dict]:
        return (self.doc.get("timelines") or {}).get(timeline_key(model, dtype, batch, seq, variant), [])

    def timeline_batches(self, model: str) -> list[int]:
        seq = self.default_shape(model)
        return sorted(b for b in {p["batch"] for p in self.sweep(model)}
                      if self.timeline(model, "fp32", b, seq, "eager"))

    def planner_case(self, model: str, preset: str) -> dict | None:
        return next((c for c in self.doc.get("planner", []) if (c["model"], c["preset"]) == (model, preset)), None)

    def machine(self, node_spread_us: float | None = None) -> Machine:
        """The recording's mean constants; the band's node spread is its own (meta.node_spread_us),
        or `node_spread_us` for a recording made before it kept one."""
        from .machine import with_node_costs
        meta = self.doc["meta"]
        spread = meta.get("node_spread_us")
        m = Machine(Constants.from_dict(meta["calibration"]), meta["intrinsic_tax_us"], f"recording {self.meta.file}")
        m = with_node_costs(m, meta.get("device_name"), self.meta.simulated)
        return replace(m, node_spread_us=float(spread if spread is not None else (node_spread_us or 0.0)))

    def summary(self) -> dict:
        return self.doc.get("summary") or {}


def best_recording(directory: Path | None = None, grid: str = "zoo") -> DiagnoseRecording | None:
    """The diagnose recording a page shows: complete before partial, a GPU before the simulator.
    `grid`: "zoo" (our own models), "external" (meta.set: public networks, validation/external.py)
    or "heldout" (public networks outside that grid, validation/heldout.py, meta.grid "heldout",
    judged by the same targets)."""
    def which(doc: dict) -> str:
        s = recording_set(doc)
        return "heldout" if s == "external" and (doc.get("meta") or {}).get("grid") == "heldout" else s
    found = [r for r in store.scan("diagnose", directory)[0] if which(r.data) == grid]
    rec = max(found, key=store.rank, default=None)
    return DiagnoseRecording(rec) if rec else None


def recording_set(doc: dict) -> str:
    """Which grid a diagnose recording measured: "external" (public networks) or "zoo"."""
    return (doc.get("meta") or {}).get("set") or "zoo"


def simulated_demo() -> DiagnoseRecording | None:
    """The simulated demo shipped as a test fixture (fake models; labelled simulated)."""
    return DiagnoseRecording.load(SIM_FIXTURE) if SIM_FIXTURE.exists() else None

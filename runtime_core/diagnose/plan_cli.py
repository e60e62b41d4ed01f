"""`diagnose --model M --plan PRESET`: which shapes to capture, priced from a diagnose recording.

No device is needed: the step curve comes from the recording's batch sweep (or the encoder's
token sweep with --size-kind tokens).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from .planner import CostModel, compare, default_budget_bytes, preset
from .records import DiagnoseRecording, best_recording

MB = 1 << 20
DEFAULT_MAX_SIZE = 256  # --max-size left out: up to this, or the largest size measured


def recording_for(path: str | None) -> DiagnoseRecording:
    if path:
        from ..cli_args import named_as_typed
        with named_as_typed("--from", path):
            return DiagnoseRecording.load(Path(path))
    rec = best_recording()
    if rec is None:
        from ..recordings.store import recordings_dir
        raise UsageError(f"no diagnose recording in {recordings_dir()}; pass --from PATH "
                         "(e.g. tests/fixtures/diagnose_sim.json, a simulated demo)")
    return rec


def run_plan(a) -> dict:
    rec = recording_for(a.recording)
    if not a.model or a.model not in rec.models():
        raise UsageError(f"--model must be one of the recording's models: {', '.join(rec.models())}")
    kind = getattr(a, "size_kind", "batch")
    curve = rec.curve(a.model, kind)
    if a.max_size is not None and a.max_size > curve.max_size:
        raise UsageError(f"--max-size {a.max_size} is above {curve.max_size}, the largest {kind} size the recording "
                         f"measured for {a.model}: no step time is known past it")
    top = min(DEFAULT_MAX_SIZE, curve.max_size) if a.max_size is None else a.max_size
    dist = preset(a.plan, top, a.zipf_exponent, a.sizes, measured_max=curve.max_size)
    budget = default_budget_bytes(curve, top) if a.budget_mb is None else a.budget_mb * MB
    cost = CostModel(curve, budget)
    return {"recording": rec.label(), "source": rec.meta.source, "model": a.model, "size_kind": kind,
            "distribution": dist.label, "budget_bytes": int(budget),
            "requests_per_capture": cost.requests_per_capture, "sets": compare(dist, cost)}

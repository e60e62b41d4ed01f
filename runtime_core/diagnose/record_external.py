"""`diagnose --record PATH --set external`: the diagnosis checked on public networks nobody here wrote.

The grid is validation/external.py's (torchvision and transformers networks, random weights, fp32
and bf16, batch 1-64: 48 points). Each point is diagnosed exactly as one `diagnose --model
package.module:factory --no-compile` call diagnoses it: profiled in the worker, H timed in its
rounds, predicted, then eager and our graph measured. The loop shares one process (and its
calibrations, as the zoo's recording does), but each point's prediction uses only its own H
rounds. Each point keeps its profile (every GPU operation of the eager step and of the step as it
would be captured), so `snapshot` can recompute every prediction offline after a model change.

It writes after each point (atomically) under a time budget; `--resume` continues a partial file
on the same device. The summary holds accuracy.external_accuracy's three targets.
"""
from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

from ..errors import UsageError
from ..recordings import store
from .accuracy import external_accuracy
from .diagnosis import diagnose, gpu_idle_share, predicted_fields, prepare
from .machine import mean_machine, node_spread_us, sample_of
from .spec import Spec

GRID_MODULE = "validation.external"
POINT_S = 15.0  # an H200 point's worst case (BERT at batch 64, fp32), for the budget check
CALIBRATE_EVERY = 16


def grid_points() -> list[dict]:
    """The fixed external grid (imports validation.external, which needs none of its libraries yet)."""
    try:
        return importlib.import_module(GRID_MODULE).grid()
    except ModuleNotFoundError as e:
        raise UsageError(f"the external grid needs {GRID_MODULE} on the Python path (run from the "
                         f"repository root): {e}") from None


def key(p: dict) -> tuple:
    return (p["model"], p["dtype"], p["batch"], p.get("seq"))


def open_target(runner, path: Path, resume: bool, force: bool) -> dict:
    if resume and path.exists():
        store.check_target(path, force=True)
        doc = store.load(path, kind="diagnose").data
        m = doc["meta"]
        if m.get("set") != "external":
            raise UsageError(f"{path.name} is not an external-grid recording; record to a new file")
        if (m["backend"], m["device_name"]) != (runner.backend, runner.device_name):
            raise UsageError(f"cannot resume a recording of {m['device_name']} on {runner.device_name}")
        return doc
    store.check_target(path, force=force or resume)
    from ..engine.measure import _torch_version
    meta = store.new_meta("diagnose", runner.device_name, _torch_version(), runner.backend, complete=False,
                          set="external", calibration_passes=[], models={}, measured_with="--no-compile",
                          node_spread_us=node_spread_us(runner.device_name, runner.dev.deterministic))
    return {"meta": meta, "points": []}


def run_external(runner, path: Path, budget_s: float = 420.0, resume: bool = False, force: bool = False,
                 only: list[dict] | None = None) -> dict:
    """Record (or continue) the external grid at `path`; returns the document."""
    t0 = time.monotonic()
    path = Path(path)
    doc = open_target(runner, path, resume, force)
    points = only if only is not None else grid_points()
    done = {key(p) for p in doc["points"]}
    todo = [g for g in points if key(g) not in done]
    for g in points:
        doc["meta"]["models"].setdefault(g["model"], _about(runner, g["model"], g.get("seq")))
    doc["meta"]["complete"] = False
    calibrations = doc["meta"]["calibration_passes"]
    calibrations.append(sample_of(runner.machine("live")))
    for i, g in enumerate(todo, start=1):
        spent = time.monotonic() - t0
        if spent + POINT_S * runner.cost_scale > budget_s:
            print(f"diagnose record: budget of {budget_s:.0f} s reached after {spent:.0f} s; {len(todo) - i + 1} "
                  "points left: run again with --resume", file=sys.stderr)
            return _write(path, doc, complete=False)
        if i > 1 and (i - 1) % CALIBRATE_EVERY == 0:
            calibrations.append(sample_of(runner.machine("live")))
        t_point = time.monotonic()
        machine = mean_machine(calibrations, doc["meta"]["node_spread_us"])
        spec = prepare(runner, Spec(g["model"], g["batch"], g.get("seq"), g["dtype"]))
        p = diagnose(runner, spec, machine, ("eager", "our_graph"))
        p.pop("timelines", None)
        doc["points"].append(p)
        _write(path, doc, complete=False)
        print(f"diagnose record: [{i}/{len(todo)}] {spec.label()}: predicted {p['predicted_graph_speedup']} "
              f"{p.get('predicted_speedup_band')}, measured {p['measured_graph_speedup']} in "
              f"{time.monotonic() - t_point:.1f} s", file=sys.stderr, flush=True)
    return _write(path, doc, complete=len(doc["points"]) >= len(points))


def snapshot(doc: dict) -> dict:
    """Every prediction recomputed from the points' own profiles, H rounds and the mean constants."""
    machine = mean_machine(doc["meta"]["calibration_passes"], doc["meta"].get("node_spread_us", 0.0))
    doc["meta"]["calibration"] = machine.consts.as_dict()
    doc["meta"]["intrinsic_tax_us"] = round(machine.tax_us, 3)
    for p in doc["points"]:
        p.update(predicted_fields(p, machine))
        p["gpu_idle_share"] = gpu_idle_share(p)
    doc["summary"] = {"accuracy": external_accuracy(doc["points"])}
    return doc


def _write(path: Path, doc: dict, complete: bool) -> dict:
    doc["meta"]["complete"] = complete
    if doc["points"]:
        store.write(path, snapshot(doc))
    return doc


def _about(runner, model: str, seq) -> dict:
    entry = runner.resolve(model)
    fn = entry.factory() if getattr(entry, "user", False) else None
    doc = (fn.__doc__ if fn is not None else getattr(entry, "about", "")) or ""
    line = (doc.strip().splitlines() or [model])[0]
    return {"about": line[:200] or model, "shape_name": "tokens" if seq else "", "default_shape": seq}

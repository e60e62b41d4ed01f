"""`diagnose --sweep --record PATH`: the recording students without a GPU see.

It runs the items of record_grid.py in order, writing the file (atomically) after each, under a
time budget: when the next item would not fit, it stops with meta.complete = false, and a later
run with --resume continues where it stopped (on the same device only). The base points are
measured in several passes, minutes apart (record_grid.PASSES: the host drifts), and each point
keeps the median of its passes; resuming a recording of fewer passes adds the missing ones. A run
calibrates the machine at its start, at each new pass, and every CALIBRATE_EVERY points (as the
widget's sweep interleaves its calibrations); predictions are recomputed from the mean of all of them, because
the constants describe the machine, not a point, and the host drifts over a run. The
prediction of a point still uses only that point's own K, B and H.
"""
from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

from ..cli_args import named_as_typed
from ..errors import UsageError
from ..recordings import store
from .accuracy import accuracy
from .bucket_serving import measure_sets
from .diagnosis import diagnose, fold_passes, gpu_idle_share, measure_pass, predicted_fields, prepare
from .machine import recording_machine, sample_of
from .measure_variants import VARIANTS, measure_variants
from .planner import CostModel, compare, default_budget_bytes, preset
from .record_grid import (ESTIMATE_S, PASSES, PLANNER_MAX_SIZE, QUICK, TIMELINE_BATCHES, TORCH_VARIANTS,
                          default_models, items, point_key, timeline_key)
from .spec import Spec
from .step_curve import StepCurve
from .sweep import crossovers


def open_target(runner, path: Path, resume: bool, force: bool) -> dict:
    """The recording to extend (--resume) or a new one; every check happens here, before any work."""
    if importlib.util.find_spec("jsonschema") is None:  # store.write validates with it
        raise UsageError("writing a recording needs the jsonschema package; on a GPU machine without a "
                         "registry, carry its wheels (../shared/tools/gpu-wheels.sh)")
    if resume and path.exists():
        store.check_target(path, force=True)
        with named_as_typed("--record", str(path)):  # named as typed, not by its file name alone
            doc = store.load(path, kind="diagnose").data
        m = doc["meta"]
        if (m["backend"], m["device_name"]) != (runner.backend, runner.device_name):
            raise UsageError(f"cannot resume a recording of {m['device_name']} ({m['backend']}) on "
                             f"{runner.device_name} ({runner.backend}); record to a new file")
        return doc
    store.check_target(path, force=force or resume)
    from ..engine.measure import _torch_version
    meta = store.new_meta("diagnose", runner.device_name, _torch_version(), runner.backend, complete=False,
                          calibration_passes=[], models={}, set="zoo")
    return {"meta": meta, "points": [], "timelines": {}, "planner": []}


CALIBRATE_EVERY = 16  # base or pass items between two calibrations: the constants drift with the host too


def run_record(runner, path: Path, budget_s: float = 420.0, resume: bool = False, force: bool = False,
               quick: bool = False, models=None, variants: bool = True, constants: str = "live",
               passes: int | None = None) -> dict:
    """Record (or continue) the diagnose recording at `path`; returns the document. `passes`
    over the base points: default PASSES, or 1 on a deterministic device (or what a resumed
    recording asked for)."""
    t0 = time.monotonic()
    path = Path(path)
    doc = open_target(runner, path, resume, force)
    for m in models or ():
        runner.resolve(m)
        if m not in runner.catalog:
            raise UsageError(f"--record measures zoo models only; diagnose {m} without --record")
    models = list(models or default_models(runner, quick))
    if quick:
        _check_quick_keeps_all(doc, path, {it.key for it in items(runner, models, True, variants, 1)})
    for m in models:
        e = runner.catalog[m]
        doc["meta"]["models"][m] = {"about": e.about, "shape_name": e.shape_name, "default_shape": e.default_shape}
    had = doc["meta"].get("passes") or 1
    if passes is not None and passes < had:
        raise UsageError(f"{path.name} already has {had} passes per point; --passes can add passes, "
                         f"not remove them (record to a new file for fewer)")
    doc["meta"]["passes"] = max(passes or (1 if runner.dev.deterministic else PASSES), had)
    todo = [it for it in items(runner, models, quick, variants, doc["meta"]["passes"]) if not _done(doc, it)]
    if not todo and doc["points"]:
        return _finish(doc, path, complete=True)  # nothing left: no need to calibrate again
    doc["meta"]["complete"] = False  # until the last item: a run killed midway leaves a partial file
    calibrations = doc["meta"]["calibration_passes"]
    calibrations.append(sample_of(runner.machine(constants)))
    since_calibration = 0
    for i, it in enumerate(todo, start=1):
        spent = time.monotonic() - t0
        prev = todo[i - 2] if i > 1 else None
        new_pass = prev and (it.phase, it.pass_no) != (prev.phase, prev.pass_no) and it.phase in ("pass", "planner")
        calibrate = new_pass or (it.phase in ("base", "pass") and since_calibration >= CALIBRATE_EVERY)
        if spent + (ESTIMATE_S[it.phase] + calibrate * ESTIMATE_S["calibrate"]) * runner.cost_scale > budget_s:
            print(f"diagnose record: budget of {budget_s:.0f} s reached after {spent:.0f} s; {len(todo) - i + 1} "
                  f"items left: run again with --resume", file=sys.stderr)
            return _finish(doc, path, complete=False)
        if calibrate:
            calibrations.append(sample_of(runner.machine(constants)))  # another sample, minutes later
            since_calibration = 0
        since_calibration += 1
        t_item = time.monotonic()
        _run_item(runner, doc, it, quick)
        _write(path, doc)
        print(f"diagnose record: [{i}/{len(todo)}] {it.label()} in {time.monotonic() - t_item:.1f} s "
              f"({time.monotonic() - t0:.0f} s of {budget_s:.0f})", file=sys.stderr)
    return _finish(doc, path, complete=True)


def _check_quick_keeps_all(doc: dict, path: Path, small: set) -> None:
    """Resuming a full recording with --quick would call it complete at the small grid: refused
    when the file holds a point outside the small grid."""
    outside = [p for p in doc["points"] if point_key(p) not in small]
    if outside:
        raise UsageError(f"{path.name} holds {len(outside)} points outside the --quick grid of these models (it "
                         "was started without --quick, or with other models); resume it as it was started, or "
                         "record the quick grid to a new file")


def _done(doc: dict, it) -> bool:
    if it.phase == "planner":
        return any((c["model"], c["preset"]) == (it.model, it.preset) for c in doc["planner"])
    p = _point(doc, it.key)
    if it.phase == "base":
        return p is not None
    if it.phase == "pass":
        return p is not None and len(p.get("passes") or [None]) >= it.pass_no
    return p is not None and set(TORCH_VARIANTS) <= set(p.get("variants", {}))


def _point(doc: dict, key: tuple) -> dict | None:
    return next((p for p in doc["points"] if point_key(p) == key), None)


def _run_item(runner, doc: dict, it, quick: bool) -> None:
    machine = recording_machine(doc["meta"]["calibration_passes"], doc["meta"])
    if it.phase == "base":
        p = diagnose(runner, prepare(runner, Spec(it.model, it.batch, it.seq, it.dtype)), machine)
        lines = p.pop("timelines")
        if it.batch in TIMELINE_BATCHES and it.dtype == "fp32" and it.seq == runner.catalog[it.model].default_shape:
            for variant, spans in lines.items():
                doc["timelines"][timeline_key(it.model, it.dtype, it.batch, it.seq, variant)] = spans
        doc["points"].append(p)
    elif it.phase == "pass":
        p = fold_passes(_point(doc, it.key))  # gives a point recorded before passes its first one
        spec = prepare(runner, Spec(it.model, it.batch, it.seq, it.dtype))
        p["passes"].append(measure_pass(runner, spec, guess_us=p["predicted_eager_us"]))  # folded by _write
    elif it.phase == "planner":
        doc["planner"].append(_planner_case(runner, doc, it, quick))
    else:
        p = _point(doc, it.key)
        step = runner.build(prepare(runner, Spec(it.model, it.batch, it.seq, it.dtype)))
        p["variants"] = measure_variants(runner, step, VARIANTS, guess_us=p["eager_us"])
        del step
        runner.cleanup()


def _planner_case(runner, doc: dict, it, quick: bool) -> dict:
    """Plan the preset's bucket set from this recording's own batch sweep, then measure it
    beside powers of two and a serving engine's defaults, under the same memory budget."""
    pts = [p for p in doc["points"] if (p["model"], p["dtype"], p.get("seq")) == (it.model, "fp32", it.seq)]
    curve = StepCurve.from_points(pts, "batch")
    top = min(QUICK["planner_max_size"] if quick else PLANNER_MAX_SIZE, curve.max_size)
    dist = preset(it.preset, top)
    cost = CostModel(curve, default_budget_bytes(curve, top))
    predicted = compare(dist, cost)
    sets = {k: predicted[k]["buckets"] for k in ("planner", "powers_of_two", "serving_default")}
    measured = measure_sets(runner, Spec(it.model, 1, it.seq, "fp32"), sets, dist)
    return {"model": it.model, "dtype": "fp32", "seq": it.seq, "kind": "batch", "preset": it.preset,
            "distribution": dist.label, "max_size": top, "budget_bytes": int(cost.budget_bytes),
            "requests_per_capture": cost.requests_per_capture, "predicted": predicted, "measured": measured}


def snapshot(doc: dict) -> dict:
    """Recompute the derived fields: mean constants, every point's prediction, crossovers, accuracy."""
    machine = recording_machine(doc["meta"]["calibration_passes"], doc["meta"])
    doc["meta"]["calibration"] = machine.consts.as_dict()
    doc["meta"]["intrinsic_tax_us"] = round(machine.tax_us, 3)
    for p in doc["points"]:
        fold_passes(p)
        p.update(predicted_fields(p, machine))
        p["gpu_idle_share"] = gpu_idle_share(p)
    cross = {}
    for model, info in doc["meta"]["models"].items():
        sweep = [p for p in doc["points"] if (p["model"], p["dtype"], p.get("seq")) ==
                 (model, "fp32", info["default_shape"])]
        if len(sweep) >= 2:
            cross[model] = crossovers(sweep)
    doc["summary"] = {"accuracy": accuracy(doc["points"], cross)}
    return doc


def _write(path: Path, doc: dict) -> None:
    if doc["points"]:  # a recording without a measured point is nothing to keep
        store.write_own(path, snapshot(doc))


def _finish(doc: dict, path: Path, complete: bool) -> dict:
    doc["meta"]["complete"] = complete
    _write(path, doc)
    return doc

"""`python -m runtime_core sweep`: measure a grid of widget points and write a recording.

The grid (issue 3): N × work × mode × dynamic with no extra tax, an extra-tax slice, and the
dynamic-shape policies. The sweep has a time budget and `--resume`, so a long grid can run
across several GPU commands: work already in the file is skipped, and the file is rewritten
as it goes. Each (mode, N, dynamic) group is profiled once, at its first work value; the
driver-call counts of that trace stand for the group (they don't depend on work).
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from ..errors import UsageError
from ..knobs import Knobs
from ..model import formulas as model
from ..model.calibrate import calibrate, mean_constants
from ..engine.device import get_device
from ..engine.measure import measure
from . import store
from .lookup import timeline_key
from ..engine.workload import ChainWorkload

GRID_N = (1, 10, 30, 120, 300, 1000)
GRID_WORK_US = (0, 1, 2, 4, 6, 10, 20, 40, 100)
TAX_SLICE = dict(n=120, work_us=(2, 40), extra_tax_us=(6, 20))
POLICY_SLICE = dict(n=(10, 120), work_us=(2,), policies=("recapture", "bucket"))
# Settings whose full timelines ship: the seed's defaults and the checkpoint's steps.
TIMELINE_SETTINGS = [(m, 120, w, False) for m in ("eager", "streams", "graph") for w in (2, 40)] + [
    ("graph", 120, 2, True)]
MAX_TIMELINE_KERNELS = 300
CALIBRATIONS_PER_PASS = 2  # spread over each pass: the machine drifts, a mean follows it


def grid(quick: bool = False) -> list[dict]:
    """Every point of the sweep as its knob dict, in the order they are measured."""
    ns, works = ((10, 120), (2, 40)) if quick else (GRID_N, GRID_WORK_US)
    pts = [dict(mode=m, n=n, work_us=w, extra_tax_us=0, dynamic=d, policy="fallback")
           for d in (False, True) for m in ("eager", "streams", "graph") for n in ns for w in works]
    if not quick:
        pts += [dict(mode=m, n=TAX_SLICE["n"], work_us=w, extra_tax_us=x, dynamic=False, policy="fallback")
                for m in ("eager", "streams", "graph") for w in TAX_SLICE["work_us"]
                for x in TAX_SLICE["extra_tax_us"]]
        pts += [dict(mode="graph", n=n, work_us=w, extra_tax_us=0, dynamic=True, policy=p)
                for p in POLICY_SLICE["policies"] for n in POLICY_SLICE["n"] for w in POLICY_SLICE["work_us"]]
    return pts


def _knobs(p: dict, tax_us: float | None = None) -> Knobs:
    """The Knobs of a grid entry or a recorded point."""
    k = Knobs(p["mode"], p["n"], float(p["work_us"]), extra_tax_us=float(p.get("extra_tax_us", 0)),
              dynamic=bool(p["dynamic"]), policy=p.get("dynamic_policy", p.get("policy", "fallback")))
    return k if tax_us is None else k.replace(tax_us=tax_us)


def _key(p: dict) -> tuple:
    return (p["mode"], p["n"], float(p["work_us"]), float(p.get("extra_tax_us", 0)), bool(p["dynamic"]),
            p.get("dynamic_policy", p.get("policy", "fallback")))


def _group(p: dict) -> tuple:
    return (p["mode"], p["n"], bool(p["dynamic"]), p.get("dynamic_policy", p.get("policy", "fallback")),
            float(p.get("extra_tax_us", 0)))


def run_sweep(out: Path, backend: str = "auto", budget_s: float = 480.0, resume: bool = False,
              quick: bool = False, passes: int | None = None) -> dict:
    """Measure the grid into the recording at `out`; returns the recording (maybe partial).

    A GPU sweep makes `passes` (default 5) timing passes over the whole grid and keeps per
    point the trimmed mean of the passes' medians. The host drifts between a fast and a slow
    state for tens of seconds at a time (on an H200 VM: blocking launches cost ~16.5 or ~23 µs),
    so one sample of a point lands in either state; the mean over passes spread across the run
    is the expected cost, and calibrate() samples, spread the same way, are averaged alike.
    Each point also measures the launch tax of its own moment (measure() does), kept the same
    way. Traces (timelines, counted driver calls) come last, once per group, from the trace
    worker, so no second GPU context exists while anything is timed.
    """
    t_start = time.monotonic()
    check_writable(out)
    dev = get_device(backend)
    rec = store.load(out, kind="sweep").data if (resume and out.exists()) else None
    if rec is not None:
        _check_same_device(rec, dev)
        passes = passes or rec["meta"].get("passes")
    passes = passes or (1 if dev.deterministic else 5)
    _pin_to_one_core()
    if rec is None:
        rec = {"meta": _meta(dev), "points": [], "timelines": {}}
    points = {_key(p): p for p in rec["points"]}
    order = grid(quick)
    for pass_i in range(passes):
        if not _timing_pass(dev, rec, points, order, pass_i, t_start, budget_s, out):
            return _finish(rec, points, order, passes, out, complete=False)
    if not _trace_pass(dev, rec, points, order, t_start, budget_s, out):
        return _finish(rec, points, order, passes, out, complete=False)
    return _finish(rec, points, order, passes, out, complete=True)


def _timing_pass(dev, rec, points, order, pass_i, t_start, budget_s, out) -> bool:
    meta = rec["meta"]
    spots = {round(j * len(order) / CALIBRATIONS_PER_PASS) for j in range(CALIBRATIONS_PER_PASS)}
    for i, k in enumerate(order):
        if i in spots and len(meta["calibration_passes"]) < (pass_i + 1) * CALIBRATIONS_PER_PASS:
            _calibrate_into(dev, meta, first=not meta["calibration_passes"])
        p = points.setdefault(_key(k), _new_point(k))
        if len(p["wall_us_passes"]) > pass_i:
            continue
        if time.monotonic() - t_start > budget_s:
            return False
        r = measure(dev, _knobs(k), trace=False)
        p["wall_us_passes"].append(round(r.wall_us, 3))
        p.setdefault("tax_us_passes", []).append(round(r.tax_us - float(k["extra_tax_us"]), 3))
        p.setdefault("kernel_time_us", round(r.kernel_work_us, 3))
        p.setdefault("wall_p10_us", r.extra["wall_p10_us"])
        p.setdefault("wall_p90_us", r.extra["wall_p90_us"])
        p["graph_valid"] = r.graph_valid
        if "graph_stats" in r.extra and k["policy"] != "fallback":
            p["graph_stats"] = r.extra["graph_stats"]
        if i % 20 == 19:
            _write(out, _snapshot(rec, points, order))
    return True


def check_writable(out: Path) -> None:
    """Fail before any measuring if the recording can't be written where asked."""
    store.check_target(out, force=True)


def _check_same_device(rec: dict, dev) -> None:
    """Resuming must not mix numbers from two machines (or the simulator) in one recording."""
    m = rec["meta"]
    if (m["backend"], m["device_name"]) != (str(dev.backend), dev.name):
        raise UsageError(f"cannot resume a recording of {m.get('device_name')} ({m.get('backend')}) "
                         f"on {dev.name} ({dev.backend}); write to a new --out instead")


def _calibrate_into(dev, meta: dict, first: bool) -> None:
    """Add one calibration sample (constants and launch tax) to the recording's meta."""
    tax = dev.measure_tax()
    cal = calibrate(dev, passes=2 if first else 1)
    meta["calibration_passes"].append(dict(cal.as_dict(), tax_us=round(tax, 3)))


def _trace_pass(dev, rec, points, order, t_start, budget_s, out) -> bool:
    """One traced step per (mode, N, dynamic, policy, tax) group, plus the shipped timelines."""
    counted: dict[tuple, tuple[int, int]] = {}
    for p in points.values():
        if "driver_calls" in p:
            counted.setdefault(_group(p), (p["driver_calls"], p["copy_calls"]))
    for k in order:
        g = _group(k)
        want_tl = ((k["mode"], k["n"], k["work_us"], k["dynamic"]) in TIMELINE_SETTINGS
                   and not k["extra_tax_us"] and k["policy"] == "fallback")
        tl_key = timeline_key(k["mode"], k["n"], k["work_us"], k["dynamic"])
        if g in counted and not (want_tl and tl_key not in rec["timelines"]):
            continue
        if time.monotonic() - t_start > budget_s:
            return False
        tr = dev.trace_step(dict(mode=k["mode"], n=k["n"], work_us=float(k["work_us"]),
                                 extra_tax_us=float(k["extra_tax_us"]), dynamic=k["dynamic"],
                                 policy=k["policy"], cache_size=4,
                                 numel=ChainWorkload(k["n"], float(k["work_us"])).base_numel(dev)))
        counted.setdefault(g, (tr.driver_calls, tr.copy_calls))
        if want_tl:
            rec["timelines"][tl_key] = _clip(tr.spans)
    for p in points.values():
        if _group(p) in counted:
            p["driver_calls"], p["copy_calls"] = counted[_group(p)]
    return True


def _new_point(k: dict) -> dict:
    p = {"mode": k["mode"], "n": k["n"], "work_us": k["work_us"], "extra_tax_us": k["extra_tax_us"],
         "dynamic": k["dynamic"], "wall_us_passes": []}
    if k["policy"] != "fallback":
        p["dynamic_policy"] = k["policy"]
    return p


def trimmed_mean(xs: list[float]) -> float:
    """Mean without the lowest and highest sample (when there are at least 4): one hiccup of
    the host (a 4x slow step) must not move a point, but both host states should count."""
    s = sorted(xs)
    if len(s) >= 4:
        s = s[1:-1]
    return statistics.fmean(s)


def _snapshot(rec: dict, points: dict, order: list) -> dict:
    """The recording as it stands: finished fields on every point measured at least once."""
    consts, tax = mean_constants(rec["meta"]["calibration_passes"])
    rec["meta"]["calibration"] = consts.as_dict()
    rec["meta"]["intrinsic_tax_us"] = round(tax, 3)
    out = []
    for k in order:
        p = points.get(_key(k))
        if not p or not p["wall_us_passes"]:
            continue
        p["wall_us"] = round(trimmed_mean(p["wall_us_passes"]), 3)
        p["tax_us"] = round(trimmed_mean(p.get("tax_us_passes") or [tax]) + float(p["extra_tax_us"]), 3)
        p["launch_overhead_us"] = round(p["wall_us"] - p["kernel_time_us"], 3)
        pred = model.predict(_knobs(p, tax_us=p["tax_us"]), consts)
        p["model_wall_us"] = round(pred.wall_us, 3)
        out.append(p)
    rec["points"] = out
    return rec


def _finish(rec, points, order, passes, out, complete: bool) -> dict:
    _snapshot(rec, points, order)
    rec["meta"]["passes"] = passes
    rec["meta"]["complete"] = complete and all("driver_calls" in p for p in rec["points"])
    _write(out, rec)
    return rec


def _pin_to_one_core() -> None:
    """Keep the measuring thread on one CPU: migrations between cores add timing noise."""
    try:
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) > 2:
            os.sched_setaffinity(0, {cores[len(cores) // 2]})
    except (AttributeError, OSError):
        pass


def _clip(spans) -> list[dict]:
    """Keep the timeline small: the spans up to the end of the 300th GPU kernel."""
    kernels = [s for s in spans if s.lane == "gpu" and s.kind == "kernel"]
    cut = kernels[MAX_TIMELINE_KERNELS - 1].end_us if len(kernels) > MAX_TIMELINE_KERNELS else float("inf")
    return [{"lane": s.lane, "kind": s.kind, "name": s.name, "start_us": round(s.start_us, 3),
             "end_us": round(s.end_us, 3)} for s in spans if s.start_us <= cut]


def _meta(dev) -> dict:
    from ..engine.measure import _torch_version
    return store.new_meta("sweep", dev.name, _torch_version(), str(dev.backend), complete=False,
                          calibration_passes=[], **dev.describe())


def _write(out: Path, rec: dict) -> None:
    if rec["points"]:  # a sweep with no measured point yet is not a recording: nothing to keep
        store.write(out, rec)


def retrace(out: Path, backend: str = "auto") -> dict:
    """Trace the shipped timelines of an existing recording again (no timing), with the
    recording's own kernel-size table so every buffer has the size it was timed at."""
    rec = store.load(out, kind="sweep").data
    dev = get_device(backend)
    dev.use_sizing(rec["meta"].get("kernel_size_table"))
    rec["timelines"] = {}
    points = {_key(p): p for p in rec["points"]}
    _trace_pass(dev, rec, points, grid(), time.monotonic(), 1e9, out)
    rec["meta"]["retraced_at"] = store.now_utc()
    _write(out, rec)
    return rec


def refresh(out: Path) -> dict:
    """Recompute a recording's derived fields (per-point means, calibration, model_wall_us) from
    its raw passes, with no device: for when the model's formulas change after a recording."""
    rec = store.load(out, kind="sweep").data
    order = list(rec["points"])  # exactly the points the file has, in its order
    points = {_key(p): p for p in order}
    complete = rec["meta"].get("complete", False)
    _snapshot(rec, points, order)
    rec["meta"]["complete"] = complete
    rec["meta"]["refreshed_at"] = store.now_utc()
    _write(out, rec)
    return rec

"""`python -m runtime_core sweep`: measure the grid (grid.py) on a device into a recording.

A GPU sweep makes `passes` (default 5) timing passes over the whole grid and keeps, per point,
the trimmed mean of the passes' medians. The host drifts between a fast and a slow state for tens
of seconds at a time (on the H200 VM blocking launches cost ~16.5 or ~23 µs), so one sample lands
in either state. The calibration samples are therefore interleaved with the points (every
`CALIBRATION_EVERY` points), and the calibrated constants are their mean: the model is priced
at the same mix of host states the points were measured in. A deterministic device (the
simulator) needs one pass and one calibration.

The low-tax slice runs on the device's native chain launcher (C++ on a GPU) once per pass.
Traces (timelines, counted driver calls) come last, once per group, from the device's tracer.
The sweep has a time budget and `--resume`: a partial recording says `meta.complete: false`, is
never preferred over a complete one, and a later run continues it.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from ..cli_args import named_as_typed
from ..engine.cores import pin_to_one_core
from ..engine.backends import describe, use_sizing
from ..engine.measure import measure
from ..engine.native import native_launcher
from ..engine.traced_step import trace_spec
from ..engine.tracing import trace_step
from .shipped import get_device
from ..engine.workload import ChainWorkload
from ..errors import UsageError
from ..model import formulas as model
from ..model.calibrate import calibrate_with_raw, derive, mean_constants, methods
from . import store
from .grid import TIMELINE_SETTINGS, group, grid, key, knobs_of, low_tax_grid, new_point
from .lookup import timeline_key

CALIBRATION_EVERY = 60   # points between two calibration samples on a drifting device
MAX_TIMELINE_KERNELS = 300
SAVE_EVERY = 5  # points between saves: a SIGKILL loses at most this many (an atomic rewrite of the file)


class _Run:
    """One sweep in progress: the device, the recording being built and the clock of the budget."""

    def __init__(self, dev, rec: dict, out: Path, budget_s: float, quick: bool):
        self.dev, self.rec, self.out, self.quick = dev, rec, out, quick
        self.deadline = time.monotonic() + budget_s
        self.points = {key(p): p for p in rec["points"]}
        self.order = grid(quick) + low_tax_grid(quick)

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline

    def point(self, k: dict) -> dict:
        return self.points.setdefault(key(k), new_point(k))

    def save(self) -> None:
        """A save mid-sweep: the whole file rewritten atomically, but not schema-checked (0.02 s
        instead of 0.2 s at 421 points); the sweep's last write (_finish) checks it."""
        _write(self.out, _snapshot(self.rec, self.points, self.order), check=False)


def run_sweep(out: Path, backend: str = "auto", budget_s: float = 480.0, resume: bool = False,
              quick: bool = False, passes: int | None = None, device=None) -> dict:
    """Measure the grid into the recording at `out`; returns the recording (maybe partial).
    `device` (a Device) overrides `backend`, e.g. a simulator built from other constants."""
    dev = device or get_device(backend)
    rec = None
    if resume and out.exists():
        with named_as_typed("--out", str(out)):  # a resumed file named as typed, not by its name alone
            rec = store.load(out, kind="sweep").data
    if rec is not None:
        _check_recorded_here(rec, out, "resume")
        _check_same_device(rec, dev)
        _check_same_grid(rec, out, quick)
        passes = passes or rec["meta"].get("passes")
    passes = passes or (1 if dev.deterministic else 5)
    pin_to_one_core()  # for the whole sweep
    run = _Run(dev, rec or {"meta": _meta(dev), "points": [], "timelines": {}}, out, budget_s, quick)
    run.rec["meta"]["passes"] = passes
    try:
        for pass_i in range(passes):
            if not (_timing_pass(run, pass_i) and _native_pass(run, pass_i)):
                return _finish(run, complete=False)
        return _finish(run, complete=_trace_pass(run))
    except KeyboardInterrupt:  # Ctrl-C: keep every point measured so far, then stop
        rec = _finish(run, complete=False)
        print(f"sweep: interrupted; {len(rec['points'])} points kept in {out}; run again with --resume",
              file=sys.stderr)
        raise


def _timing_pass(run: _Run, pass_i: int) -> bool:
    samples = run.rec["meta"]["calibration_passes"]
    for i, k in enumerate(grid(run.quick)):
        if _calibration_due(run, i, pass_i, len(samples)):
            _calibrate_into(run.dev, run.rec["meta"], first=not samples)
        p = run.point(k)
        if len(p["wall_us_passes"]) > pass_i:
            continue
        if run.out_of_time():
            return False
        r = measure(run.dev, knobs_of(k), trace=False)
        p["wall_us_passes"].append(round(r.wall_us, 3))
        p.setdefault("tax_us_passes", []).append(round(r.tax_us - float(k["extra_tax_us"]), 3))
        p.setdefault("kernel_time_us", round(r.kernel_work_us, 3))
        p.setdefault("wall_p10_us", r.extra["wall_p10_us"])
        p.setdefault("wall_p90_us", r.extra["wall_p90_us"])
        p["graph_valid"] = r.graph_valid
        if k["policy"] != "fallback":
            p["graph_stats"] = r.extra["graph_stats"]
        if i % SAVE_EVERY == SAVE_EVERY - 1:
            run.save()
    return True


def _calibration_due(run: _Run, i: int, pass_i: int, taken: int) -> bool:
    """A deterministic device is calibrated once; a drifting one every CALIBRATION_EVERY points
    of every pass, so the samples follow the host through its states."""
    if run.dev.deterministic:
        return taken == 0
    per_pass = -(-len(grid(run.quick)) // CALIBRATION_EVERY)
    return i % CALIBRATION_EVERY == 0 and taken < pass_i * per_pass + i // CALIBRATION_EVERY + 1


def _native_pass(run: _Run, pass_i: int) -> bool:
    """The low-tax slice, measured by the device's native launcher (one call per pass)."""
    todo = [k for k in low_tax_grid(run.quick) if len(run.point(k)["wall_us_passes"]) <= pass_i]
    if not todo:
        return True
    if run.out_of_time():
        return False
    meta = run.rec["meta"]
    if meta.get("native_launcher_error"):
        return True  # it failed in an earlier pass: the slice stays missing (meta.complete: false)
    try:
        results = native_launcher(run.dev).measure(todo)
    except (RuntimeError, OSError) as e:  # no compiler or ninja, a failed build or run (one line each)
        meta["native_launcher_error"] = " ".join(str(e).split())[:400]
        print(f"sweep: low-tax slice skipped: {meta['native_launcher_error']}", file=sys.stderr)
        return True
    for k, r in zip(todo, results):
        p = run.point(k)
        p["wall_us_passes"].append(round(r["wall_us"], 3))
        p.setdefault("tax_us_passes", []).append(round(r["tax_us"], 3))
        p.setdefault("kernel_time_us", round(r["kernel_time_us"], 3))
        p["graph_valid"] = True
        p["driver_calls"] = 1 if k["mode"] == "graph" else k["n"]  # the launcher's own loop: by construction
        p["copy_calls"] = 0
    run.save()
    return True


def _calibrate_into(dev, meta: dict, first: bool) -> None:
    """Add one calibration sample (constants and launch tax) to the recording's meta."""
    tax = dev.measure_tax()
    cal, raw = calibrate_with_raw(dev, passes=2 if first else 1)
    meta["calibration_passes"].append(dict(cal.as_dict(), tax_us=round(tax, 3)))
    meta.setdefault("calibration_experiments", []).append(raw)
    meta["calibration_methods"] = methods()
    print(f"sweep: calibration {len(meta['calibration_passes'])}: tax {tax:.2f} µs, "
          f"floor {cal.eager_floor_us:.1f}, sync {cal.sync_us:.1f}", file=sys.stderr)


def _trace_pass(run: _Run) -> bool:
    """One traced step per group (the counts don't depend on work), plus the shipped timelines."""
    dev, rec = run.dev, run.rec
    counted = {group(p): (p["driver_calls"], p["copy_calls"]) for p in run.points.values() if "driver_calls" in p}
    for k in grid(run.quick):
        g = group(k)
        want_tl = ((k["mode"], k["n"], k["work_us"], k["dynamic"]) in TIMELINE_SETTINGS
                   and not k["extra_tax_us"] and k["policy"] == "fallback" and k["graph_input"] == "copy")
        tl_key = timeline_key(k["mode"], k["n"], k["work_us"], k["dynamic"])
        if g in counted and not (want_tl and tl_key not in rec["timelines"]):
            continue
        if run.out_of_time():
            return False
        tr = trace_step(dev, trace_spec(knobs_of(k), 4, ChainWorkload(k["n"], float(k["work_us"])).base_numel(dev)))
        counted.setdefault(g, (tr.driver_calls, tr.copy_calls))
        if want_tl:
            rec["timelines"][tl_key] = _clip(tr.spans)
    for p in run.points.values():
        if group(p) in counted:
            p["driver_calls"], p["copy_calls"] = counted[group(p)]
    return True


def _check_same_device(rec: dict, dev, verb: str = "resume") -> None:
    """Resuming (or retracing) must not mix numbers from two machines (or the simulator) in one
    recording."""
    m = rec["meta"]
    if (m["backend"], m["device_name"]) != (str(dev.backend), dev.name):
        raise UsageError(f"cannot {verb} a recording of {m['device_name']} ({m['backend']}) "
                         f"on {dev.name} ({dev.backend}); "
                         + ("write to a new --out instead" if verb == "resume" else "run it on that device"))


def _check_recorded_here(rec: dict, out: Path, verb: str) -> None:
    """--resume and --refresh recompute from the calibration samples the sweep recorder keeps
    (meta.calibration_passes): the schema leaves them optional (a sweep made some other way has
    only its mean constants), so a file without them is refused here in one line."""
    if not rec["meta"].get("calibration_passes"):
        raise UsageError(f"{Path(out).name}: meta.calibration_passes is missing or empty: the sweep recorder's "
                         f"calibration samples are needed to {verb} it (record it again with `sweep --out`)")


def _check_same_grid(rec: dict, out: Path, quick: bool) -> None:
    """A resumed recording keeps every point it holds: resuming a full-grid recording with
    --quick would keep only the small grid's points (and call that complete), so it is refused.
    (Resuming a quick recording without --quick only adds the full grid's other points.)"""
    if not quick:
        return
    small = {key(k) for k in grid(True) + low_tax_grid(True)}
    outside = [p for p in rec["points"] if key(p) not in small]
    if outside:
        raise UsageError(f"{out} holds {len(outside)} points of the full grid that --quick would drop; "
                         "resume it without --quick (or write the quick grid to a new --out)")


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
        p = points.get(key(k))
        if not p or not p["wall_us_passes"]:
            continue
        p["wall_us"] = round(trimmed_mean(p["wall_us_passes"]), 3)
        p["tax_us"] = round(trimmed_mean(p.get("tax_us_passes") or [tax]) + float(p["extra_tax_us"]), 3)
        p["launch_overhead_us"] = round(p["wall_us"] - p["kernel_time_us"], 3)
        p["model_wall_us"] = round(model.predict(knobs_of(p, tax_us=p["tax_us"]), consts).wall_us, 3)
        out.append(p)
    rec["points"] = out
    return rec


def _finish(run: _Run, complete: bool) -> dict:
    rec = _snapshot(run.rec, run.points, run.order)
    rec["meta"]["complete"] = complete and len(rec["points"]) == len(run.order) and all(
        "driver_calls" in p for p in rec["points"])
    _write(run.out, rec)
    return rec


def _clip(spans) -> list[dict]:
    """Keep the timeline small: the spans up to the end of the 300th GPU kernel."""
    kernels = [s for s in spans if s.lane == "gpu" and s.kind == "kernel"]
    cut = kernels[MAX_TIMELINE_KERNELS - 1].end_us if len(kernels) > MAX_TIMELINE_KERNELS else float("inf")
    return [{"lane": s.lane, "kind": s.kind, "name": s.name, "start_us": round(s.start_us, 3),
             "end_us": round(s.end_us, 3)} for s in spans if s.start_us <= cut]


def _meta(dev) -> dict:
    from ..engine.measure import _torch_version
    return store.new_meta("sweep", dev.name, _torch_version(), str(dev.backend), complete=False,
                          calibration_passes=[], **describe(dev))


def _write(out: Path, rec: dict, check: bool = True) -> None:
    if rec["points"]:  # a sweep with no measured point yet is not a recording: nothing to keep
        store.write_own(out, rec, check=check)


def retrace(out: Path, backend: str = "auto") -> dict:
    """Trace the shipped timelines of an existing recording again (no timing), with the
    recording's own kernel-size table so every buffer has the size it was timed at."""
    rec = store.load(out, kind="sweep").data
    dev = get_device(backend)
    _check_same_device(rec, dev, "retrace")  # simulator traces under a GPU's name would be a lie
    use_sizing(dev, rec["meta"].get("kernel_size_table"))
    rec["timelines"] = {}
    run = _Run(dev, rec, out, 1e9, quick=False)
    _trace_pass(run)
    rec["meta"]["retraced_at"] = store.now_utc()
    _write(out, rec)
    return rec


def rederive(meta: dict) -> None:
    """Read every calibration sample's constants again from its raw experiments (where the
    recording keeps them): a change in how a constant is read applies with no device."""
    raws = meta.get("calibration_experiments") or []
    if raws and len(raws) == len(meta["calibration_passes"]):
        meta["calibration_passes"] = [dict(derive(raw, meta.get("device_name", "a device")).as_dict(),
                                           tax_us=old["tax_us"]) for raw, old in zip(raws, meta["calibration_passes"])]
        meta["calibration_methods"] = methods()


def refresh(out: Path) -> dict:
    """Recompute a recording's derived fields (per-point means, calibration, model_wall_us) from
    its raw passes, with no device: for when the model's formulas change after a recording."""
    rec = store.load(out, kind="sweep").data
    _check_recorded_here(rec, out, "refresh")
    rederive(rec["meta"])
    order = list(rec["points"])  # exactly the points the file has, in its order
    points = {key(p): p for p in order}
    complete = rec["meta"].get("complete", False)
    _snapshot(rec, points, order)
    rec["meta"]["complete"] = complete
    rec["meta"]["refreshed_at"] = store.now_utc()
    _write(out, rec)
    return rec

"""`python -m runtime_core sweep`: measure a grid of widget points and write a recording.

The grid (issue 3): N × work × mode × dynamic with no extra tax, an extra-tax slice, and the
dynamic-shape policies. The sweep has a time budget and `--resume`, so a long grid can run
across several GPU commands: points already in the file are skipped, and the file is rewritten
after every group. Each (mode, N, dynamic) group is profiled once, at its first work value;
the driver-call counts of that trace stand for the group (they don't depend on work).
"""
from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

from . import model
from .calibration import constants_for
from .device import get_device
from .measure import measure
from .recordings import load, timeline_key

GRID_N = (1, 10, 30, 120, 300, 1000)
GRID_WORK_US = (0, 1, 2, 4, 6, 10, 20, 40, 100)
TAX_SLICE = dict(n=120, work_us=(2, 40), extra_tax_us=(6, 20))
POLICY_SLICE = dict(n=(10, 120), work_us=(2,), policies=("recapture", "bucket"))
# Settings whose full timelines ship: the seed's defaults and the checkpoint's steps.
TIMELINE_SETTINGS = [(m, 120, w, False) for m in ("eager", "streams", "graph") for w in (2, 40)] + [
    ("graph", 120, 2, True)]
MAX_TIMELINE_KERNELS = 300


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


def _key(p: dict) -> tuple:
    return (p["mode"], p["n"], float(p["work_us"]), float(p.get("extra_tax_us", 0)), bool(p["dynamic"]),
            p.get("dynamic_policy", p.get("policy", "fallback")))


def run_sweep(out: Path, backend: str = "auto", budget_s: float = 480.0, resume: bool = False,
              quick: bool = False) -> dict:
    """Measure the grid into the recording at `out`; returns the recording (maybe partial)."""
    t_start = time.monotonic()
    dev = get_device(backend)
    rec = load(out) if (resume and out.exists()) else None
    consts = constants_for(dev)
    if rec is None:
        rec = {"meta": _meta(dev, consts), "points": [], "timelines": {}}
    done = {_key(p) for p in rec["points"]}
    counted: dict[tuple, tuple[int, int]] = {}
    todo = [p for p in grid(quick) if _key(p) not in done]
    for i, knobs in enumerate(todo):
        if time.monotonic() - t_start > budget_s:
            break
        rec["points"].append(_measure_point(dev, knobs, consts, counted, rec))
        if i % 10 == 9:
            _write(out, rec)
    rec["meta"]["complete"] = len(rec["points"]) >= len(grid(quick))
    _write(out, rec)
    return rec


def _measure_point(dev, k: dict, consts, counted: dict, rec: dict) -> dict:
    group = (k["mode"], k["n"], k["dynamic"], k["policy"], k["extra_tax_us"])
    want_tl = (k["mode"], k["n"], k["work_us"], k["dynamic"]) in TIMELINE_SETTINGS and not k["extra_tax_us"]
    trace = group not in counted or want_tl
    r = measure(dev, k["mode"], k["n"], float(k["work_us"]), float(k["extra_tax_us"]), k["dynamic"],
                k["policy"], trace=trace)
    if trace:
        counted.setdefault(group, (r.driver_calls, r.copy_calls))
    calls, copies = counted[group]
    pred = model.predict(k["mode"], k["n"], r.tax_us, float(k["work_us"]), k["dynamic"], consts, k["policy"])
    p = {"mode": k["mode"], "n": k["n"], "work_us": k["work_us"], "extra_tax_us": k["extra_tax_us"],
         "dynamic": k["dynamic"], "wall_us": round(r.wall_us, 3),
         "launch_overhead_us": round(r.launch_overhead_us, 3), "kernel_time_us": round(r.kernel_work_us, 3),
         "driver_calls": calls, "copy_calls": copies, "graph_valid": r.graph_valid,
         "tax_us": round(r.tax_us, 3), "wall_p10_us": r.extra["wall_p10_us"],
         "wall_p90_us": r.extra["wall_p90_us"], "model_wall_us": round(pred.wall_us, 3)}
    if k["policy"] != "fallback":
        p["dynamic_policy"] = k["policy"]
        p["graph_stats"] = r.extra.get("graph_stats")
    if want_tl:
        rec["timelines"][timeline_key(k["mode"], k["n"], k["work_us"], k["dynamic"])] = _clip(r)
    return p


def _clip(r) -> list[dict]:
    """Keep the timeline small: the spans up to the end of the 300th GPU kernel."""
    kernels = [s for s in r.timeline if s.lane == "gpu" and s.kind == "kernel"]
    cut = kernels[MAX_TIMELINE_KERNELS - 1].end_us if len(kernels) > MAX_TIMELINE_KERNELS else float("inf")
    return [{"lane": s.lane, "kind": s.kind, "name": s.name, "start_us": round(s.start_us, 3),
             "end_us": round(s.end_us, 3)} for s in r.timeline if s.start_us <= cut]


def _meta(dev, consts) -> dict:
    from .measure import _torch_version
    meta = {"device_name": dev.name, "backend": dev.backend, "torch_version": _torch_version(),
            "recorded_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "intrinsic_tax_us": round(dev.intrinsic_tax_us(), 3),
            "calibration": consts.as_dict()}
    if hasattr(dev, "sizes"):
        meta["kernel_size_table"] = dev.sizes().as_dict()
    return meta


def _write(out: Path, rec: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(rec, indent=1), encoding="utf-8")
    tmp.replace(out)


def run_sweep_cli(a) -> int:
    out = Path(a.out)
    rec = run_sweep(out, a.backend, a.budget_s, a.resume, a.quick)
    total = len(grid(a.quick))
    print(json.dumps({"out": str(out), "points": len(rec["points"]), "of": total,
                      "complete": rec["meta"]["complete"]}))
    return 0

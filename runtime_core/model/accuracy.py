"""How well the calibrated model predicts a recording: the error per point, and, for each miss,
the term that was off, measured at that point.

A miss is explained by the one term that dominates the point's mode, computed twice: from the
point's own measurements (its wall time, its launch tax, its GPU busy time) and from the model's
constants. The reason says which term it was and by how much the two differ.

    eager              one launch + sync round trip:      wall/N            vs max(f, t + w + s)
    streams, launches  host time per launch:              (wall − r)/(N−1)  vs t
    streams, GPU       GPU gap between launched kernels:  (wall − t − s − busy)/(N−1) vs gs
    graph              the step beyond its kernels:       wall − busy       vs model − N·w
                       or its kernels:                    busy              vs N·w
                       (whichever moved the step the way the error points, and more)
    recapture          a capture on every call:           wall − graph      vs streams + N·t + upload
    bucket             the padding's extra work:          wall − model      vs 0 (the model pads nothing)
"""
from __future__ import annotations

from ..knobs import Mode, Policy
from ..recordings.types import Point, Recording
from . import formulas as f

TOLERANCE = 0.15
TARGET_SHARE = 0.90  # the target: ±15% at ≥ 90% of the recorded points


def point_error(p: Point) -> float:
    """Relative error of the calibrated model at one recorded point: (model − measured) / measured."""
    return (p.model_wall_us - p.wall_us) / p.wall_us


def explain(p: Point, c) -> dict:
    """The term that decides point `p` under constants `c`: its name, measured and model µs."""
    n, t = p.n, p.tax_us
    w = f.effective_work_us(p.work_us, c)
    busy = p.kernel_time_us
    ran = Mode(c.miss_runs) if (p.dynamic and p.mode == Mode.GRAPH and p.policy == Policy.FALLBACK) else p.mode
    trip = max(c.eager_floor_us, t + w + c.sync_us)
    if p.policy == Policy.BUCKET:  # the model prices the graph at the unpadded size
        return _term("work added by padding to a power-of-two bucket", p.wall_us - p.model_wall_us, 0.0)
    if p.policy == Policy.RECAPTURE:
        graph = f.graph_wall_us(n, t, p.work_us, c)
        return _term("a capture on every call", p.wall_us - graph,
                     f.streams_wall_us(n, t, p.work_us, c) + n * t + c.graph_upload_us)
    if ran == Mode.EAGER or (ran == Mode.STREAMS and n == 1):
        return _term("one launch + sync round trip", p.wall_us / n, trip)
    if ran == Mode.STREAMS:
        launch_bound = (n - 1) * t + trip >= t + n * w + (n - 1) * c.stream_gap_us + c.sync_us
        if launch_bound:
            return _term("host time per launch", (p.wall_us - trip) / (n - 1), t)
        return _term("GPU gap between launched kernels", (p.wall_us - t - c.sync_us - busy) / (n - 1),
                     c.stream_gap_us)
    # the two parts add up to the step on both sides: the kernels' own time, and the rest
    fixed = _term("graph step beyond its kernels", p.wall_us - busy, p.model_wall_us - n * w)
    kernels = _term("the graph's kernels", busy, n * w)
    # the term that moved the step the way the error points, and the most: a step the model put
    # too low because its kernels ran long is not explained by a fixed part it put too high
    err = p.model_wall_us - p.wall_us
    return max((fixed, kernels), key=lambda x: (x["model_us"] - x["measured_us"]) * (1 if err >= 0 else -1))


def _term(name: str, measured: float, model: float) -> dict:
    return {"term": name, "measured_us": round(measured, 3), "model_us": round(model, 3)}


def reason(x: dict) -> str:
    """One sentence from explain(): which term, measured vs model, and by how much, signed as the
    point's error is: (model − measured) / measured."""
    m, mod = x["measured_us"], x["model_us"]
    by = f" ({(mod - m) / m:+.0%})" if abs(m) > 1e-9 else ""
    return f"{x['term']}: measured {m:.2f} µs, the model has {mod:.2f} µs{by}"


def accuracy(rec: Recording, tolerance: float = TOLERANCE) -> dict:
    """Share of points within ±tolerance, and every miss with its error and measured reason."""
    c = rec.meta.calibration
    pts = [p for p in rec.points if p.model_wall_us is not None]
    misses = []
    for p in pts:
        err = point_error(p)
        if abs(err) > tolerance:
            x = explain(p, c)
            misses.append({"mode": p.mode.value, "n": p.n, "work_us": p.work_us,
                           "extra_tax_us": p.extra_tax_us, "dynamic": p.dynamic,
                           "policy": p.policy.value, "launcher": p.launcher, "measured_wall_us": p.wall_us,
                           "model_wall_us": p.model_wall_us, "error_pct": round(100 * err, 1),
                           "term": x["term"], "term_measured_us": x["measured_us"],
                           "term_model_us": x["model_us"], "reason": reason(x)})
    within = len(pts) - len(misses)
    return {"within": within, "total": len(pts), "share": within / len(pts) if pts else 0.0,
            "tolerance": tolerance, "target_share": TARGET_SHARE, "misses": misses}

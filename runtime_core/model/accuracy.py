"""How well the calibrated model predicts a recording: the error per point, and why it misses.

The reasons are rules written from reading the H200 recording (see the README's notes on the
host's fast and slow states); each miss gets the first rule that fits.
"""
from __future__ import annotations

from ..recordings.types import Point, Recording

TOLERANCE = 0.15

_RULES = [
    (lambda p: p.policy == "recapture",
     "recapture: every call warms up and captures a new graph; the model prices a capture only "
     "as one streams run plus N launches"),
    (lambda p: p.n == 1,
     "a one-launch step is one sync round trip, and that round trip switches between a fast and a "
     "slow host state from pass to pass"),
    (lambda p: p.mode == "graph" and not p.dynamic and p.work_us <= 6,
     "tiny graph: the launch latency L is a mean over fast- and slow-state calibrations, too "
     "large for the fast state most of these points ran in"),
    (lambda p: p.mode == "eager" or (p.mode == "graph" and p.dynamic),
     "blocking dispatch: the eager floor is a mean over calibrations, half of which caught the "
     "host's slow state (~23 µs per kernel) while most points ran fast (~16.5 µs)"),
    (lambda p: p.mode == "streams",
     "async launches: the launch tax of the moment and the loop's real cost per launch differ "
     "by more than the point's noise"),
]


def point_error(p: Point) -> float:
    """Relative error of the calibrated model at one recorded point: (model − measured) / measured."""
    return (p.model_wall_us - p.wall_us) / p.wall_us


def accuracy(rec: Recording, tolerance: float = TOLERANCE) -> dict:
    """Share of points within ±tolerance, and every miss with its error and reason."""
    pts = [p for p in rec.points if p.model_wall_us is not None]
    misses = []
    for p in pts:
        err = point_error(p)
        if abs(err) > tolerance:
            reason = next((why for test, why in _RULES if test(p)), "host drift between passes")
            misses.append({"mode": p.mode.value, "n": p.n, "work_us": p.work_us,
                           "extra_tax_us": p.extra_tax_us, "dynamic": p.dynamic,
                           "policy": p.policy.value, "measured_wall_us": p.wall_us,
                           "model_wall_us": p.model_wall_us, "error_pct": round(100 * err, 1),
                           "reason": reason})
    within = len(pts) - len(misses)
    return {"within": within, "total": len(pts), "share": within / len(pts) if pts else 0.0,
            "tolerance": tolerance, "misses": misses}

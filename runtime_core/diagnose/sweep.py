"""Step time against batch size: eager and our graph, predicted and measured, and the crossover.

The crossover is where graphs stop paying: the smallest batch of the grid at which the graph's
speedup over eager falls below 1.2x (None: it never does on the grid). It is found twice, from
the predicted speedups and from the measured ones; a prediction is good when the two are within
one grid step of each other.
"""
from __future__ import annotations

import sys

from .diagnosis import diagnose, prepare
from .predict import SPEEDUP_THRESHOLD
from .spec import Spec

BATCHES = tuple(2 ** i for i in range(10))  # 1 .. 512


def crossover_batch(points: list[dict], key: str, threshold: float = SPEEDUP_THRESHOLD) -> int | None:
    """The smallest batch whose `key` (a speedup) is below `threshold`, or None."""
    for p in sorted(points, key=lambda p: p["batch"]):
        if p.get(key) is not None and p[key] < threshold:
            return p["batch"]
    return None


def grid_steps_apart(a: int | None, b: int | None, grid=BATCHES) -> int:
    """How many grid steps separate two crossovers; None counts as one step past the grid."""
    index = {x: i for i, x in enumerate(grid)}

    def pos(x):
        return len(grid) if x is None else index.get(x, min(range(len(grid)), key=lambda i: abs(grid[i] - x)))
    return abs(pos(a) - pos(b))


def crossovers(points: list[dict], grid=BATCHES) -> dict:
    """Predicted and measured crossover of one model's batch sweep, and whether they agree."""
    pred = crossover_batch(points, "predicted_graph_speedup")
    meas = crossover_batch(points, "measured_graph_speedup")
    return {"predicted": pred, "measured": meas, "steps_apart": grid_steps_apart(pred, meas, grid),
            "within_one_step": grid_steps_apart(pred, meas, grid) <= 1, "threshold": SPEEDUP_THRESHOLD}


HOST_BUMP = 0.25  # a batch whose H came out this much above both neighbours' was timed on a slow host


def host_bumps(points: list[dict], rise: float = HOST_BUMP) -> list[tuple[int, float]]:
    """The inner batches of a sweep whose H (the host's enqueue time, `host_dispatch_us`) came out more
    than `rise` above the H of both neighbouring batches, with the ratio to the larger of the two. Only
    launch-bound points count (there the predicted eager step is H, so it bumps with it), and only
    where both neighbours have an H. An end batch has one neighbour, so a rise there may be a trend and
    is left out. The host enqueues about the same operations at every batch, so a bump that falls back
    at the next batch is the host's pace at the moment the point was timed, not the model."""
    pts = sorted(points, key=lambda p: p["batch"])
    out = []
    for before, p, after in zip(pts, pts[1:], pts[2:]):
        hs = [q.get("host_dispatch_us") for q in (before, p, after)]
        if not all(hs) or not _launch_bound(p):
            continue
        near = max(hs[0], hs[2])
        if hs[1] > (1 + rise) * near:
            out.append((p["batch"], hs[1] / near))
    return out


def _launch_bound(p: dict) -> bool:
    """The point's verdict where it has one, else its H against its kernels' busy time."""
    v = p.get("verdict") or {}
    if "launch_bound" in v:
        return bool(v["launch_bound"])
    return (p.get("host_dispatch_us") or 0.0) > (p.get("busy_us") or 0.0)


def sweep_model(runner, model: str, machine, dtype: str = "fp32", seq: int | None = None,
                batches=BATCHES, variants=("eager", "our_graph")) -> dict:
    """Diagnose `model` at every batch of `batches`; the points and the crossovers.

    Progress goes to stderr, one line per batch.
    """
    points = []
    for b in batches:
        spec = prepare(runner, Spec(model, b, seq, dtype))
        p = diagnose(runner, spec, machine, variants)
        p.pop("timelines", None)
        print(f"diagnose sweep: {spec.label()}: eager {p['eager_us']:.0f} µs, graph {p['graph_us']:.0f} µs, "
              f"{p['measured_graph_speedup']:.2f}x (predicted {p['predicted_graph_speedup']:.2f}x)",
              file=sys.stderr)
        points.append(p)
    return {"model": model, "dtype": dtype, "seq": points[0]["seq"] if points else seq, "points": points,
            "crossover": crossovers(points, tuple(batches))}

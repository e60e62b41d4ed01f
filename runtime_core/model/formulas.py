"""The closed-form launch-overhead model of the widget: eager, streams and CUDA-graph dispatch.

Symbols (all µs): N kernels, t = per-launch CPU tax, w = per-kernel GPU work, and the constants
below. With every extra constant at zero this is the textbook model of the lesson, and at the
seed's defaults (N=120, t=6, w=2) it reproduces its checkpoint story exactly.

    eager    wall = N·max(f, t + w + s)                      (launch, then wait, every kernel)
    streams  wall = max(N·t + w, t + N·w) + s                (launches overlap kernels; one sync)
    graph    wall = L + c·t + max(g, c·w') + N·w' + s        (one replay call runs all N nodes)

with w = max(requested work, kernel floor), w' = w + gap, c = 1 when the step copies its input
into the graph's static buffer (a copy moves the same bytes as one chain kernel, and runs on the
GPU while the host makes the replay call), else 0. The textbook
model has s = gap = L = f = c = 0 and g = t. The calibrated model measures them (calibrate.py);
see h200-measurements.md for why a purely additive model can't fit real eager steps.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..result import MODES, Result, Span

# Seed of the lesson, §6 widget defaults.
SEED_N = 120  # source: seed, "kernels in chain N: 120"
SEED_TAX_US = 6.0  # source: seed, "per-launch CPU tax µs: 6"
SEED_WORK_US = 2.0  # source: seed, "per-kernel GPU work µs: 2"


@dataclass(frozen=True)
class Constants:
    """Named constants of the model, µs. Defaults give the seed's textbook model.

    Args:
        sync_us: s, a synchronize round trip once the GPU is idle, paid after every eager kernel
            and once at the end of a streams or graph step. Textbook: 0. Calibrated: measured.
        graph_launch_us: g, host cost of one `cudaGraphLaunch`. Textbook: None, meaning "one
            launch's tax" (the seed: "overhead about one launch"). Calibrated: measured.
        node_gap_us: gap, GPU time between consecutive nodes of a replayed graph. Textbook: 0.
        kernel_floor_us: the shortest time any kernel takes on the GPU. Textbook: 0.
        eager_floor_us: f, the floor under one eager launch+sync round trip. Textbook: 0.
        fixed_us: L, launch latency of a graph step: from the replay call until its first node
            runs on the GPU (longer than a kernel's: the graph is scheduled as a whole). Textbook: 0.
        static_copy: whether a graph step first copies its input into the static buffer (c).
    """

    sync_us: float = 0.0
    graph_launch_us: float | None = None
    node_gap_us: float = 0.0
    kernel_floor_us: float = 0.0
    eager_floor_us: float = 0.0
    fixed_us: float = 0.0
    static_copy: bool = False
    source: str = "textbook (seed §6)"

    def as_dict(self) -> dict:
        return asdict(self)


TEXTBOOK = Constants()


def effective_work_us(work_us: float, c: Constants) -> float:
    """GPU time of one kernel that was asked for `work_us`: max(work, kernel floor)."""
    return max(work_us, c.kernel_floor_us)


def eager_wall_us(n: int, tax_us: float, work_us: float, c: Constants = TEXTBOOK) -> float:
    """Blocking dispatch: wall = N · max(eager_floor, t + w_eff + s)."""
    w = effective_work_us(work_us, c)
    return n * max(c.eager_floor_us, tax_us + w + c.sync_us)


def streams_wall_us(n: int, tax_us: float, work_us: float, c: Constants = TEXTBOOK) -> float:
    """Async dispatch, one sync at the end: wall = max(N·t + w, t + N·w) + s."""
    w = effective_work_us(work_us, c)
    return max(n * tax_us + w, tax_us + n * w) + c.sync_us


def graph_wall_us(n: int, tax_us: float, work_us: float, c: Constants = TEXTBOOK) -> float:
    """One replay: wall = L + c·t + max(g, c·w') + N·w' + s, w' = w + gap, g = t if not calibrated."""
    g = tax_us if c.graph_launch_us is None else c.graph_launch_us
    w = effective_work_us(work_us, c) + c.node_gap_us
    copies = 1 if c.static_copy else 0
    return c.fixed_us + copies * tax_us + max(g, copies * w) + n * w + c.sync_us


def validate(mode: str, n: int, tax_us: float, work_us: float) -> None:
    """Raise ValueError with a one-line message when a knob is out of range."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 100_000:
        raise ValueError(f"n must be a whole number from 1 to 100000, got {n!r}")
    for name, v, hi in (("tax_us", tax_us, 100_000.0), ("work_us", work_us, 1_000_000.0)):
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number, got {v!r}")
        if not 0 <= v <= hi:
            raise ValueError(f"{name} must be between 0 and {hi:g} µs, got {v:g}")


def predict(mode: str, n: int, tax_us: float, work_us: float, dynamic: bool = False,
            c: Constants = TEXTBOOK, policy: str = "fallback") -> Result:
    """Predict one step. With `dynamic` in graph mode the shape guard misses and `policy` decides:

        fallback   the capture is invalid and eager runs:   wall = eager wall
        bucket     a padded graph replays:                  wall = graph wall
        recapture  warm-up + capture + replay, every call:  wall = streams + N·t + graph

    Returns a Result with source "model", `kernel_work_us` = N·w_eff and the model's timeline.
    """
    validate(mode, n, tax_us, work_us)
    missed = mode == "graph" and dynamic
    graph_valid = not (missed and policy == "fallback")
    ran = "eager" if (missed and policy == "fallback") else mode
    wall = {"eager": eager_wall_us, "streams": streams_wall_us, "graph": graph_wall_us}[ran](
        n, tax_us, work_us, c)
    if missed and policy == "recapture":
        wall += streams_wall_us(n, tax_us, work_us, c) + n * tax_us
    w = effective_work_us(work_us, c)
    timeline, host_free = _timeline(ran, n, tax_us, w, c)
    return Result(
        source="model", mode=mode, n=n, work_us=work_us, tax_us=tax_us, dynamic=dynamic,
        wall_us=wall, kernel_work_us=n * w, driver_calls=_driver_calls(ran, n, missed, policy),
        graph_valid=graph_valid, sync_calls=n if ran == "eager" else 1,
        copy_calls=1 if (ran == "graph" and c.static_copy) else 0,
        host_free_us=host_free, timeline=timeline, policy=policy if missed else "fallback")


def _driver_calls(ran: str, n: int, missed: bool, policy: str) -> int:
    """Launch calls of one step: N, or 1 replay; a recapture also warms up (N) and captures (N
    launch calls that are recorded, not run) before its replay."""
    if ran != "graph":
        return n
    return 2 * n + 1 if (missed and policy == "recapture") else 1


MAX_TIMELINE_KERNELS = 400  # beyond this the chart gets the first kernels only


def _timeline(ran: str, n: int, t: float, w: float, c: Constants) -> tuple[list[Span], float]:
    """The model's own two lanes: CPU launch spans, GPU kernel spans, the one graph launch."""
    spans: list[Span] = []
    shown = min(n, MAX_TIMELINE_KERNELS)
    if ran == "graph":
        g = t if c.graph_launch_us is None else c.graph_launch_us
        spans.append(Span("cpu", "graph", "cudaGraphLaunch", 0.0, g))
        start = g
        for i in range(shown):
            spans.append(Span("gpu", "kernel", f"k{i}", start, start + w))
            start += w + c.node_gap_us
        return spans, g
    if ran == "eager":
        step = max(c.eager_floor_us, t + w + c.sync_us)
        for i in range(shown):
            h = i * step
            spans.append(Span("cpu", "launch", f"launch k{i}", h, h + t))
            spans.append(Span("cpu", "sync", "synchronize", h + t, h + step))
            spans.append(Span("gpu", "kernel", f"k{i}", h + t, h + t + w))
        return spans, n * step
    gpu_end = 0.0
    for i in range(shown):
        begin = max((i + 1) * t, gpu_end)
        gpu_end = begin + w
        spans.append(Span("cpu", "launch", f"launch k{i}", i * t, (i + 1) * t))
        spans.append(Span("gpu", "kernel", f"k{i}", begin, gpu_end))
    return spans, n * t


def constants_from_dict(d: dict | None) -> Constants:
    """Build Constants from a recording's meta.calibration (unknown keys are ignored)."""
    if not d:
        return TEXTBOOK
    keys = Constants.__dataclass_fields__
    return Constants(**{k: v for k, v in d.items() if k in keys})

"""The closed-form launch-overhead model of the widget: eager, streams and CUDA-graph dispatch.

Symbols (all µs): N kernels, t = per-launch CPU tax, w = per-kernel GPU work, and the named
constants of `runtime_core.constants.Constants`. With every extra constant at zero this is the
textbook model of the lesson, and at the seed's defaults (N=120, t=6, w=2) it reproduces its checkpoint story exactly.

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

from ..constants import TEXTBOOK, Constants
from ..knobs import Knobs, Mode, Policy
from ..result import Result, Span


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


def predict(k: Knobs, c: Constants = TEXTBOOK) -> Result:
    """Predict one step of `k`. With `dynamic` in graph mode the shape guard misses and the
    policy decides:

        fallback   the capture is invalid and eager runs:   wall = eager wall
        bucket     a padded graph replays:                  wall = graph wall
        recapture  warm-up + capture + replay, every call:  wall = streams + N·t + graph

    Returns a Result with source "model", `kernel_work_us` = N·w_eff and the model's timeline.
    Raises UsageError when a knob is outside the model's bounds.
    """
    k = k.validate("model")
    n, tax_us, work_us, policy = k.n, k.tax_us, k.work_us, k.effective_policy
    fallback = k.missed_shape and policy == Policy.FALLBACK
    ran = Mode.EAGER if fallback else k.mode
    wall = {Mode.EAGER: eager_wall_us, Mode.STREAMS: streams_wall_us, Mode.GRAPH: graph_wall_us}[ran](
        n, tax_us, work_us, c)
    if policy == Policy.RECAPTURE:
        wall += streams_wall_us(n, tax_us, work_us, c) + n * tax_us
    w = effective_work_us(work_us, c)
    timeline, host_free = _timeline(ran, n, tax_us, w, c)
    return Result(
        source="model", mode=k.mode, n=n, work_us=work_us, tax_us=tax_us, dynamic=k.dynamic,
        wall_us=wall, kernel_work_us=n * w, driver_calls=_driver_calls(ran, n, policy),
        graph_valid=not fallback, sync_calls=n if ran == Mode.EAGER else 1,
        copy_calls=1 if (ran == Mode.GRAPH and c.static_copy) else 0,
        host_free_us=host_free, timeline=timeline, policy=policy)


def _driver_calls(ran: Mode, n: int, policy: Policy) -> int:
    """Launch calls of one step: N, or 1 replay; a recapture also warms up (N) and captures (N
    launch calls that are recorded, not run) before its replay."""
    if ran != Mode.GRAPH:
        return n
    return 2 * n + 1 if policy == Policy.RECAPTURE else 1


MAX_TIMELINE_KERNELS = 400  # beyond this the chart gets the first kernels only


def _timeline(ran: Mode, n: int, t: float, w: float, c: Constants) -> tuple[list[Span], float]:
    """The model's own two lanes: CPU launch spans, GPU kernel spans, the one graph launch."""
    spans: list[Span] = []
    shown = min(n, MAX_TIMELINE_KERNELS)
    if ran == Mode.GRAPH:
        g = t if c.graph_launch_us is None else c.graph_launch_us
        spans.append(Span("cpu", "graph", "cudaGraphLaunch", 0.0, g))
        start = g
        for i in range(shown):
            spans.append(Span("gpu", "kernel", f"k{i}", start, start + w))
            start += w + c.node_gap_us
        return spans, g
    if ran == Mode.EAGER:
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

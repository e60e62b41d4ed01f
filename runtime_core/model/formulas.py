"""The closed-form launch-overhead model of the widget: eager, streams and CUDA-graph dispatch.

Symbols (all µs): N kernels, t = per-launch CPU tax, w = per-kernel GPU work, and the named
constants of `runtime_core.constants.Constants`: s (sync round trip), f (eager floor), gs
(stream gap), gn (node gap), g (graph launch), L (graph launch latency), c (1 when a graph step
copies its input into the static buffer). The formulas are the closed forms of the simulator's
rules (engine/sim/device.py), so the two agree wherever the launch queue never fills:

    eager    wall = N · max(f, t + w + s)                               launch, then wait, each kernel
    streams  wall = max((N−1)·t + max(f, t + w + s),                    launch-bound: the last launch
                        t + N·w + (N−1)·gs + s)                         GPU-bound: kernels back to back
    graph    wall = c·t + max(f, max(g + L, c·w) + N·w + (N−1)·gn + s)  one replay runs all N nodes
             g = g1 + (N−1)·gp                                          the replay call grows per node

with w = max(requested work, kernel floor). Where the tax hides behind the work (t < w), graphs
still win by the gap they remove: streams/graph → (w + gs) / (w + gn) for large N. Where the tax
dominates, streams/graph → t / (w + gn).

The textbook model of the lesson has every constant at zero and g = t: eager = N·(t + w),
streams = max(N·t + w, t + N·w), graph = t + N·w, and at the seed's defaults (N=120, t=6, w=2) it
reproduces its checkpoint story exactly (720 µs of eager overhead). A shape miss under the
fallback policy runs `miss_runs`: eager in the seed's textbook, streams (async) in PyTorch and
in our GraphExecutor. See h200-measurements.md for why a purely additive model can't fit real
eager steps, and model/calibrate.py for how each constant is measured.
"""
from __future__ import annotations

from ..constants import TEXTBOOK, Constants
from ..knobs import Knobs, Mode, Policy
from ..result import Result, Span


def effective_work_us(work_us: float, c: Constants) -> float:
    """GPU time of one kernel that was asked for `work_us`: max(work, kernel floor)."""
    return max(work_us, c.kernel_floor_us)


def graph_launch_us(tax_us: float, c: Constants, n: int = 1) -> float:
    """g: the host cost of one replay call of an n-node graph; the textbook says "about one
    launch" (g = t). Measured, it grows a little with the node count."""
    if c.graph_launch_us is None:
        return tax_us
    return c.graph_launch_us + max(0, n - 1) * c.graph_launch_per_node_us


def eager_wall_us(n: int, tax_us: float, work_us: float, c: Constants = TEXTBOOK) -> float:
    """Blocking dispatch: wall = N · max(f, t + w + s)."""
    w = effective_work_us(work_us, c)
    return n * max(c.eager_floor_us, tax_us + w + c.sync_us)


def streams_wall_us(n: int, tax_us: float, work_us: float, c: Constants = TEXTBOOK) -> float:
    """Async dispatch, one sync at the end: wall = max((N−1)·t + max(f, t + w + s), t + N·w + (N−1)·gs + s)."""
    w = effective_work_us(work_us, c)
    launch_bound = (n - 1) * tax_us + max(c.eager_floor_us, tax_us + w + c.sync_us)
    gpu_bound = tax_us + n * w + (n - 1) * c.stream_gap_us + c.sync_us
    return max(launch_bound, gpu_bound)


def graph_wall_us(n: int, tax_us: float, work_us: float, c: Constants = TEXTBOOK,
                  copies: bool = True) -> float:
    """One replay: wall = c·t + max(f, max(g + L, c·w) + N·w + (N−1)·gn + s), c = 1 on the copy path."""
    w = effective_work_us(work_us, c)
    cp = 1 if (copies and c.static_copy) else 0
    g = graph_launch_us(tax_us, c, n)
    run = max(g + c.fixed_us, cp * w) + n * w + (n - 1) * c.node_gap_us + c.sync_us
    return cp * tax_us + max(c.eager_floor_us, run)


def predict(k: Knobs, c: Constants = TEXTBOOK) -> Result:
    """Predict one step of `k`. With `dynamic` in graph mode the shape guard misses and the
    policy decides:

        fallback   the capture can't serve it: `c.miss_runs` (eager or streams) runs, invalid
        bucket     a padded graph replays:                         wall = graph wall
        recapture  warm-up + capture + replay + upload, every call:
                   wall ≈ streams + N·t + graph + upload (instantiation not priced)

    Returns a Result with source "model", `kernel_work_us` = N·w and the model's timeline.
    Raises UsageError when a knob is outside the model's bounds.
    """
    k = k.validate("model")
    n, tax_us, work_us, policy = k.n, k.tax_us, k.work_us, k.effective_policy
    fallback = k.missed_shape and policy == Policy.FALLBACK
    ran = Mode(c.miss_runs) if fallback else k.mode
    copies = k.copies_input and c.static_copy
    if ran == Mode.GRAPH:
        wall = graph_wall_us(n, tax_us, work_us, c, copies=copies)
    else:
        wall = {Mode.EAGER: eager_wall_us, Mode.STREAMS: streams_wall_us}[ran](n, tax_us, work_us, c)
    if policy == Policy.RECAPTURE:
        wall += streams_wall_us(n, tax_us, work_us, c) + n * tax_us + c.graph_upload_us + max(0, n - 1) * c.graph_upload_per_node_us
    w = effective_work_us(work_us, c)
    timeline, host_free = _timeline(ran, n, tax_us, w, c, copies)
    return Result(
        source="model", mode=k.mode, n=n, work_us=work_us, tax_us=tax_us, dynamic=k.dynamic,
        wall_us=wall, kernel_work_us=n * w, driver_calls=_driver_calls(ran, n, policy),
        graph_valid=not fallback, sync_calls=n if ran == Mode.EAGER else 1,
        copy_calls=1 if (ran == Mode.GRAPH and copies) else 0,
        host_free_us=host_free, timeline=timeline, policy=policy)


def _driver_calls(ran: Mode, n: int, policy: Policy) -> int:
    """Launch calls of one step: N, or 1 replay; a recapture also warms up (N) and captures (N
    launch calls that are recorded, not run) before its replay."""
    if ran != Mode.GRAPH:
        return n
    return 2 * n + 1 if policy == Policy.RECAPTURE else 1


MAX_TIMELINE_KERNELS = 400  # beyond this the chart gets the first kernels only


def _timeline(ran: Mode, n: int, t: float, w: float, c: Constants, copies: bool) -> tuple[list[Span], float]:
    """The model's own two lanes: CPU launch spans, GPU kernel spans, the one graph launch."""
    spans: list[Span] = []
    shown = min(n, MAX_TIMELINE_KERNELS)
    if ran == Mode.GRAPH:
        h = 0.0
        if copies:
            spans.append(Span("cpu", "copy", "cudaMemcpyAsync", 0.0, t))
            spans.append(Span("gpu", "copy", "copy into static input", t, t + w))
            h = t
        g = graph_launch_us(t, c, n)
        spans.append(Span("cpu", "graph", "cudaGraphLaunch", h, h + g))
        start = h + max(g + c.fixed_us, w if copies else 0.0)
        for i in range(shown):
            spans.append(Span("gpu", "kernel", f"k{i}", start, start + w))
            start += w + c.node_gap_us
        return spans, h + g
    if ran == Mode.EAGER:
        step = max(c.eager_floor_us, t + w + c.sync_us)
        for i in range(shown):
            h = i * step
            spans.append(Span("cpu", "launch", f"launch k{i}", h, h + t))
            spans.append(Span("cpu", "sync", "synchronize", h + t, h + step))
            spans.append(Span("gpu", "kernel", f"k{i}", h + t, h + t + w))
        return spans, n * step
    gpu_end = None
    for i in range(shown):
        ready = (i + 1) * t
        begin = ready if gpu_end is None else max(ready, gpu_end + c.stream_gap_us)
        gpu_end = begin + w
        spans.append(Span("cpu", "launch", f"launch k{i}", i * t, (i + 1) * t))
        spans.append(Span("gpu", "kernel", f"k{i}", begin, gpu_end))
    return spans, n * t

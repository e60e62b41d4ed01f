"""What one profiled step did: GPU operations, their busy time and spread, counted driver calls.

`summarize(trace)` turns a device Trace (SimDevice.trace in-process, or torch.profiler through
engine/profiler_trace.trace_region in the worker process) into a StepProfile. On CUDA the
profiler's Chrome trace also gives the CPU lane of a real model: `cpu_spans_from_chrome` draws
each launch call, and each top-level framework op (Python + aten dispatch) around it.

Calls are counted by name prefix, so the driver's versioned spellings (cuLaunchKernelEx,
cudaLaunchKernelExC, ...) are all launches, and memsets count as copies.
"""
from __future__ import annotations

import contextlib
import statistics
from dataclasses import asdict, dataclass, field

from ..result import Span
from ..engine.measure import quantile

LAUNCH_PREFIXES = ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchCooperativeKernel",
                   "cuLaunchCooperativeKernel")
GRAPH_PREFIXES = ("cudaGraphLaunch", "cuGraphLaunch")
COPY_PREFIXES = ("cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset")
SYNC_PREFIXES = ("cudaDeviceSynchronize", "cudaStreamSynchronize")
MAX_GPU_OPS_DRAWN = 400  # a timeline keeps the spans up to the end of this many GPU operations
TOP_KERNELS = 8


def _count(counts: dict, prefixes) -> int:
    return sum(v for name, v in counts.items() if name.startswith(prefixes))


@dataclass
class StepProfile:
    """One step as the profiler saw it. Times in µs.

    Args:
        kernels: GPU kernel events.
        gpu_ops: kernels plus device copies and memsets (K of the prediction).
        launch_calls: kernel launch calls the host made (cudaLaunchKernel, cuLaunchKernel, ...).
        graph_launches: cudaGraphLaunch calls.
        copy_calls, sync_calls: memcpy/memset calls; synchronize calls.
        busy_us: summed duration of the GPU operations (B of the prediction).
        kernel_*_us: the spread of kernel durations.
        top_kernels: the kernels that took the most GPU time: name, count, total_us.
        top_host: the top-level host operations that took the most CPU time, as profiled (the
            profiler slows the host, so their shares count, not their µs): name, count, total_us.
        ops: every GPU operation of the step in order, [kind, µs, grid blocks, shared memory
            bytes, name] (kind: kernel, memcpy, memset; a memcpy or memset adds its bytes): what
            a prediction may be recomputed from.
        launch_us: for each of `ops`, in the same order, when the host's call that queued it
            returned, µs from the step's start (empty where the trace cannot say for every one).
        span_us: the host's dispatch of the profiled step, start to return, µs (None: unknown).
            launch_us / span_us is how far into its dispatch the host had queued each operation.
        spans: the two-lane timeline, µs from the step's start.
    """

    kernels: int
    gpu_ops: int
    launch_calls: int
    graph_launches: int
    copy_calls: int
    sync_calls: int
    busy_us: float
    kernel_mean_us: float
    kernel_std_us: float
    kernel_p10_us: float
    kernel_p90_us: float
    kernel_max_us: float
    top_kernels: list[dict] = field(default_factory=list)
    top_host: list[dict] = field(default_factory=list)
    ops: list[list] = field(default_factory=list)
    launch_us: list[float] = field(default_factory=list)
    span_us: float | None = None
    spans: list[Span] = field(default_factory=list)

    @property
    def driver_calls(self) -> int:
        """Kernel launches plus graph launches (design.md); copies are counted apart."""
        return self.launch_calls + self.graph_launches

    def as_dict(self, spans: bool = False) -> dict:
        d = {k: v for k, v in asdict(self).items() if k != "spans"}
        d["driver_calls"] = self.driver_calls
        for k, v in d.items():
            if isinstance(v, float):
                d[k] = round(v, 3)
        if spans:
            d["spans"] = span_rows(self.spans)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "StepProfile":
        fields = {k: d[k] for k in cls.__dataclass_fields__ if k in d and k != "spans"}
        return cls(**fields, spans=[Span(**s) for s in d.get("spans", [])])


def summarize(trace) -> StepProfile:
    """A StepProfile from a device Trace of exactly one step."""
    gpu = [s for s in trace.spans if s.lane == "gpu"]
    kernels = [s.dur_us for s in gpu if s.kind == "kernel"]
    spans = list(trace.spans)
    launch_us, span_us = launch_offsets(trace.chrome_trace, trace.spans)
    if trace.chrome_trace:
        spans = [s for s in spans if not (s.lane == "cpu" and s.name.startswith("aten::"))]
        spans += cpu_spans_from_chrome(trace.chrome_trace)
    return StepProfile(
        kernels=len(kernels), gpu_ops=len(gpu), launch_calls=_count(trace.counts, LAUNCH_PREFIXES),
        graph_launches=_count(trace.counts, GRAPH_PREFIXES), copy_calls=_count(trace.counts, COPY_PREFIXES),
        sync_calls=_count(trace.counts, SYNC_PREFIXES), busy_us=sum(s.dur_us for s in gpu),
        kernel_mean_us=statistics.fmean(kernels) if kernels else 0.0,
        kernel_std_us=statistics.pstdev(kernels) if kernels else 0.0,
        kernel_p10_us=quantile(kernels, 0.1), kernel_p90_us=quantile(kernels, 0.9),
        kernel_max_us=max(kernels, default=0.0), top_kernels=_top_kernels(gpu),
        top_host=top_host(spans), ops=op_rows(trace.chrome_trace, gpu), launch_us=launch_us,
        span_us=span_us, spans=clip(sorted(spans, key=lambda s: (s.lane, s.start_us))))


TOP_HOST = 3
_OP_KIND = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}


def top_host(spans: list[Span], n: int = TOP_HOST) -> list[dict]:
    """The `n` host operations of the step that took the most CPU time, each counted once: the
    top-level framework ops ("dispatch" spans), and the launch and copy calls that no dispatch span
    holds. On CUDA the launches run inside the framework's ops; on the simulator the model's own
    host work (dispatch) and its launches follow one another, and both are the host's time."""
    cpu = [s for s in spans if s.lane == "cpu"]
    outer = sorted((s.start_us, s.end_us) for s in cpu if s.kind == "dispatch")
    chosen = [s for s in cpu if s.kind == "dispatch"] + [
        s for s in cpu if s.kind in ("launch", "copy") and not _held(outer, s.start_us, s.end_us)]
    by_name: dict[str, list[float]] = {}
    for s in chosen:
        by_name.setdefault(s.name, []).append(s.end_us - s.start_us)
    rows = [{"name": k[:80], "count": len(v), "total_us": round(sum(v), 3)} for k, v in by_name.items()]
    return sorted(rows, key=lambda r: -r["total_us"])[:n]


def _held(outer: list[tuple[float, float]], start: float, end: float) -> bool:
    """Whether an interval of `outer` (sorted by start) holds [start, end]."""
    import bisect
    i = bisect.bisect_right(outer, (start, float("inf")))
    return any(lo <= start and end <= hi for lo, hi in outer[max(0, i - 2):i])


def op_rows(chrome: dict | None, gpu: list[Span]) -> list[list]:
    """Every GPU operation of the traced step, in order: [kind, µs, grid blocks, shared memory
    bytes, name], and for a memcpy or memset its bytes after the name. From the Chrome trace where
    there is one (it has the grids and sizes), else the spans."""
    if not chrome:
        return [["kernel" if s.kind == "kernel" else "memcpy", round(s.dur_us, 3), None, None, s.name[:60]]
                for s in sorted(gpu, key=lambda s: s.start_us)]
    events, t0, _ = _region_events(chrome)
    rows = []
    for e in _gpu_events(events, t0):
        a = e.get("args") or {}
        grid = a.get("grid")
        blocks = grid[0] * grid[1] * grid[2] if isinstance(grid, list) and len(grid) == 3 else None
        row = [_OP_KIND[e["cat"]], round(float(e.get("dur", 0.0)), 3), blocks, a.get("shared memory"),
               str(e.get("name", ""))[:60]]
        if e["cat"] != "kernel":  # a memcpy's or memset's size (predict.py prices a small memset)
            row.append(a.get("bytes"))
        rows.append(row)
    return rows


def _region_events(chrome: dict) -> tuple[list[dict], float | None, float | None]:
    """The trace's complete events and the step region's start and duration (None, None: no region)."""
    from ..engine.profiler_trace import REGION
    events = [e for e in chrome.get("traceEvents", []) if e.get("ph") == "X"]
    region = [e for e in events if e.get("name") == REGION and e.get("cat") == "user_annotation"]
    if not region:
        return events, None, None
    return events, float(region[0]["ts"]), float(region[0].get("dur", 0.0))


def _gpu_events(events: list[dict], t0: float | None) -> list[dict]:
    """The GPU operations (kernels, memcpys, memsets) at or after the region's start, in the
    order they ran (all of them where there is no region)."""
    start = float("-inf") if t0 is None else t0
    return sorted((e for e in events if e.get("cat") in _OP_KIND and float(e["ts"]) >= start),
                  key=lambda e: float(e["ts"]))


def launch_offsets(chrome: dict | None, spans=()) -> tuple[list[float], float | None]:
    """([when the host call that queued each GPU operation of the step returned, µs from the
    step's start, in op_rows' order], the host's dispatch span, µs). From a Chrome trace, the
    profiler ties a GPU event to its host call by their shared `correlation` (the later end where
    a runtime and a driver call share one) and the span is the step region's; without one (the
    simulator), the n-th launch or copy span queued the n-th GPU operation and the span ends with
    the last CPU span. ([], None) where one operation's call is missing or lies outside the span."""
    if not chrome:
        cpu = [s for s in spans if s.lane == "cpu"]
        calls = sorted((s for s in cpu if s.kind in ("launch", "copy")), key=lambda s: s.start_us)
        n_gpu = sum(1 for s in spans if s.lane == "gpu")
        span = max((s.end_us for s in cpu), default=0.0)
        if not calls or len(calls) != n_gpu or span <= 0:
            return [], None
        return [round(s.end_us, 3) for s in calls], round(span, 3)
    events, t0, dur = _region_events(chrome)
    if t0 is None or dur <= 0:
        return [], None
    calls = {}
    for e in events:
        corr = (e.get("args") or {}).get("correlation")
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and corr is not None:
            end = float(e["ts"]) + float(e.get("dur", 0.0)) - t0
            calls[corr] = max(end, calls.get(corr, end))  # a runtime call and the driver call inside it
    out = []
    for e in _gpu_events(events, t0):
        at = calls.get((e.get("args") or {}).get("correlation"))
        if at is None or not 0.0 <= at <= dur:
            return [], None
        out.append(round(at, 3))
    return out, round(dur, 3)


def cpu_spans_from_chrome(chrome: dict) -> list[Span]:
    """CPU-lane spans of the profiled region: launch calls ("launch") and the top-level framework
    ops that issued them ("dispatch": Python, the dispatcher, aten), µs from the region's start."""
    events, t0, region_us = _region_events(chrome)
    if t0 is None:
        return []
    t1 = t0 + region_us
    out, top_end = [], -1.0
    for e in sorted(events, key=lambda e: float(e["ts"])):
        ts, dur, name, cat = float(e["ts"]), float(e.get("dur", 0.0)), e.get("name", ""), e.get("cat", "")
        if not t0 <= ts <= t1:
            continue
        if cat in ("cuda_runtime", "cuda_driver") and name.startswith(LAUNCH_PREFIXES):
            out.append(Span("cpu", "launch", name, ts - t0, ts - t0 + dur))
        elif cat == "cpu_op" and ts >= top_end:  # not nested inside an earlier op: top level
            top_end = ts + dur
            out.append(Span("cpu", "dispatch", name, ts - t0, ts - t0 + dur))
    return out


def clip(spans: list[Span], max_gpu_ops: int = MAX_GPU_OPS_DRAWN) -> list[Span]:
    """Keep a timeline small: the spans that start before the end of the first `max_gpu_ops`."""
    gpu = sorted((s for s in spans if s.lane == "gpu"), key=lambda s: s.start_us)
    if len(gpu) <= max_gpu_ops:
        return spans
    cut = gpu[max_gpu_ops - 1].end_us
    return [s for s in spans if s.start_us <= cut]


def span_rows(spans) -> list[dict]:
    """Spans as plain dicts, times rounded to 0.01 µs (what a recording stores)."""
    return [{"lane": s.lane, "kind": s.kind, "name": s.name[:80], "start_us": round(s.start_us, 2),
             "end_us": round(s.end_us, 2)} for s in spans]


def _top_kernels(gpu: list[Span]) -> list[dict]:
    by_name: dict[str, list[float]] = {}
    for s in gpu:
        by_name.setdefault(s.name, []).append(s.dur_us)
    rows = [{"name": n[:80], "count": len(d), "total_us": round(sum(d), 3)} for n, d in by_name.items()]
    return sorted(rows, key=lambda r: -r["total_us"])[:TOP_KERNELS]


def profile_both(runner, spec) -> dict:
    """Profile `spec` in THIS process: one eager step, one eager step *as it would be captured*,
    and one replay of our graph.

    The CUDA runner calls it inside its worker process (profile_worker.py), never in the process
    that times steps; the simulator calls it in-process. Each traced step follows warm-up steps
    inside the same profiling session.

    "As captured": libraries branch on torch.cuda.is_current_stream_capturing() (transformers
    builds an explicit attention mask instead of checking it on the host, which costs SDPA its
    fastest kernel), so the work a graph replays can differ from the eager step's. That step runs
    eagerly, profiled, with the question answered "yes"; nothing is captured. It is what a
    prediction of the graph step may use (predict.py). A capture that fails leaves "graph" None
    and its reason in "capture_error" (the diagnosis turns it into a verdict).

    Returns {"eager", "captured", "graph": StepProfile (graph None if the capture failed, captured
    None if the step fails outside a real capture), "capture_error": None or capture_failure.describe's
    dict, "chrome_trace": the eager step's Chrome trace or None}.
    """
    from .graph_step import GraphedStep
    from ..errors import CaptureError
    step = runner.build(spec)
    x = step.clone_inputs()
    dev = runner.dev
    with dev.trace(warmup=lambda: (step(*x), step(*x))) as eager:
        step(*x)
    eager.spans = runner.relabel(eager.spans)
    captured = None
    try:
        with capture_answer(True), dev.trace(warmup=lambda: (step(*x), step(*x))) as captured:
            step(*x)
        captured.spans = runner.relabel(captured.spans)
    except Exception:  # noqa: BLE001 - code that only works inside a real capture: fall back to eager
        captured = None
    graph = graphed = failure = None
    eager_profile = summarize(eager)
    try:
        graphed = GraphedStep(runner, step)
    except CaptureError as e:
        from .capture_failure import describe
        failure = describe(e, eager_profile)
    if graphed is not None:
        with dev.trace(warmup=lambda: graphed(*x)) as graph:
            graphed(*x)
        graph.spans = runner.relabel(graph.spans)
    return {"eager": eager_profile, "captured": summarize(captured) if captured else None,
            "graph": summarize(graph) if graph else None, "capture_error": failure,
            "chrome_trace": eager.chrome_trace}


@contextlib.contextmanager
def capture_answer(answer: bool):
    """torch.cuda.is_current_stream_capturing() answers `answer` inside (the Python function only:
    torch's C++ checks are untouched, so nothing is really captured)."""
    import torch
    saved = torch.cuda.is_current_stream_capturing
    graphs = torch.cuda.graphs
    saved_graphs = getattr(graphs, "is_current_stream_capturing", None)
    torch.cuda.is_current_stream_capturing = lambda: answer
    if saved_graphs is not None:
        graphs.is_current_stream_capturing = torch.cuda.is_current_stream_capturing
    try:
        yield
    finally:
        torch.cuda.is_current_stream_capturing = saved
        if saved_graphs is not None:
            graphs.is_current_stream_capturing = saved_graphs

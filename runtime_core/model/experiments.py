"""The calibration's experiments: one per constant, each reading the quantity the constant names.

`run_experiments(dev)` makes the measurements and returns them raw (a JSON-able dict); the
derivation (`model.calibrate.derive`) turns them into Constants. Keeping the two apart means a
recording holds what was measured, and a change of how a constant is read from it can be applied
offline (`sweep --refresh`), without the GPU.

    tax_us            host µs per chain-kernel launch from Python (dispatch + cudaLaunchKernel),
                      a batch of launches with no sync (dev.measure_tax)
    kernel_us         GPU µs of one chain kernel at each requested work, from profiled spans
    eager_floor       per-kernel wall of blocking dispatch (launch, then synchronize) at zero work
    eager_sync        unprofiled blocking launches of a 10 µs kernel, each call timed on the host:
                      how long synchronize() takes after the launch returned, and the kernel's
                      profiled duration (what the sync adds is the difference)
    eager_trace       a profiled blocking step at 10 µs of work, on one clock: the kernel's start
                      after its launch call returned, and synchronize's return after the kernel ended
    graph_trace       a profiled replay of a 120-node zero-copy graph: the first node's start after
                      cudaGraphLaunch returned, the gaps between nodes, synchronize after the last
    streams_trace     a profiled streams step whose kernels (40 µs) outlast a launch, so the queue
                      is never empty: the gaps between separately launched kernels
    graph_launch      host µs of one cudaGraphLaunch in a loop of replays with no sync, and of a
                      fresh graph's first replay, at 1, 10, 120 and 1000 nodes
    node_gap_wall     unprofiled: per-node wall slope of zero-copy graph steps (100 vs 1000 nodes)
                      at three kernel durations, against the profiled durations
    stream_gap_wall   unprofiled: per-kernel wall slope of streams steps (20 vs 200 kernels) at three
                      GPU-bound kernel durations, against the profiled durations

The two *_wall experiments settle the gaps: a profiler may see a gap the wall clock does not (or
the reverse). If the slope is the kernel's duration plus a gap at every duration, that gap is
what a step pays; the derivation uses it and keeps the profiler's reading beside it.
"""
from __future__ import annotations

import statistics
import weakref

from ..knobs import GraphInput, Knobs, Mode

GRAPH_SIZES = (1, 10, 120, 1000)       # nodes of the graphs whose launch is timed
NODE_GAP_WORKS = (0.0, 5.0, 20.0)      # requested work of the node-gap slopes
STREAM_GAP_WORKS = (20.0, 40.0, 80.0)  # GPU-bound: each kernel outlasts a launch
KERNEL_WORKS = tuple(sorted({0.0, 10.0, 40.0, *NODE_GAP_WORKS, *STREAM_GAP_WORKS}))
EAGER_N, SHORT_N, LONG_N, REPLAYS = 200, 20, 1000, 200
ZERO_COPY = dict(graph_input=GraphInput.ZERO_COPY)


def run_experiments(dev) -> dict:
    """Run every experiment once on `dev` (a few seconds on an H200); returns the raw numbers."""
    raw = {"tax_us": round(dev.measure_tax(), 3),
           "kernel_us": {f"{x:g}": round(kernel_us(dev, x), 4) for x in KERNEL_WORKS}}
    raw["eager_floor"] = {"n": EAGER_N, "per_kernel_wall_us": round(_wall(dev, Knobs(Mode.EAGER, EAGER_N, 0.0)) / EAGER_N, 3)}
    raw["eager_sync"] = _eager_sync(dev)
    raw["eager_trace"] = _eager_trace(dev)
    raw["graph_trace"] = _graph_trace(dev)
    raw["streams_trace"] = _streams_trace(dev)
    raw["graph_launch"] = [_graph_launch(dev, n) for n in GRAPH_SIZES]
    raw["node_gap_wall"] = [_slope(dev, Mode.GRAPH, x, 100, LONG_N, ZERO_COPY) for x in NODE_GAP_WORKS]
    raw["stream_gap_wall"] = [_slope(dev, Mode.STREAMS, x, SHORT_N, 10 * SHORT_N, {}) for x in STREAM_GAP_WORKS]
    return raw


# ---- the pieces -------------------------------------------------------------------------------
def _wall(dev, k: Knobs) -> float:
    from ..engine.measure import measure
    return measure(dev, k, trace=False, repeats=None if dev.deterministic else 15).wall_us


def _trace(dev, k: Knobs):
    from ..engine.traced_step import trace_spec
    from ..engine.tracing import trace_step
    from ..engine.workload import ChainWorkload
    return trace_step(dev, trace_spec(k, 4, ChainWorkload(k.n, k.work_us).base_numel(dev)))


_KERNEL_US: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def kernel_us(dev, work_us: float, n: int = SHORT_N) -> float:
    """Mean GPU µs of one chain kernel at `work_us`, from profiled kernel spans. Kept per
    device: a kernel's GPU time does not drift with the host, so later calibrations reuse it."""
    cache = _KERNEL_US.setdefault(dev, {})
    if (work_us, n) not in cache:
        tr = _trace(dev, Knobs(Mode.STREAMS, n, work_us))
        cache[(work_us, n)] = statistics.fmean(s.dur_us for s in _kernels(tr))
    return cache[(work_us, n)]


def _kernels(tr):
    return sorted((s for s in tr.spans if s.lane == "gpu" and s.kind == "kernel"), key=lambda s: s.start_us)


def _host(tr, kind: str):
    return sorted((s for s in tr.spans if s.lane == "cpu" and s.kind == kind), key=lambda s: s.start_us)


def _median(xs) -> float | None:
    xs = list(xs)
    return round(statistics.median(xs), 4) if xs else None


def _eager_sync(dev, work_us: float = 10.0, n: int = 200) -> dict:
    """Time each call of blocking dispatch on the host, unprofiled: the launch call, then the
    synchronize() that waits for that kernel. The sync covers the kernel's start latency, the
    kernel and the round trip back to the host."""
    from ..engine.workload import ChainWorkload
    buf = dev.new_buffer(ChainWorkload(1, work_us).base_numel(dev))
    for _ in range(10):
        dev.launch_chain_kernel(buf)
        dev.synchronize()
    launch, sync = [], []
    for _ in range(n):
        t0 = dev.host_now_us()
        dev.launch_chain_kernel(buf)
        t1 = dev.host_now_us()
        dev.synchronize()
        t2 = dev.host_now_us()
        launch.append(t1 - t0)
        sync.append(t2 - t1)
    return {"work_us": work_us, "n": n, "kernel_us": round(kernel_us(dev, work_us), 4),
            "launch_call_us": _median(launch), "sync_call_us": _median(sync)}


def _eager_trace(dev, work_us: float = 10.0, n: int = 20) -> dict:
    """Blocking dispatch on one clock: launch call → kernel start, kernel end → sync returns."""
    tr = _trace(dev, Knobs(Mode.EAGER, n, work_us))
    kernels, launches, syncs = _kernels(tr), _host(tr, "launch"), _host(tr, "sync")
    start_lag, sync_lag = [], []
    for k in kernels:
        before = [s for s in launches if s.end_us <= k.start_us + 1e-9]
        after = [s for s in syncs if s.end_us >= k.end_us - 1e-9]
        if before:
            start_lag.append(k.start_us - before[-1].end_us)
        if after:
            sync_lag.append(after[0].end_us - k.end_us)
    return {"work_us": work_us, "n": n, "launch_to_kernel_start_us": _median(start_lag),
            "kernel_end_to_sync_return_us": _median(sync_lag), "kernels_seen": len(kernels)}


def _graph_trace(dev, n: int = 120) -> dict:
    """A replay on one clock: replay call → first node, node → node, last node → sync returns."""
    tr = _trace(dev, Knobs(Mode.GRAPH, n, 0.0, **ZERO_COPY))
    kernels, launches, syncs = _kernels(tr), _host(tr, "graph"), _host(tr, "sync")
    out = {"n": n, "kernels_seen": len(kernels), "replay_call_us": None, "replay_to_first_node_us": None,
           "node_gaps_us": _median(b.start_us - a.end_us for a, b in zip(kernels, kernels[1:])),
           "last_node_to_sync_return_us": None}
    if launches and kernels:
        out["replay_call_us"] = round(launches[0].end_us - launches[0].start_us, 4)
        out["replay_to_first_node_us"] = round(kernels[0].start_us - launches[0].end_us, 4)
        after = [s for s in syncs if s.end_us >= kernels[-1].end_us - 1e-9]
        if after:
            out["last_node_to_sync_return_us"] = round(after[0].end_us - kernels[-1].end_us, 4)
    return out


def _streams_trace(dev, work_us: float = 40.0, n: int = 200) -> dict:
    """Kernels launched separately onto a queue that is never empty: the gaps between them."""
    tr = _trace(dev, Knobs(Mode.STREAMS, n, work_us))
    kernels = _kernels(tr)[5:]  # the queue fills over the first few launches
    return {"work_us": work_us, "n": n, "kernel_gaps_us": _median(b.start_us - a.end_us
                                                                  for a, b in zip(kernels, kernels[1:]))}


def _graph_launch(dev, nodes: int) -> dict:
    """Host µs of one replay call of a `nodes`-node graph (a loop with no sync), and of the first
    replay of a fresh graph (which uploads it)."""
    from ..engine.capture import warm_up_and_capture
    buf = dev.new_buffer(1)

    def step():
        for _ in range(nodes):
            dev.launch_chain_kernel(buf)
    first = []
    for _ in range(3):
        graph, _ = warm_up_and_capture(dev, step, pool=dev.new_pool())
        dev.synchronize()
        t0 = dev.host_now_us()
        graph.replay()
        first.append(dev.host_now_us() - t0)
        dev.synchronize()
    reps = max(20, min(REPLAYS, 20_000 // max(1, nodes)))  # keep the GPU's backlog short
    times = []
    for _ in range(5):
        t0 = dev.host_now_us()
        for _ in range(reps):
            graph.replay()
        times.append((dev.host_now_us() - t0) / reps)
        dev.synchronize()
    return {"nodes": nodes, "replay_host_us": _median(times), "first_replay_host_us": _median(first)}


def _slope(dev, mode: Mode, work_us: float, n_short: int, n_long: int, extra: dict) -> dict:
    """Unprofiled wall per kernel between an n_short and an n_long step, and the profiled
    duration of that kernel."""
    short = _wall(dev, Knobs(mode, n_short, work_us, **extra))
    long_ = _wall(dev, Knobs(mode, n_long, work_us, **extra))
    return {"work_us": work_us, "kernel_us": round(kernel_us(dev, work_us), 4), "n": [n_short, n_long],
            "per_kernel_us": round((long_ - short) / (n_long - n_short), 4)}

"""Calibration: measure the model's constants on any device, on the device's own clock.

Each constant is solved from a few measured steps of our own executors (measure()), so the model
and the measurements describe the same code path, and the procedure is one program for both
peers. On the simulator it recovers the parameters the device was built with (the oracle test,
tests/test_calibration_oracle.py): that proves the procedure before a noisy GPU ever sees it.

    t        tax              host µs per launch, from a batch of launches (dev.measure_tax)
    w(x)     kernel time      per-kernel GPU time at requested work x, from traced kernel spans
    kernel_floor_us           w(0)
    eager_floor_us   f        per-kernel wall of blocking dispatch at zero work: max(f, t + w + s)
    sync_us          s        eager per-kernel wall at 10 µs of work, minus t and w(10)
    node_gap_us      gn       slope of a zero-copy graph step over N, minus w(0)
    stream_gap_us    gs       slope of a streams step over N at 40 µs of work (GPU-bound: the
                              kernels outlast a launch), minus w(40)
    graph_launch_us  g        host µs of one replay call, from a loop of replays with no sync
    graph_upload_us           extra host µs of a fresh graph's first replay
    fixed_us         L        a one-node zero-copy graph step, minus g, w(0) and s

A constant that does not bind on a device (an eager floor below t + w + s, say) is reported as
the value that plays its role in the formula, which gives the same predictions.
"""
from __future__ import annotations

import statistics
import weakref

from ..constants import TEXTBOOK, Constants
from ..knobs import GraphInput, Knobs, Mode

LONG_N = 1000      # kernels in the long graph of the node-gap slope
SHORT_N = 20       # kernels in the short graph / streams step of each slope
GPU_BOUND_WORK_US = 40.0
SYNC_WORK_US = 10.0
EAGER_N = 200
REPLAYS = 200


def calibrate(dev, passes: int = 2) -> Constants:
    """Measure `dev`'s constants (about two seconds on an H200). The first measurements of a
    process run slow (lazy initialisation, clocks), so the last of `passes` passes is kept."""
    consts = TEXTBOOK
    for _ in range(max(1, passes)):
        consts = _one_pass(dev)
    return consts


def _wall(dev, k: Knobs) -> float:
    from ..engine.measure import measure
    return measure(dev, k, trace=False, repeats=None if dev.deterministic else 15).wall_us


_KERNEL_US: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def kernel_us(dev, work_us: float, n: int = SHORT_N) -> float:
    """Mean GPU duration of one chain kernel at `work_us`, from the traced kernel spans.

    Kept per device after the first trace: a kernel's GPU time does not drift with the host's
    state, so the calibrations a sweep spreads over its run need not trace it again."""
    cache = _KERNEL_US.setdefault(dev, {})
    if (work_us, n) not in cache:
        from ..engine.traced_step import trace_spec
        from ..engine.tracing import trace_step
        from ..engine.workload import ChainWorkload
        k = Knobs(Mode.STREAMS, n, work_us)
        tr = trace_step(dev, trace_spec(k, 4, ChainWorkload(n, work_us).base_numel(dev)))
        cache[(work_us, n)] = statistics.fmean(s.dur_us for s in tr.spans if s.lane == "gpu" and s.kind == "kernel")
    return cache[(work_us, n)]


def _one_pass(dev) -> Constants:
    t = dev.measure_tax()
    w0, w10, w40 = kernel_us(dev, 0.0), kernel_us(dev, SYNC_WORK_US), kernel_us(dev, GPU_BOUND_WORK_US)
    f = _wall(dev, Knobs(Mode.EAGER, EAGER_N, 0.0)) / EAGER_N
    s = max(0.0, _wall(dev, Knobs(Mode.EAGER, EAGER_N, SYNC_WORK_US)) / EAGER_N - t - w10)
    zero_copy = dict(graph_input=GraphInput.ZERO_COPY)
    g_short = _wall(dev, Knobs(Mode.GRAPH, SHORT_N, 0.0, **zero_copy))
    g_long = _wall(dev, Knobs(Mode.GRAPH, LONG_N, 0.0, **zero_copy))
    gn = max(0.0, (g_long - g_short) / (LONG_N - SHORT_N) - w0)
    s_short = _wall(dev, Knobs(Mode.STREAMS, SHORT_N, GPU_BOUND_WORK_US))
    s_long = _wall(dev, Knobs(Mode.STREAMS, 10 * SHORT_N, GPU_BOUND_WORK_US))
    gs = max(0.0, (s_long - s_short) / (9 * SHORT_N) - w40)
    g, upload = _replay_host_us(dev)
    one = _wall(dev, Knobs(Mode.GRAPH, 1, 0.0, **zero_copy))
    fixed = max(0.0, one - (g + w0 + s))
    return Constants(sync_us=round(s, 3), graph_launch_us=round(g, 3), node_gap_us=round(gn, 3),
                     stream_gap_us=round(gs, 3), graph_upload_us=round(upload, 3),
                     kernel_floor_us=round(w0, 3), eager_floor_us=round(f, 3), fixed_us=round(fixed, 3),
                     static_copy=True, miss_runs=Mode.STREAMS.value,
                     source=f"calibrate() on {dev.name}; launch tax measured {t:.2f} µs")


def _replay_host_us(dev) -> tuple[float, float]:
    """(g, upload): host µs of one replay call of a one-kernel graph in a loop with no sync, and
    the extra host µs of a fresh graph's first replay."""
    from ..engine.capture import warm_up_and_capture
    buf = dev.new_buffer(1)
    first = []
    for _ in range(3):  # the first replay of each fresh graph carries its upload
        graph, _ = warm_up_and_capture(dev, lambda: dev.launch_chain_kernel(buf), pool=dev.new_pool())
        dev.synchronize()
        t0 = dev.host_now_us()
        graph.replay()
        first.append(dev.host_now_us() - t0)
        dev.synchronize()
    times = []
    for _ in range(5):
        t0 = dev.host_now_us()
        for _ in range(REPLAYS):
            graph.replay()
        times.append((dev.host_now_us() - t0) / REPLAYS)
        dev.synchronize()
    g = statistics.median(times)
    return g, max(0.0, statistics.median(first) - g)


def mean_constants(samples: list[dict]) -> tuple[Constants, float]:
    """Per-constant mean over calibration samples (each a Constants dict plus its `tax_us`),
    and the mean launch tax. A sweep spreads its samples over the run: the host drifts."""
    vals, blank = {}, Constants()
    for name in Constants.fields():  # a constant older samples lack keeps its textbook value
        xs = [c[name] for c in samples if c.get(name) is not None]
        vals[name] = round(statistics.fmean(xs), 3) if xs else getattr(blank, name)
    first = samples[0]
    src = first.get("source", "").split(";")[0] + f"; mean of {len(samples)} calibrations spread over the sweep"
    consts = Constants(**vals, static_copy=first.get("static_copy", True),
                       miss_runs=first.get("miss_runs", Mode.STREAMS.value), source=src)
    return consts, statistics.fmean(c["tax_us"] for c in samples)


_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def constants_for(dev) -> Constants:
    """The constants that describe `dev`: the ones it was built from (the simulator), else
    calibrate(dev), measured once per device."""
    known = dev.known_constants()
    if known is not None:
        return known
    if dev not in _CACHE:
        _CACHE[dev] = calibrate(dev)
    return _CACHE[dev]

"""Measure one widget point on a device: wall time, GPU busy time, driver calls and a timeline.

The recipe is the honest benchmark one: warm up (and, in graph mode, capture at the expected
shape, as a server would before traffic), then time `repeats` steps with the host clock, each
ending in a synchronize, and take the median. One extra step runs under the device's tracer
for the timeline and the counted API calls. GPU busy time comes from the device in bulk
(`chain_busy_us`), never from a pair of events around one tiny kernel.
"""
from __future__ import annotations

import statistics
import threading

from ..knobs import Knobs, Mode
from ..result import Result
from .executors import make_executor
from .workload import ChainWorkload

GPU_LOCK = threading.Lock()  # one measurement at a time on the GPU, across all app sessions


def default_repeats(dev, n: int, work_us: float) -> int:
    """Enough repeats for a stable median, but about 0.2 s at most on a real GPU."""
    if dev.backend == "sim":
        return 3
    step_us = n * (max(work_us, 1.0) + 20.0)
    return int(max(5, min(25, 200_000 / step_us)))


def measure(dev, k: Knobs, repeats: int | None = None, trace: bool = True,
            cache_size: int = 4) -> Result:
    """Run one point of the widget on `dev` and return what was measured.

    Args:
        dev: a device from get_device().
        k: the setting; `k.tax_us` is ignored (the device has its own launch tax), and
            `k.extra_tax_us` is host busy-work added before each launch.
        repeats: timed steps (median taken); default from `default_repeats`.
        trace: also run one traced step for the timeline and counted driver calls.
        cache_size: graphs the recapture and bucket policies keep.
    Raises:
        UsageError: a knob outside the measurement bounds (knobs.LIMITS["measure"]).
    """
    k = k.validate("measure")
    wl = ChainWorkload(k.n, k.work_us)
    ex = make_executor(k.mode, dev, wl, k.extra_tax_us, policy=k.policy, cache_size=cache_size)
    base = wl.make_input(dev, 0, dynamic=False)
    if k.mode == Mode.GRAPH:
        ex.prepare(base)
    ex.run(base)  # warm-up step (replays once in graph mode)
    if hasattr(dev, "measure_tax"):
        dev.measure_tax(batches=3, launches=200)  # the tax of this moment (a few ms)
    walls = []
    reps = repeats or default_repeats(dev, k.n, k.work_us)
    for r in range(reps):
        x = wl.make_input(dev, r + 1, k.dynamic)
        dev.synchronize()
        t0 = dev.host_now_us()
        ex.run(x)
        walls.append(dev.host_now_us() - t0)
    info = dict(ex.last)
    tr = None
    if trace:
        tr = dev.trace_step(trace_spec(k, cache_size, wl.base_numel(dev)))
    return _result(dev, ex, wl, k, walls, info, tr)


def trace_spec(k: Knobs, cache_size: int, numel: int) -> dict:
    """What a trace worker needs to set up the same step: the knobs, the cache size and the
    buffer size the measuring process chose (so both processes time the same kernels)."""
    return dict(k.as_dict(), cache_size=cache_size, numel=numel)


def traced_run(dev, spec: dict):
    """Set up the executor of `spec` as measure() does, then trace one step; returns a Trace.

    Devices call this from `trace_step`: the simulator in-process, CUDA in a worker process.
    """
    wl = ChainWorkload(spec["n"], spec["work_us"])
    ex = make_executor(Mode(spec["mode"]), dev, wl, spec["extra_tax_us"], policy=spec["policy"],
                       cache_size=spec.get("cache_size", 4))
    base = wl.make_input(dev, 0, dynamic=False)
    if spec["mode"] == Mode.GRAPH:
        ex.prepare(base)
    ex.run(base)
    ex.run(wl.make_input(dev, 1, spec["dynamic"]))  # warm calls, as measure() makes
    warm_x, x = wl.make_input(dev, 2, spec["dynamic"]), wl.make_input(dev, 3, spec["dynamic"])
    with dev.trace(warmup=lambda: ex.run(warm_x)) as tr:
        ex.run(x)
    return tr


def _result(dev, ex, wl, k: Knobs, walls, info, tr) -> Result:
    busy = dev.chain_busy_us(wl.n, wl.base_numel(dev))
    tax = dev.intrinsic_tax_us() + k.extra_tax_us
    wall = statistics.median(walls)
    ran_graph = info.get("path", "").endswith("replay")
    res = Result(
        source=dev.backend, mode=k.mode, n=wl.n, work_us=wl.work_us, tax_us=tax, dynamic=k.dynamic,
        wall_us=wall, kernel_work_us=busy,
        driver_calls=tr.driver_calls if tr else (1 if ran_graph else wl.n),
        graph_valid=bool(info.get("graph_valid", True)),
        copy_calls=tr.copy_calls if tr else 0, sync_calls=tr.sync_calls if tr else 0,
        policy=k.effective_policy,
        timeline=tr.spans if tr else [], chrome_trace=tr.chrome_trace if tr else None,
        host_free_us=_host_free_us(tr) if (tr and dev.backend == "sim") else 0.0)
    res.extra = {
        "kernel_time_us": round(busy, 3),
        "extra_tax_us": k.extra_tax_us,
        "backend": dev.backend,
        "device_name": dev.name,
        "torch_version": _torch_version(),
        "path": info.get("path"),
        "wall_p10_us": round(_quantile(walls, 0.1), 3),
        "wall_p90_us": round(_quantile(walls, 0.9), 3),
        "repeats": len(walls),
    }
    if k.mode == Mode.GRAPH:
        res.extra["graph_stats"] = ex.stats.as_dict()
    return res


def _host_free_us(tr) -> float:
    """When the host finished dispatching: the end of its last launch (or graph launch, or wait
    for a full launch queue) in the traced step."""
    ends = [s.end_us for s in tr.spans if s.lane == "cpu" and s.kind in ("launch", "graph", "blocked", "copy", "spin")]
    return max(ends, default=0.0)


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _torch_version() -> str:
    try:
        import torch
        return torch.__version__
    except Exception:
        return "none"

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

from ..model import formulas as model
from .executors import make_executor
from ..result import POLICIES, Result
from .workload import ChainWorkload

MAX_MEASURE_N = 20_000
MAX_MEASURE_WORK_US = 10_000.0
MAX_EXTRA_TAX_US = 10_000.0
GPU_LOCK = threading.Lock()  # one measurement at a time on the GPU, across all app sessions


def validate_measure(mode: str, n: int, work_us: float, extra_tax_us: float, policy: str) -> None:
    """Raise ValueError with a one-line message for knobs a measurement can't take."""
    model.validate(mode, n, 0.0, work_us)
    if n > MAX_MEASURE_N:
        raise ValueError(f"n must be at most {MAX_MEASURE_N} for a measurement, got {n}")
    if work_us > MAX_MEASURE_WORK_US:
        raise ValueError(f"work_us must be at most {MAX_MEASURE_WORK_US:g} for a measurement, got {work_us:g}")
    model.validate(mode, 1, extra_tax_us, 0.0)
    if extra_tax_us > MAX_EXTRA_TAX_US:
        raise ValueError(f"extra_tax_us must be at most {MAX_EXTRA_TAX_US:g}, got {extra_tax_us:g}")
    if policy not in POLICIES:
        raise ValueError(f"dynamic policy must be one of {', '.join(POLICIES)}, got {policy!r}")


def default_repeats(dev, n: int, work_us: float) -> int:
    """Enough repeats for a stable median, but about 0.2 s at most on a real GPU."""
    if dev.backend == "sim":
        return 3
    step_us = n * (max(work_us, 1.0) + 20.0)
    return int(max(5, min(25, 200_000 / step_us)))


def measure(dev, mode: str, n: int, work_us: float, extra_tax_us: float = 0.0,
            dynamic: bool = False, policy: str = "fallback", repeats: int | None = None,
            trace: bool = True, cache_size: int = 4) -> Result:
    """Run one point of the widget on `dev` and return what was measured.

    Args:
        dev: a device from get_device().
        mode: "eager", "streams" or "graph".
        n: kernels in the chain.
        work_us: requested GPU work per kernel, µs.
        extra_tax_us: host busy-work added before each launch, µs.
        dynamic: the input shape changes on every call.
        policy: what graph mode does on a shape miss: fallback, recapture or bucket.
        repeats: timed steps (median taken); default from `default_repeats`.
        trace: also run one traced step for the timeline and counted driver calls.
    """
    validate_measure(mode, n, work_us, extra_tax_us, policy)
    wl = ChainWorkload(n, work_us)
    ex = make_executor(mode, dev, wl, extra_tax_us, policy=policy, cache_size=cache_size)
    base = wl.make_input(dev, 0, dynamic=False)
    if mode == "graph":
        ex.prepare(base)
    ex.run(base)  # warm-up step (replays once in graph mode)
    if hasattr(dev, "measure_tax"):
        dev.measure_tax(batches=3, launches=200)  # the tax of this moment (a few ms)
    walls = []
    reps = repeats or default_repeats(dev, n, work_us)
    for r in range(reps):
        x = wl.make_input(dev, r + 1, dynamic)
        dev.synchronize()
        t0 = dev.host_now_us()
        ex.run(x)
        walls.append(dev.host_now_us() - t0)
    info = dict(ex.last)
    tr = None
    if trace:
        tr = dev.trace_step(dict(mode=mode, n=n, work_us=work_us, extra_tax_us=extra_tax_us,
                                 dynamic=dynamic, policy=policy, cache_size=cache_size,
                                 numel=wl.base_numel(dev)))
    return _result(dev, ex, wl, mode, extra_tax_us, dynamic, policy, walls, info, tr)


def traced_run(dev, spec: dict):
    """Set up the executor of `spec` as measure() does, then trace one step; returns a Trace.

    Devices call this from `trace_step`: the simulator in-process, CUDA in a worker process.
    """
    wl = ChainWorkload(spec["n"], spec["work_us"])
    ex = make_executor(spec["mode"], dev, wl, spec["extra_tax_us"], policy=spec["policy"],
                       cache_size=spec.get("cache_size", 4))
    base = wl.make_input(dev, 0, dynamic=False)
    if spec["mode"] == "graph":
        ex.prepare(base)
    ex.run(base)
    ex.run(wl.make_input(dev, 1, spec["dynamic"]))  # warm calls, as measure() makes
    warm_x, x = wl.make_input(dev, 2, spec["dynamic"]), wl.make_input(dev, 3, spec["dynamic"])
    with dev.trace(warmup=lambda: ex.run(warm_x)) as tr:
        ex.run(x)
    return tr


def _result(dev, ex, wl, mode, extra_tax_us, dynamic, policy, walls, info, tr) -> Result:
    busy = dev.chain_busy_us(wl.n, wl.base_numel(dev))
    tax = dev.intrinsic_tax_us() + extra_tax_us
    wall = statistics.median(walls)
    ran_graph = info.get("path", "").endswith("replay")
    res = Result(
        source=dev.backend, mode=mode, n=wl.n, work_us=wl.work_us, tax_us=tax, dynamic=dynamic,
        wall_us=wall, kernel_work_us=busy,
        driver_calls=tr.driver_calls if tr else (1 if ran_graph else wl.n),
        graph_valid=bool(info.get("graph_valid", True)),
        copy_calls=tr.copy_calls if tr else 0, sync_calls=tr.sync_calls if tr else 0,
        policy=policy if (mode == "graph" and dynamic) else "fallback",
        timeline=tr.spans if tr else [], chrome_trace=tr.chrome_trace if tr else None,
        host_free_us=_host_free_us(tr) if (tr and dev.backend == "sim") else 0.0)
    res.extra = {
        "kernel_time_us": round(busy, 3),
        "extra_tax_us": extra_tax_us,
        "backend": dev.backend,
        "device_name": dev.name,
        "torch_version": _torch_version(),
        "path": info.get("path"),
        "wall_p10_us": round(_quantile(walls, 0.1), 3),
        "wall_p90_us": round(_quantile(walls, 0.9), 3),
        "repeats": len(walls),
    }
    if mode == "graph":
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

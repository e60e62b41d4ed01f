"""Measure one widget point on a device: wall time, GPU busy time, driver calls and a timeline.

The recipe is the honest benchmark one: warm up (and, in graph mode, capture at the expected
shape, as a server would before traffic), then time `repeats` steps with the device's host
clock, each ending in a synchronize, and take the median. One extra step runs under the
device's tracer for the timeline and the counted API calls; without it the counts are None,
never a guess. GPU busy time comes from the device in bulk (`chain_busy_us`), never from a
pair of events around one tiny kernel.
"""
from __future__ import annotations

import statistics

from ..knobs import Knobs, Mode
from ..result import Result
from .tracing import trace_step
from .modes import make_executor
from .gpu_queue import GPU_LOCK  # noqa: F401  one measurement at a time on the GPU, fair, across sessions
from .traced_step import StepInputs, trace_spec
from .workload import ChainWorkload

# The host drifts between a fast and a slow state (on the H200 machine, launches of ~7 and ~10 µs,
# for tens of seconds at a time). A point's tax is the median of TAX_SAMPLES measurements: before,
# in the middle of and after its timed steps, so the tax and the wall (a median too) see the same
# mix of states. One measurement taken before the steps once put a streams point 33 µs under its
# lower bound, 0.9·N·tax, when the host sped up just after it. A deterministic device (the
# simulator's virtual clock) takes one sample.
TAX_SAMPLES = 3
DEFAULT_CACHE_SIZE = 4  # graphs the recapture and bucket policies keep (GraphExecutor's LRU cache)


def default_repeats(dev, n: int, work_us: float) -> int:
    """Enough repeats for a stable median, but about 0.2 s at most on a real GPU; a
    deterministic device gives the same answer every time, so 3 are plenty."""
    if dev.deterministic:
        return 3
    step_us = n * (max(work_us, 1.0) + 20.0)
    return int(max(5, min(25, 200_000 / step_us)))


def measure(dev, k: Knobs, repeats: int | None = None, trace: bool = True,
            cache_size: int = DEFAULT_CACHE_SIZE) -> Result:
    """Run one point of the widget on `dev` and return what was measured.

    Args:
        dev: a Device (engine.device.get_device()).
        k: the setting; `k.tax_us` is ignored (the device has its own launch tax), and
            `k.extra_tax_us` is host busy-work added before each launch.
        repeats: timed steps (median taken); default from `default_repeats`.
        trace: also run one traced step for the timeline and the counted driver calls.
        cache_size: graphs the recapture and bucket policies keep.
    Raises:
        UsageError: a knob outside the measurement bounds (knobs.LIMITS["measure"]).
    """
    k = k.validate("measure")
    wl = ChainWorkload(k.n, k.work_us)
    ex = make_executor(k.mode, dev, wl, k.extra_tax_us, policy=k.policy, cache_size=cache_size)
    inputs = StepInputs(dev, wl, ex, k)
    ex.run(inputs.first())  # warm-up step (replays once in graph mode, uploading the graph)
    reps = repeats or default_repeats(dev, k.n, k.work_us)
    drifts = not dev.deterministic  # a virtual clock's tax is the same every time: one sample
    taxes, walls = [dev.measure_tax()], []
    for r in range(reps):
        if drifts and r == reps // 2 and r > 0:
            taxes.append(dev.measure_tax())
        x = inputs.next(r + 1)
        dev.synchronize()
        t0 = dev.host_now_us()
        ex.run(x)
        walls.append(dev.host_now_us() - t0)
    if drifts:
        taxes.append(dev.measure_tax())
    info = ex.last
    tr = trace_step(dev, trace_spec(k, cache_size, wl.base_numel(dev))) if trace else None
    return _result(dev, ex, wl, k, walls, info, tr, statistics.median(taxes))


def _result(dev, ex, wl, k: Knobs, walls, info, tr, intrinsic_tax_us: float) -> Result:
    busy = dev.chain_busy_us(wl.n, wl.base_numel(dev))
    tax = intrinsic_tax_us + k.extra_tax_us
    wall = statistics.median(walls)
    res = Result(
        source=dev.backend, mode=k.mode, n=wl.n, work_us=wl.work_us, tax_us=tax, dynamic=k.dynamic,
        wall_us=wall, kernel_work_us=busy,
        driver_calls=tr.driver_calls if tr else None, graph_valid=info.graph_valid,
        copy_calls=tr.copy_calls if tr else None, sync_calls=tr.sync_calls if tr else None,
        policy=k.effective_policy, timeline=tr.spans if tr else [],
        chrome_trace=tr.chrome_trace if tr else None, host_free_us=tr.host_free_us if tr else None)
    res.extra = {
        "kernel_time_us": round(busy, 3),
        "extra_tax_us": k.extra_tax_us,
        "backend": str(dev.backend),
        "device_name": dev.name,
        "torch_version": _torch_version(),
        "path": str(info.path),
        "wall_p10_us": round(quantile(walls, 0.1), 3),
        "wall_p90_us": round(quantile(walls, 0.9), 3),
        "repeats": len(walls),
    }
    if k.mode == Mode.GRAPH:
        res.extra["graph_input"] = str(k.graph_input)
        res.extra["graph_stats"] = ex.stats.as_dict()
    return res


def quantile(xs: list[float], q: float) -> float:
    """The q-quantile of xs (the sample at rank q·n); 0 for no samples."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _torch_version() -> str:
    try:
        import torch
        return torch.__version__
    except Exception:
        return "none"

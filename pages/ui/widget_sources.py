"""Where each column of the widget comes from: the textbook model, the calibrated model, the
simulator, a live GPU measurement, or the shipped recording. Each takes a Knobs; the cached
workers below take its fields, so Streamlit's cache keys are plain values."""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import streamlit as st

from runtime_core.constants import TEXTBOOK, Constants
from runtime_core.knobs import Knobs
from runtime_core.model.formulas import predict
from runtime_core.model.timeline_fit import redraw
from runtime_core.recordings import Recording, is_exact, nearest_point, timeline_for
from runtime_core.result import Result
from runtime_core.lesson.page_text import text as prose

SIM_MAX_KERNEL_TIMELINE = 400


def result_dict(r: Result) -> dict:
    d = r.metrics()
    d["timeline"] = r.timeline_rows()
    return d


def _fields(k: Knobs) -> tuple:
    """The knobs as plain values, in Knobs' field order (cache keys)."""
    return (k.mode.value, k.n, k.work_us, k.tax_us, k.extra_tax_us, k.dynamic, k.policy.value,
            k.graph_input.value)


def textbook(k: Knobs) -> dict:
    """The seed's model: tax and work as given, no sync, no gaps."""
    return _textbook(*_fields(k))


@st.cache_data(max_entries=512, show_spinner=False)
def _textbook(*fields) -> dict:
    return result_dict(predict(Knobs(*fields), TEXTBOOK))


def calibrated(consts: Constants, k: Knobs) -> dict:
    """The calibrated model with constants measured on a GPU (a recording's meta.calibration)."""
    return result_dict(predict(k, consts))


def check_cost(k: Knobs, dev) -> None:
    """Refuse (UsageError, one line) a setting whose measurement on `dev` would run past the
    request limit (engine/cost.py). The widget's bounds keep it well inside; this is the guard
    the page path shares with the CLI, and the simulated and live workers call it too."""
    from runtime_core.engine.cost import PAGE_NAMES, check_measure, cost_model
    check_measure(k, cost_model(dev), names=PAGE_NAMES, what="this setting", device_name=dev.name)


def sim_device(k: Knobs):
    """The simulated GPU of the widget's simulated column: the shipped H200's constants, the
    knob's launch tax."""
    from runtime_core.engine.sim.device import SimDevice, SimParams
    from runtime_core.recordings.shipped import shipped_constants
    return SimDevice(SimParams(tax_us=k.tax_us), constants=shipped_constants())


def live_device():
    from runtime_core.engine.cuda.device import CudaDevice
    return CudaDevice.shared()


def simulated(k: Knobs, timeline: bool = True) -> dict:
    """The discrete-event simulator with the knob's tax: real executor code on a virtual clock.
    `timeline=False` skips the traced step: no timeline and no call counts (wall times only)."""
    return _simulated(*_fields(k), timeline)


@st.cache_data(max_entries=256, show_spinner=False)
def _simulated(*fields_and_timeline) -> dict:
    from runtime_core.engine.measure import measure
    *fields, timeline = fields_and_timeline
    k = Knobs(*fields).replace(extra_tax_us=0.0)
    dev = sim_device(k)
    check_cost(k, dev)
    if not timeline:
        return result_dict(measure(dev, k, trace=False))
    # measure(trace=True) is measure(trace=False) and then one traced step on the same device: done
    # in two parts, the untraced numbers are kept for the copy-cost row (simulated_numbers), which
    # otherwise measured the same setting again (a third of a new setting's server time at N=2,000).
    res = measure(dev, k, trace=False)
    _remember_numbers(tuple(fields), result_dict(res))
    return result_dict(_with_trace(dev, k, res))


def _with_trace(dev, k: Knobs, res):
    """`res` with what measure(trace=True) takes from its traced step (engine/measure.py's _result)."""
    from runtime_core.engine.tracing import trace_step
    from runtime_core.engine.traced_step import trace_spec
    from runtime_core.engine.workload import ChainWorkload
    tr = trace_step(dev, trace_spec(k, 4, ChainWorkload(k.n, k.work_us).base_numel(dev)))
    res.driver_calls, res.copy_calls, res.sync_calls = tr.driver_calls, tr.copy_calls, tr.sync_calls
    res.timeline, res.chrome_trace, res.host_free_us = tr.spans, tr.chrome_trace, tr.host_free_us
    return res


_NUMBERS: OrderedDict = OrderedDict()  # knob fields -> the untraced numbers of a traced simulation
_NUMBERS_LOCK = threading.Lock()      # every session is a thread of the server
_NUMBERS_MAX = 256


def _remember_numbers(fields: tuple, numbers: dict) -> None:
    with _NUMBERS_LOCK:
        _NUMBERS[fields] = numbers
        _NUMBERS.move_to_end(fields)
        while len(_NUMBERS) > _NUMBERS_MAX:
            _NUMBERS.popitem(last=False)


def simulated_numbers(k: Knobs) -> dict:
    """simulated() without its traced step: wall times only (the copy-cost row needs no more).
    Taken from the traced simulation of the same setting when there was one."""
    with _NUMBERS_LOCK:
        hit = _NUMBERS.get(_fields(k))
    return dict(hit) if hit is not None else simulated(k, timeline=False)


@st.cache_resource(show_spinner=False)
def live_gpu():
    """The server's one live GPU (engine/live_gpu.py): warmed in the background, shared by every
    session, one measurement at a time."""
    from runtime_core.engine.cuda.device import CudaDevice
    from runtime_core.lesson.live_gpu import LiveGPU
    return LiveGPU(CudaDevice.shared)


def live_floor_us() -> float:
    """The live GPU's intrinsic launch tax (the tax knob's floor), measured once per server."""
    return live_gpu().floor_us()


def live(k: Knobs, on_wait=None) -> dict:
    """Measure `k` (its extra_tax_us on top of the GPU's own tax) on this machine's GPU, or take
    it from the shared cache (10 minutes per setting). `on_wait(Waiting)` is told the place in
    line while other measurements run; QueueFull past the line's cap."""
    d = dict(live_gpu().measure(k, on_wait=on_wait))
    return _redrawn(d, Constants.from_dict(live_calibration()))


def _redrawn(d: dict, consts: Constants) -> dict:
    """The profiled timeline redrawn with the unprofiled costs (model/timeline_fit.py), so the
    picture's step is as long as the wall time beside it; the profiler's own is `raw_timeline`."""
    d["raw_timeline"] = d.get("timeline") or []
    d["timeline"] = redraw(d["raw_timeline"], d["wall_us"], d["tax_us"], consts) if d["raw_timeline"] else []
    return d


def recorded(rec: Recording, k: Knobs) -> dict | None:
    """The nearest recorded point to `k` (its extra_tax_us is the recording's grid key), and its
    timeline when the recording has one for it."""
    p = nearest_point(rec, k)
    if p is None:
        return None
    d = p.metrics()
    d["timeline"] = timeline_for(rec, p)
    d["exact"] = is_exact(p, k)
    return _redrawn(d, rec.meta.calibration)


def live_calibration() -> dict:
    """The calibrated model's constants for the live GPU (measured once per server, ~2 s)."""
    return live_gpu().calibration()


@dataclass
class Shown:
    """The widget's headline column for a setting: a live measurement, a recorded point, or (with
    neither) the simulator. `note` says where a recorded point differs from the setting, e.g.
    "recorded at N=120", and is empty when it matches exactly."""

    numbers: dict
    source: str      # "live", "recorded" or "simulated" (a badge key)
    label: str       # the column's name in tables, e.g. "recorded H200"
    note: str        # "" or "recorded at N=120, work 2 µs"
    consts: Constants | None  # the calibrated model's constants for this GPU
    eff_tax_us: float         # the launch tax this column ran with
    fallback: bool = False    # True when neither a GPU nor a recording was there: the simulator
    notice: str = ""          # why live numbers were not shown (the GPU's line was full)


def off_grid_note(d: dict, k: Knobs, own_tax_us: float = 0.0) -> str:
    """"recorded at N=120" (and the work or the tax, where those differ too) when a recorded
    point is not exactly `k`; "" when it is. The tax is the point's whole tax per launch: the
    GPU's own `own_tax_us` plus the host work the point added ("tax 28.4 µs", never "extra 20")."""
    if d.get("exact", True):
        return ""
    parts = [f"N={d['n']}"] if d["n"] != k.n else []
    if float(d["work_us"]) != float(k.work_us):
        parts.append(f"work {d['work_us']:g} µs")
    if float(d.get("extra_tax_us", 0.0)) != float(k.extra_tax_us):
        parts.append(f"tax {own_tax_us + d.get('extra_tax_us', 0.0):.4g} µs")  # 28.39: not your 28.4
    return "recorded at " + ", ".join(parts) if parts else ""


def shown(is_live: bool, rec: Recording | None, k: Knobs, on_wait=None) -> Shown:
    """What the headline column shows for `k` (the tax knob's value at or above the GPU's floor
    goes in as real extra host work). Live when `is_live`; past the GPU line's cap, the
    recording with a notice saying so."""
    notice = ""
    if is_live:
        from runtime_core.engine.gpu_queue import QueueFull
        floor = live_floor_us()
        extra = max(0.0, k.tax_us - floor)
        try:
            d = live(k.replace(extra_tax_us=extra), on_wait=on_wait)
            return Shown(d, "live", "measured live", "", Constants.from_dict(live_calibration()), floor + extra)
        except QueueFull as e:
            notice = prose("widget", "gpu_busy", error=e)
    if rec is not None:
        floor = rec.meta.intrinsic_tax_us or 0.0
        at = k.replace(extra_tax_us=max(0.0, k.tax_us - floor))
        d = recorded(rec, at)
        if d is not None:
            name = "simulated recording" if rec.meta.simulated else f"recorded {short_device(rec)}"
            return Shown(d, rec.meta.source, name, off_grid_note(d, at, floor), rec.meta.calibration,
                         floor + at.extra_tax_us, notice=notice)
    return Shown(simulated(k), "simulated", "simulated", "", None, k.tax_us, fallback=True, notice=notice)


def short_device(rec: Recording) -> str:
    """A short name for a recording's GPU in a column header ("H200" for "NVIDIA H200")."""
    name = (rec.meta.device_name or "GPU").replace("NVIDIA ", "")
    return name if len(name) <= 16 else name[:15] + "…"

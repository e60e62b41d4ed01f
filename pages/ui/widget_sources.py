"""Where each column of the widget comes from: the textbook model, the calibrated model, the
simulator, a live GPU measurement, or the shipped recording. Each takes a Knobs; the cached
workers below take its fields, so Streamlit's cache keys are plain values."""
from __future__ import annotations

import streamlit as st

from runtime_core.constants import TEXTBOOK, Constants
from runtime_core.knobs import Knobs
from runtime_core.model.formulas import predict
from runtime_core.recordings import Recording, is_exact, nearest_point, timeline_for
from runtime_core.result import Result

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
    from runtime_core.engine.cost import PAGE_NAMES, check_measure
    check_measure(k, dev.cost_model(), names=PAGE_NAMES, what="this setting", device_name=dev.name)


def sim_device(k: Knobs):
    """The simulated GPU of the widget's simulated column: the shipped H200's constants, the
    knob's launch tax."""
    from runtime_core.engine.sim_device import SimDevice, SimParams
    return SimDevice(SimParams(tax_us=k.tax_us))


def live_device():
    from runtime_core.engine.cuda_device import CudaDevice
    return CudaDevice.shared()


def simulated(k: Knobs) -> dict:
    """The discrete-event simulator with the knob's tax: real executor code on a virtual clock."""
    return _simulated(*_fields(k))


@st.cache_data(max_entries=256, show_spinner=False)
def _simulated(*fields) -> dict:
    from runtime_core.engine.measure import measure
    k = Knobs(*fields).replace(extra_tax_us=0.0)
    dev = sim_device(k)
    check_cost(k, dev)
    return result_dict(measure(dev, k))


@st.cache_resource(show_spinner=False)
def live_floor_us() -> float:
    """The live GPU's intrinsic launch tax (the tax knob's floor), measured once per server."""
    from runtime_core.engine.cuda_device import CudaDevice
    from runtime_core.engine.measure import GPU_LOCK
    with GPU_LOCK:
        dev = CudaDevice.shared()
        dev.tracer().start()  # the trace worker takes a few seconds to start: begin now
        return dev.intrinsic_tax_us()


def live(k: Knobs) -> dict:
    """Measure `k` (its extra_tax_us on top of the GPU's own tax) on this machine's GPU now,
    cached for 10 minutes per setting; one measurement at a time across all sessions."""
    return _live(*_fields(k.replace(tax_us=0.0)))


@st.cache_data(max_entries=256, ttl=600, show_spinner=False)
def _live(*fields) -> dict:
    import time
    from runtime_core.engine.measure import GPU_LOCK, measure
    k = Knobs(*fields)
    dev = live_device()
    check_cost(k, dev)
    with GPU_LOCK:
        r = measure(dev, k)
    d = result_dict(r)
    d["chrome_trace"] = r.chrome_trace
    d["measured_at"] = time.strftime("%H:%M:%S")
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
    return d


@st.cache_resource(show_spinner=False)
def live_calibration() -> dict:
    """The calibrated model's constants for the live GPU (measured once per server, ~2 s)."""
    from runtime_core.engine.cuda_device import CudaDevice
    from runtime_core.engine.measure import GPU_LOCK
    with GPU_LOCK:
        from runtime_core.model.calibrate import constants_for
        return constants_for(CudaDevice.shared()).as_dict()

"""Where each column of the widget comes from: the textbook model, the calibrated model, the
simulator, a live GPU measurement, or the shipped recording. Cached per knob setting."""
from __future__ import annotations

import streamlit as st

from runtime_core.model import formulas as model
from runtime_core.recordings import store as recordings
from runtime_core.result import Result

SIM_MAX_KERNEL_TIMELINE = 400


def result_dict(r: Result) -> dict:
    d = r.metrics()
    d["timeline"] = r.timeline_rows()
    return d


@st.cache_data(max_entries=512, show_spinner=False)
def textbook(mode: str, n: int, tax_us: float, work_us: float, dynamic: bool, policy: str) -> dict:
    """The seed's model: tax and work as given, no sync, no gaps."""
    return result_dict(model.predict(mode, n, tax_us, work_us, dynamic, model.TEXTBOOK, policy))


def calibrated(consts: dict, mode: str, n: int, tax_us: float, work_us: float, dynamic: bool,
               policy: str) -> dict:
    """The calibrated model with constants measured on a GPU (a recording's meta.calibration)."""
    c = model.constants_from_dict(consts)
    return result_dict(model.predict(mode, n, tax_us, work_us, dynamic, c, policy))


@st.cache_data(max_entries=256, show_spinner=False)
def simulated(mode: str, n: int, tax_us: float, work_us: float, dynamic: bool, policy: str) -> dict:
    """The discrete-event simulator with the knob's tax: real executor code on a virtual clock."""
    from runtime_core.engine.measure import measure
    from runtime_core.engine.sim_device import SimDevice, SimParams
    dev = SimDevice(SimParams(tax_us=tax_us))
    return result_dict(measure(dev, mode, n, work_us, 0.0, dynamic, policy))


@st.cache_resource(show_spinner=False)
def live_floor_us() -> float:
    """The live GPU's intrinsic launch tax (the tax knob's floor), measured once per server."""
    from runtime_core.engine.cuda_device import CudaDevice
    from runtime_core.engine.measure import GPU_LOCK
    with GPU_LOCK:
        dev = CudaDevice.shared()
        dev.tracer().start()  # the trace worker takes a few seconds to start: begin now
        return dev.intrinsic_tax_us()


@st.cache_data(max_entries=256, ttl=600, show_spinner=False)
def live(mode: str, n: int, extra_tax_us: float, work_us: float, dynamic: bool, policy: str) -> dict:
    """Measure on this machine's GPU now (cached for 10 minutes per setting); one measurement at
    a time across all sessions."""
    import time
    from runtime_core.engine.cuda_device import CudaDevice
    from runtime_core.engine.measure import GPU_LOCK, measure
    with GPU_LOCK:
        r = measure(CudaDevice.shared(), mode, n, work_us, extra_tax_us, dynamic, policy)
    d = result_dict(r)
    d["chrome_trace"] = r.chrome_trace
    d["measured_at"] = time.strftime("%H:%M:%S")
    return d


def recorded(rec: dict, mode: str, n: int, extra_tax_us: float, work_us: float, dynamic: bool,
             policy: str) -> dict | None:
    """The nearest recorded point (and its timeline when the recording has one for it)."""
    p = recordings.nearest_point(rec, mode, n, work_us, dynamic, extra_tax_us, policy)
    if p is None:
        return None
    d = dict(p)
    d["kernel_work_us"] = p["kernel_time_us"]
    fallback = p.get("dynamic_policy", "fallback") == "fallback"  # timelines are recorded for it only
    d["timeline"] = (recordings.timeline_for(rec, p["mode"], p["n"], p["work_us"], p["dynamic"]) or []) if fallback else []
    d["exact"] = (p["n"], float(p["work_us"]), float(p.get("extra_tax_us", 0))) == (n, float(work_us),
                                                                                  float(extra_tax_us))
    return d


@st.cache_resource(show_spinner=False)
def live_calibration() -> dict:
    """The calibrated model's constants for the live GPU (measured once per server, ~2 s)."""
    from runtime_core.engine.cuda_device import CudaDevice
    from runtime_core.engine.measure import GPU_LOCK
    with GPU_LOCK:
        return CudaDevice.shared().calibration().as_dict()

"""Tracing a step, found by the device's backend (sim/tracing.py, cuda/tracing.py).

    trace_step(dev, spec)     one chain step of `spec` (traced_step.trace_spec), traced wherever
                              that slows no later measurement: in-process on the simulator, in a
                              worker process on CUDA
    prepare_tracing(dev)      get that ready ahead of the first trace_step (CUDA: start the worker)
    trace_inline(dev, fn)     run `fn`; its Trace where tracing in-process is free, else None

Device.trace() is the primitive underneath: trace the enclosed region in this process.
"""
from __future__ import annotations

from ..knobs import Backend
from .cuda import tracing as cuda
from .sim import tracing as sim

_BY_BACKEND = {Backend.SIM: sim, Backend.CUDA: cuda}


def trace_step(dev, spec: dict):
    """A Trace of one step described by `spec` on `dev`."""
    return _BY_BACKEND[dev.backend].trace_step(dev, spec)


def prepare_tracing(dev) -> None:
    _BY_BACKEND[dev.backend].prepare_tracing(dev)


def trace_inline(dev, fn):
    """Run `fn` and return its Trace if `dev` can trace in-process for free; else None."""
    return _BY_BACKEND[dev.backend].trace_inline(dev, fn)

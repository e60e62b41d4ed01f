"""Tracing on a real GPU: in the trace worker process (trace_worker.py says why), never in the
process that measures."""
from __future__ import annotations

from ..traced_step import traced_run
from .trace_worker import TraceWorker

_worker: TraceWorker | None = None


def tracer() -> TraceWorker:
    """The process-wide TraceWorker (started on first use)."""
    global _worker
    if _worker is None:
        _worker = TraceWorker()
    return _worker


def trace_step(dev, spec: dict):
    """Trace one step of `spec` in the trace worker process (in-process only inside the worker)."""
    if dev.in_worker:
        return traced_run(dev, spec)
    return tracer().trace(spec)


def prepare_tracing(dev) -> None:
    """Start the trace worker now: it takes seconds to import torch and warm the profiler."""
    tracer().start()


def trace_inline(dev, fn):
    """Profiling this process would slow every later launch in it: run `fn` untraced."""
    fn()
    return None

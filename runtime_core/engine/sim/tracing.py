"""Tracing on the simulator: in this process, for free (its clock is virtual, so a trace slows
nothing that follows)."""
from __future__ import annotations

from ..traced_step import traced_run


def trace_step(dev, spec: dict):
    """Trace one step of `spec` (traced_step.traced_run) here, in-process."""
    return traced_run(dev, spec)


def prepare_tracing(dev) -> None:
    """Nothing to start: the simulator traces in-process."""


def trace_inline(dev, fn):
    """Run `fn` and return its Trace."""
    with dev.trace() as tr:
        fn()
    return tr

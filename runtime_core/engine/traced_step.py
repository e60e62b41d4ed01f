"""One chain step set up the way measure() sets it up, then traced: what a backend's trace_step
runs (in this process on the simulator, in the trace worker on CUDA).

    StepInputs    where each step's input comes from (a fresh buffer, or the graph's own)
    trace_spec    what a trace worker needs to set up the same step
    traced_run    warm it up as measure() does and trace one step
"""
from __future__ import annotations

from ..knobs import GraphInput, Knobs, Mode
from .modes import make_executor
from .workload import ChainWorkload


class StepInputs:
    """Where each step's input comes from. The copy path hands the step a fresh buffer (the
    graph step copies it into its static buffer); the zero-copy path writes the next input
    straight into the captured buffer, so a graph step replays with no copy."""

    def __init__(self, dev, wl: ChainWorkload, ex, k: Knobs):
        self.dev, self.wl, self.ex, self.k = dev, wl, ex, k
        self.zero_copy = k.mode == Mode.GRAPH and k.graph_input == GraphInput.ZERO_COPY and not k.dynamic

    def first(self):
        base = self.wl.make_input(self.dev, 0, dynamic=False)
        if self.k.mode == Mode.GRAPH:
            self.ex.prepare(base)
        return self.ex.static_input() if self.zero_copy else base

    def next(self, call: int):
        if not self.zero_copy:
            return self.wl.make_input(self.dev, call, self.k.dynamic)
        x = self.ex.static_input()
        self.dev.fill(x, float(call % 5))  # the producer writes the request in place
        return x


def trace_spec(k: Knobs, cache_size: int, numel: int) -> dict:
    """What a trace worker needs to set up the same step: the knobs, the cache size and the
    buffer size the measuring process chose (so both processes time the same kernels)."""
    return dict(k.as_dict(), cache_size=cache_size, numel=numel)


def traced_run(dev, spec: dict):
    """Set up the executor of `spec` as measure() does, then trace one step; returns a Trace.

    Each backend's trace_step calls it (engine/backends.py): the simulator in-process, CUDA in a
    worker process.
    """
    k = Knobs(spec["mode"], spec["n"], spec["work_us"], extra_tax_us=spec["extra_tax_us"],
              dynamic=spec["dynamic"], policy=spec["policy"], graph_input=spec.get("graph_input", "copy"))
    wl = ChainWorkload(k.n, k.work_us)
    ex = make_executor(k.mode, dev, wl, k.extra_tax_us, policy=k.policy, cache_size=spec.get("cache_size", 4))
    inputs = StepInputs(dev, wl, ex, k)
    ex.run(inputs.first())
    ex.run(inputs.next(1))  # warm calls, as measure() makes
    warm_x = inputs.next(2)
    dev.synchronize()
    x = inputs.next(3)
    with dev.trace(warmup=lambda: ex.run(warm_x)) as tr:
        ex.run(x)
    return tr

"""The executor each mode gets: `make_executor("eager" | "streams" | "graph", ...)`.

Apart from executors.py, because GraphExecutor (graph_executor.py) builds on the streams executor
there: a factory inside executors.py would import its own subclass back.
"""
from __future__ import annotations

from ..knobs import Mode
from .executors import EagerExecutor, Executor, StreamsExecutor
from .graph_executor import GraphExecutor
from .workload import ChainWorkload


def make_executor(mode: str, dev, workload: ChainWorkload, extra_tax_us: float = 0.0,
                  policy: str = "fallback", **graph_options) -> Executor:
    """Build the executor for `mode` ("eager", "streams", "graph")."""
    mode = Mode(mode)
    if mode == Mode.EAGER:
        return EagerExecutor(dev, workload, extra_tax_us)
    if mode == Mode.STREAMS:
        return StreamsExecutor(dev, workload, extra_tax_us)
    return GraphExecutor(dev, workload, extra_tax_us, policy=policy, **graph_options)

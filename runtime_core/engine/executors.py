"""The three dispatch modes of the widget, written once against the device interface.

    EagerExecutor    launch, then synchronize, for every kernel. This is *blocking* dispatch
                     (as with CUDA_LAUNCH_BLOCKING=1); PyTorch's own eager mode is asynchronous,
                     which is StreamsExecutor.
    StreamsExecutor  every launch asynchronous on one stream, one synchronize at the end.
    GraphExecutor    warm up, capture once, replay from then on (see graph_executor.py).

modes.py builds the one a mode names (make_executor).

`run(x)` performs one step on input buffer x, ends with the host synchronized, and returns
the output buffer. `last` is a StepInfo: which path the step took and whether a graph was valid.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..knobs import Mode
from .workload import ChainWorkload


class StepPath(StrEnum):
    """What one step did."""

    EAGER = "eager"                        # blocking dispatch
    STREAMS = "streams"                    # asynchronous dispatch
    FIRST_CALL = "first call (streams)"    # graph mode, before any capture: the real run
    REPLAY = "replay"                      # graph mode: one replay of a captured graph
    CAPTURE_REPLAY = "capture+replay"      # graph mode: capture for this shape, then replay
    FALLBACK = "fallback (guard miss)"     # graph mode: the shape missed; dispatched without it


@dataclass(frozen=True)
class StepInfo:
    """How the last step ran. `graph_valid` is False when a captured graph could not serve it."""

    path: StepPath
    graph_valid: bool = True

    @property
    def replayed(self) -> bool:
        return self.path in (StepPath.REPLAY, StepPath.CAPTURE_REPLAY)


class Executor:
    """Common parts: the workload, the device and the extra host tax paid before each launch."""

    mode = "base"

    def __init__(self, dev, workload: ChainWorkload, extra_tax_us: float = 0.0):
        self.dev = dev
        self.workload = workload
        self.extra_tax_us = extra_tax_us
        self.last: StepInfo | None = None

    def _spin(self) -> None:
        self.dev.host_spin(self.extra_tax_us)

    def run(self, x):
        raise NotImplementedError


class EagerExecutor(Executor):
    """Blocking dispatch: N × (launch, synchronize)."""

    mode = Mode.EAGER

    def run(self, x):
        self.dev.launch_chain_blocking(x, self.workload.n, self.extra_tax_us)
        self.last = StepInfo(StepPath.EAGER)
        return x


class StreamsExecutor(Executor):
    """Asynchronous dispatch on the current stream: N launches, then one synchronize."""

    mode = Mode.STREAMS

    def run(self, x):
        self.workload.launch(self.dev, x, spin_us=self.extra_tax_us)
        self.dev.synchronize()
        self.last = StepInfo(StepPath.STREAMS)
        return x

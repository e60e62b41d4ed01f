"""SimDevice: a simulated GPU that is a real peer of CudaDevice, on a virtual clock.

The host side is a clock that API calls advance (a launch costs `tax_us` of host time, a
synchronize waits for the GPU). The GPU side is `SimEngine`. Driver calls are counted by
counting this class's own API calls, so they are never assumed. Buffers hold real numbers
(numpy), so a replayed graph really reads its captured buffers: a stale input shows up as a
wrong answer here as it does on a GPU.

Nothing here imports the analytic model's formulas: the simulator simulates, the model
predicts. They share only the names of the machine's costs (runtime_core.constants).
"""
from __future__ import annotations

import contextlib
import itertools
import time
from collections import Counter
import dataclasses
from dataclasses import dataclass

import numpy as np

from ..constants import Constants
from ..errors import UsageError
from .device import Trace
from ..result import Span
from .sim_engine import SimEngine, SimOp, SimStream


# The simulated machine's own costs come in the model's Constants type (one set of names for
# both), with the graph step's static-input copy switched on: GraphExecutor always copies in.
SIM_MACHINE = Constants(static_copy=True, source="SimDevice parameters")


@dataclass(frozen=True)
class SimParams:
    """Physical constants of the simulated machine, µs unless named otherwise.

    Args:
        tax_us: host cost of one kernel launch call (seed §6 default: 6).
        machine: the named costs shared with the model (sync_us, graph_launch_us, node_gap_us,
            kernel_floor_us, ...); see runtime_core.constants.Constants.
        queue_depth: launches a stream holds before an enqueue blocks the host (CUDA: 1024).
        elems_per_us: elements a chain kernel processes per µs; sets kernel time from size.
        capture_us_per_node: host cost of recording and instantiating one graph node.
    """

    tax_us: float = 6.0
    machine: Constants = SIM_MACHINE
    queue_depth: int = 1024
    elems_per_us: float = 1000.0
    capture_us_per_node: float = 1.0

    @classmethod
    def of(cls, **params) -> "SimParams":
        """SimParams from flat keywords: Constants fields (sync_us=...) go into `machine`."""
        consts = {k: params.pop(k) for k in list(params) if k in Constants.__dataclass_fields__}
        unknown = set(params) - set(cls.__dataclass_fields__)
        if unknown:
            raise UsageError(f"unknown simulator parameter(s): {', '.join(sorted(unknown))}")
        machine = dataclasses.replace(params.pop("machine", SIM_MACHINE), **consts)
        return cls(machine=machine, **params)


class SimBuffer:
    """A device buffer of float32 values with a stable fake address."""

    _addresses = itertools.count(0x7F0000000000, 1 << 21)

    def __init__(self, numel: int):
        self.data = np.zeros(numel, dtype=np.float32)
        self.address = next(SimBuffer._addresses)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def numel(self) -> int:
        return int(self.data.size)


class _Recording:
    """One record() of an event: done when its marker finishes. A wait binds to one recording,
    as cudaStreamWaitEvent waits for the work captured by the most recent record at call time."""

    def __init__(self):
        self.done_at: float | None = None

    def complete(self, t: float) -> None:
        self.done_at = t

    def done_by(self, t: float) -> bool:
        return self.done_at is not None and self.done_at <= t


class SimEvent:
    """An event: completes when the marker of its latest record() finishes on its stream."""

    def __init__(self, dev: "SimDevice"):
        self._dev = dev
        self._latest: _Recording | None = None  # never recorded: complete, as in CUDA

    def record(self, stream: SimStream | None = None) -> None:
        self._latest = rec = _Recording()
        self._dev._enqueue(stream or self._dev.current_stream(), "marker", "event", 0.0, None,
                           on_done=rec.complete, api="cudaEventRecord", host_cost=0.0)

    def done_by(self, t: float) -> bool:
        return self._latest is None or self._latest.done_by(t)

    def query(self) -> bool:
        self._dev.engine.run_until(self._dev.host_us)
        return self.done_by(self._dev.host_us)

    def wait(self, stream: SimStream | None = None) -> None:
        """Make `stream` wait for this event (cudaStreamWaitEvent): no host blocking."""
        waits = [self._latest] if self._latest is not None else []
        self._dev._enqueue(stream or self._dev.current_stream(), "marker", "wait", 0.0, None,
                           waits=waits, api="cudaStreamWaitEvent", host_cost=0.0)


class SimGraph:
    """A recorded list of nodes; replay submits them all with one call."""

    def __init__(self, dev: "SimDevice", nodes: list):
        self._dev, self.nodes = dev, nodes

    def replay(self) -> None:
        self._dev._replay(self)


class SimDevice:
    """The simulated GPU. See SimParams for its constants."""

    backend = "sim"

    def __init__(self, params: SimParams | None = None):
        self.params = params or SimParams()
        self.name = "SimDevice (simulated)"
        self.engine = SimEngine()
        self.host_us = 0.0
        self.counts: Counter = Counter()
        self.host_spans: list[Span] = []
        self._default = self.engine.new_stream()
        self._current = self._default
        self._capture: list | None = None
        self._allocated_elems = 0

    # ---- clocks -------------------------------------------------------------------------
    def host_now_us(self) -> float:
        return self.host_us

    def host_spin(self, us: float) -> None:
        """Spend `us` of host time (the extra tax knob)."""
        if us > 0:
            self._host_span("spin", "extra host tax", us)

    def _host_span(self, kind: str, name: str, dur: float) -> None:
        self.host_spans.append(Span("cpu", kind, name, self.host_us, self.host_us + dur))
        self.host_us += dur

    # ---- buffers ------------------------------------------------------------------------
    def new_buffer(self, numel: int) -> SimBuffer:
        self.counts["cudaMalloc"] += 1
        self._allocated_elems += int(numel)
        return SimBuffer(int(numel))

    def reserved_bytes(self) -> int:
        """Bytes of every buffer this device has handed out (float32)."""
        return 4 * self._allocated_elems

    def numel_for_work(self, work_us: float) -> int:
        return max(1, int(round(work_us * self.params.elems_per_us)))

    def kernel_us(self, numel: int) -> float:
        return max(self.params.machine.kernel_floor_us, numel / self.params.elems_per_us)

    def chain_busy_us(self, n: int, numel: int) -> float:
        """GPU busy time of a chain of n kernels over `numel` elements, µs."""
        return n * self.kernel_us(numel)

    def intrinsic_tax_us(self) -> float:
        """Host cost of one launch on this device (a parameter here, measured on CUDA)."""
        return self.params.tax_us

    def read(self, buf: SimBuffer) -> list[float]:
        self.synchronize()
        return buf.data.tolist()

    def view_prefix(self, buf: SimBuffer, numel: int) -> SimBuffer:
        """The first `numel` elements of buf, sharing its memory and address."""
        view = SimBuffer.__new__(SimBuffer)
        view.data, view.address = buf.data[:numel], buf.address
        return view

    def fill(self, buf: SimBuffer, value: float) -> None:
        buf.data[:] = value

    # ---- streams and events -------------------------------------------------------------
    def new_stream(self) -> SimStream:
        return self.engine.new_stream()

    def current_stream(self) -> SimStream:
        return self._current

    @contextlib.contextmanager
    def use_stream(self, stream: SimStream):
        prev, self._current = self._current, stream
        try:
            yield stream
        finally:
            self._current = prev

    def new_event(self) -> SimEvent:
        return SimEvent(self)

    def wait_stream(self, waiter: SimStream, producer: SimStream) -> None:
        """Make `waiter` wait for everything enqueued on `producer` so far (no host blocking)."""
        ev = SimEvent(self)
        ev.record(producer)
        ev.wait(waiter)

    def synchronize(self) -> None:
        """Block the host until every stream is idle, then pay `sync_us`."""
        self.counts["cudaDeviceSynchronize"] += 1
        start = self.host_us
        self.engine.run_until(self.host_us)
        idle_at = self.engine.run_while(lambda: not self.engine.all_idle())
        self.host_us = max(self.host_us, idle_at) + self.params.machine.sync_us
        self.host_spans.append(Span("cpu", "sync", "cudaDeviceSynchronize", start, self.host_us))

    # ---- kernels and copies -------------------------------------------------------------
    def launch_chain_kernel(self, buf: SimBuffer) -> None:
        """One kernel: buf += 1. Costs `tax_us` of host time and kernel_us(numel) of GPU time."""
        def effect(b=buf):
            b.data += 1.0
        self._enqueue(self._current, "kernel", "chain_add", self.kernel_us(buf.numel), effect,
                      api="cudaLaunchKernel", host_cost=self.params.tax_us)

    def copy(self, dst: SimBuffer, src: SimBuffer) -> None:
        """dst[:src.numel] = src: a cudaMemcpyAsync, counted as a copy call."""
        if dst.numel < src.numel:
            raise ValueError(f"copy of {src.numel} elements into a buffer of {dst.numel}")
        def effect(d=dst, s=src):
            d.data[: s.numel] = s.data
        # A device copy reads and writes the same bytes as one chain kernel, and costs a launch.
        self._enqueue(self._current, "copy", "memcpy DtoD", self.kernel_us(src.numel), effect,
                      api="cudaMemcpyAsync", host_cost=self.params.tax_us)

    def _enqueue(self, stream, kind, name, dur, effect, *, api, host_cost, waits=None, on_done=None):
        if self._capture is not None and kind in ("kernel", "copy"):
            self.counts[api] += 1  # the host still makes the call; capture records it instead
            self._host_span("launch", f"{api} (capture)", host_cost)
            self._capture.append((kind, name, dur, effect))
            return
        self.counts[api] += 1
        self._wait_for_queue_slot(stream)
        if host_cost:
            self._host_span("launch" if kind == "kernel" else kind, api, host_cost)
        op = SimOp(kind, name, dur, ready_us=self.host_us, effect=effect, waits=waits or [],
                   on_done=on_done)
        self.engine.run_until(self.host_us)
        self.engine.submit(stream, op)
        self.engine.run_until(self.host_us)

    def _wait_for_queue_slot(self, stream: SimStream) -> None:
        self.engine.run_until(self.host_us)
        if stream.pending < self.params.queue_depth:
            return
        start = self.host_us
        t = self.engine.run_while(lambda: stream.pending >= self.params.queue_depth)
        self.host_us = max(self.host_us, t)
        self.host_spans.append(Span("cpu", "blocked", "launch queue full", start, self.host_us))

    # ---- graphs -------------------------------------------------------------------------
    def new_pool(self):
        return object()  # the simulator keeps captured buffers alive by reference

    def capture(self, fn, pool=None, stream=None) -> SimGraph:
        """Record the launches `fn` makes on `stream` (a fresh side stream if None), without
        running them; return a replayable graph."""
        self._capture = []
        try:
            with self.use_stream(stream if stream is not None else self.new_stream()):
                fn()
            nodes = self._capture
        finally:
            self._capture = None
        self.counts["cudaStreamBeginCapture"] += 1
        self._host_span("capture", "instantiate graph", self.params.capture_us_per_node * len(nodes))
        return SimGraph(self, nodes)

    def _replay(self, graph: SimGraph) -> None:
        p, m = self.params, self.params.machine
        cost = p.tax_us if m.graph_launch_us is None else m.graph_launch_us
        self.counts["cudaGraphLaunch"] += 1
        self._wait_for_queue_slot(self._current)
        self._host_span("graph", "cudaGraphLaunch", cost)
        op = SimOp("graph", "graph replay", 0.0, ready_us=self.host_us, nodes=graph.nodes,
                   node_gap_us=m.node_gap_us)
        self.engine.run_until(self.host_us)
        self.engine.submit(self._current, op)
        self.engine.run_until(self.host_us)

    # ---- tracing ------------------------------------------------------------------------
    def trace_step(self, spec: dict) -> Trace:
        """Trace one step of `spec` (see measure.traced_run); the simulator does it in-process."""
        from .measure import traced_run
        return traced_run(self, spec)

    @contextlib.contextmanager
    def trace(self, warmup=None):
        """Collect spans and API-call counts of the enclosed region, times from its start."""
        if warmup is not None:
            warmup()
        self.synchronize()
        t0, h0, g0 = self.host_us, len(self.host_spans), len(self.engine.gpu_spans)
        c0 = Counter(self.counts)
        tr = Trace()
        wall0 = time.perf_counter()
        yield tr
        h1 = len(self.host_spans)
        counts = Counter(self.counts)
        self.synchronize()  # lets queued GPU work run, so its spans exist; not part of the region
        tr.spans = [Span(s.lane, s.kind, s.name, s.start_us - t0, s.end_us - t0)
                    for s in self.host_spans[h0:h1]]
        tr.spans += [Span("gpu", kind, name, a - t0, b - t0)
                     for (_, kind, name, a, b) in self.engine.gpu_spans[g0:]]
        tr.counts = {k: v - c0.get(k, 0) for k, v in counts.items() if v - c0.get(k, 0)}
        tr.host_seconds = time.perf_counter() - wall0

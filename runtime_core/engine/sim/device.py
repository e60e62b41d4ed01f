"""SimDevice: a simulated GPU that is a real peer of CudaDevice, on a virtual clock.

The host side is a clock that API calls advance; the GPU side is `SimEngine`. Driver calls are
counted by counting this class's own API calls, so they are never assumed. Buffers hold real
numbers (numpy), so a replayed graph really reads its captured buffers: a stale input shows up
as a wrong answer here as it does on a GPU. Every op also goes through the RaceDetector.

The rules, with the names of runtime_core.constants.Constants (µs):
    launch        the host pays the tax t; the kernel may start when the call returns
    kernel        runs max(work, kernel_floor); a launched kernel starts no sooner than
                  stream_gap after the previous kernel of its stream ended
    synchronize   returns sync after the GPU went idle, and never sooner than eager_floor
                  after the latest launch began (a launch+sync round trip has a floor)
    graph replay  the host pays graph_launch, plus graph_launch_per_node for each node past the
                  first (and graph_upload, likewise per node, on a graph's first replay);
                  the first node may start fixed (L) after the call returns; nodes run
                  node_gap apart
    copies        a device copy moves one chain kernel's bytes; uploads take their measured
                  time per MiB, and from pageable memory the host waits for them

Nothing here imports the analytic model's formulas: the simulator simulates, the model
predicts. They share only the names of the machine's costs (runtime_core.constants).
"""
from __future__ import annotations

import contextlib
import dataclasses
import weakref
from collections import Counter

from ...constants import Constants
from ...errors import CaptureError
from ...knobs import Backend
from ...result import Span
from ..device import Device, Trace
from ..race_detector import RaceDetector
from .events import SimEngine, SimOp, SimStream
from .objects import SimBuffer, SimEvent, SimGraph, SimHostBuffer
from .params import SimParams

MiB = 1 << 20


class SimDevice(Device):
    """The simulated GPU. See SimParams for its constants and the module docstring for its rules."""

    backend = Backend.SIM
    source_label = "simulated"
    deterministic = True
    torch_device = "cpu"

    def __init__(self, params: SimParams | None = None, raise_on_race: bool = True,
                 constants: Constants | None = None):
        """Args:
            params: the simulated machine (SimParams; default: every named cost zero).
            raise_on_race: raise RaceError at the first data race (else collect them).
            constants: the machine's named costs (sync_us, graph_launch_us, ...), replacing
                params.machine. Whoever builds the device chooses them; the simulator reads no
                recording (recordings/shipped.py hands out the shipped H200's).
        """
        params = params or SimParams()
        self.params = params if constants is None else dataclasses.replace(params, machine=constants)
        self.name = "SimDevice (simulated)"
        self.engine = SimEngine(stream_gap_us=self.params.machine.stream_gap_us)
        self.races = RaceDetector(raise_on_race)
        self.host_us = 0.0
        self.counts: Counter = Counter()
        self.host_spans: list[Span] = []
        self._default = self.engine.new_stream()
        self._current = self._default
        self._capture: list | None = None
        self._allocated_bytes = 0
        self._reserved_bytes = 0
        self._last_launch_us: float | None = None  # host time the latest launch call began
        self._tax_us: float | None = None

    # ---- the host ---------------------------------------------------------------------------
    def host_now_us(self) -> float:
        return self.host_us

    def host_spin(self, us: float, name: str = "extra host tax") -> None:
        """Spend `us` of host time (the extra tax knob, or a priced host call named `name`)."""
        if us > 0:
            self._host_span("spin", name, us)

    def _host_span(self, kind: str, name: str, dur: float) -> None:
        self.host_spans.append(Span("cpu", kind, name, self.host_us, self.host_us + dur))
        self.host_us += dur

    def measure_tax(self) -> float:
        """Host µs per launch over a batch of 200 launches, on the virtual clock (= tax_us)."""
        x = self.new_buffer(1)
        self.synchronize()
        t0 = self.host_us
        for _ in range(200):
            self.launch_chain_kernel(x)
        self._tax_us = (self.host_us - t0) / 200
        self.synchronize()
        return self._tax_us

    def intrinsic_tax_us(self) -> float:
        return self._tax_us if self._tax_us is not None else self.measure_tax()

    # ---- buffers ------------------------------------------------------------------------
    def new_buffer(self, numel: int) -> SimBuffer:
        buf = SimBuffer(int(numel))
        nbytes = 4 * int(numel)
        self._allocated_bytes += nbytes
        self._reserved_bytes = max(self._reserved_bytes, self._allocated_bytes)  # a cache keeps its peak
        weakref.finalize(buf, self._release, nbytes)
        return buf

    def _release(self, nbytes: int) -> None:
        self._allocated_bytes -= nbytes

    def reserved_bytes(self) -> int:
        return self._reserved_bytes

    def allocated_bytes(self) -> int:
        return self._allocated_bytes

    def numel_for_work(self, work_us: float) -> int:
        return max(1, int(round(work_us * self.params.elems_per_us)))

    def kernel_us(self, numel: int) -> float:
        return max(self.params.machine.kernel_floor_us, numel / self.params.elems_per_us)

    def chain_busy_us(self, n: int, numel: int) -> float:
        """GPU time of n chain kernels back to back in a graph: n·w + (n−1)·node gap."""
        return n * self.kernel_us(numel) + (n - 1) * self.params.machine.node_gap_us

    def read(self, buf: SimBuffer) -> list[float]:
        self.synchronize()
        return buf.data.tolist()

    def item(self, buf: SimBuffer) -> float:
        seen = {}

        def effect(b=buf):
            seen["v"] = float(b.data[0])
        stream = self._current
        self._enqueue(stream, "copy", "memcpy DtoH (item)", self.kernel_us(1), effect,
                      api="cudaMemcpyAsync", host_cost=self.params.tax_us, reads=(buf.address,))
        self._wait_for(stream, "cudaStreamSynchronize")
        return seen["v"]

    def view_prefix(self, buf: SimBuffer, numel: int) -> SimBuffer:
        return SimBuffer.view_of(buf.data[:numel], buf.address)

    def fill(self, buf: SimBuffer, value: float) -> None:
        def effect(b=buf, v=value):
            b.data[:] = v
        self._enqueue(self._current, "kernel", "fill", self.kernel_us(buf.numel), effect,
                      api="cudaLaunchKernel", host_cost=self.params.tax_us, writes=(buf.address,))

    def new_host_buffer(self, numel: int, pinned: bool) -> SimHostBuffer:
        return SimHostBuffer(int(numel), pinned)

    def copy_from_host(self, dst: SimBuffer, src: SimHostBuffer) -> None:
        """Pinned: an async DMA on the current stream. Pageable: the host stages the bytes and
        returns only when the copy is done."""
        if dst.numel < src.numel:
            raise ValueError(f"upload of {src.numel} elements into a buffer of {dst.numel}")
        mib = 4 * src.numel / MiB
        per = self.params.h2d_pinned_us_per_mib if src.pinned else self.params.h2d_pageable_us_per_mib

        def effect(d=dst, s=src):
            d.data[: s.numel] = s.data
        stream = self._current
        self._enqueue(stream, "copy", "memcpy HtoD", mib * per, effect, api="cudaMemcpyAsync",
                      host_cost=self.params.tax_us, writes=(dst.address,))
        if not src.pinned:
            self._wait_for(stream, None, span=("blocked", "pageable HtoD copy (host staging)"))

    # ---- streams, events, sync ------------------------------------------------------------
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
        ev = SimEvent(self)
        ev.record(producer)
        ev.wait(waiter)

    def synchronize(self) -> None:
        """Block the host until every stream is idle; return after the sync round trip s, and
        never sooner than the eager floor f after the latest launch began."""
        if self._capture is not None:  # as CUDA does: a sync can't be recorded into a graph
            raise CaptureError("capture failed: synchronize inside a CUDA graph capture (operation not "
                               "permitted when stream is capturing); the capture was abandoned")
        self.counts["cudaDeviceSynchronize"] += 1
        start = self.host_us
        self.engine.run_until(self.host_us)
        idle_at = self.engine.run_while(lambda: not self.engine.all_idle())
        self.host_us = self._after_sync(idle_at)
        self.races.host_waited_for_all()
        self.host_spans.append(Span("cpu", "sync", "cudaDeviceSynchronize", start, self.host_us))

    def _after_sync(self, idle_at: float) -> float:
        m = self.params.machine
        done = max(self.host_us, idle_at) + m.sync_us
        if self._last_launch_us is not None:
            done = max(done, self._last_launch_us + m.eager_floor_us)
            self._last_launch_us = None
        return done

    def _wait_for(self, stream: SimStream, api: str | None, span=("sync", "cudaStreamSynchronize")) -> None:
        """The host waits until `stream` is idle (a stream sync, a pageable copy, item())."""
        if api:
            self.counts[api] += 1
        start = self.host_us
        self.engine.run_until(self.host_us)
        idle_at = self.engine.run_while(lambda: not stream.idle)
        self.host_us = self._after_sync(idle_at) if api else max(self.host_us, idle_at)
        self.races.host_waited_for(self.races.clock_of(stream.sid))
        self.host_spans.append(Span("cpu", span[0], span[1], start, self.host_us))

    # ---- kernels and copies -------------------------------------------------------------
    def launch_chain_kernel(self, buf: SimBuffer) -> None:
        """One kernel: buf += 1. Costs `tax_us` of host time and kernel_us(numel) of GPU time."""
        def effect(b=buf):
            b.data += 1.0
        self._enqueue(self._current, "kernel", "chain_add", self.kernel_us(buf.numel), effect,
                      api="cudaLaunchKernel", host_cost=self.params.tax_us,
                      reads=(buf.address,), writes=(buf.address,))

    def launch_busy_kernel(self, us: float) -> None:
        self._enqueue(self._current, "kernel", "busy", max(us, self.params.machine.kernel_floor_us), None,
                      api="cudaLaunchKernel", host_cost=self.params.tax_us)

    def copy(self, dst: SimBuffer, src: SimBuffer) -> None:
        """dst[:src.numel] = src: a cudaMemcpyAsync, counted as a copy call."""
        if dst.numel < src.numel:
            raise ValueError(f"copy of {src.numel} elements into a buffer of {dst.numel}")

        def effect(d=dst, s=src):
            d.data[: s.numel] = s.data
        # A device copy reads and writes the same bytes as one chain kernel, and costs a launch.
        self._enqueue(self._current, "copy", "memcpy DtoD", self.kernel_us(src.numel), effect,
                      api="cudaMemcpyAsync", host_cost=self.params.tax_us,
                      reads=(src.address,), writes=(dst.address,))

    def copy_broadcast(self, dst: SimBuffer, src: SimBuffer) -> None:
        """dst = src broadcast to dst's shape (torch's copy_ rules). Equal shapes: a cudaMemcpyAsync;
        a broadcast: an elementwise kernel over dst. Raises RuntimeError, as torch does, when
        the shapes do not broadcast."""
        _check_broadcast(dst, src)
        if dst.shape == src.shape:
            self.copy(dst, src)
            return

        def effect(d=dst, s=src):
            d.data[...] = s.data
        self._enqueue(self._current, "kernel", "broadcast copy", self.kernel_us(dst.numel), effect,
                      api="cudaLaunchKernel", host_cost=self.params.tax_us,
                      reads=(src.address,), writes=(dst.address,))

    def add(self, dst: SimBuffer, src: SimBuffer) -> None:
        """dst += src (src broadcasts): one elementwise kernel."""
        _check_broadcast(dst, src)

        def effect(d=dst, s=src):
            d.data += s.data
        self._enqueue(self._current, "kernel", "add", self.kernel_us(dst.numel), effect,
                      api="cudaLaunchKernel", host_cost=self.params.tax_us,
                      reads=(dst.address, src.address), writes=(dst.address,))

    def reduce_sum(self, dst: SimBuffer, src: SimBuffer) -> None:
        """dst[0] = sum(src): one reduction kernel that reads all of src."""
        def effect(d=dst, s=src):
            d.data[0] = s.data.sum(dtype=d.data.dtype)
        self._enqueue(self._current, "kernel", "reduce sum", self.kernel_us(src.numel), effect,
                      api="cudaLaunchKernel", host_cost=self.params.tax_us,
                      reads=(src.address,), writes=(dst.address,))

    # ---- correctness ----------------------------------------------------------------------
    def races_seen(self, fn) -> list[str]:
        """Run `fn()` with the race detector collecting instead of raising (the program runs on
        as a GPU would, so its wrong values can be read); return the races `fn` caused."""
        before, was = len(self.races.found), self.races.raise_on_race
        self.races.raise_on_race = False
        try:
            fn()
        finally:
            self.races.raise_on_race = was
        return list(self.races.found[before:])

    def _enqueue(self, stream, kind, name, dur, effect, *, api, host_cost, waits=None, on_done=None,
                 reads=(), writes=()):
        if self._capture is not None and kind in ("kernel", "copy"):
            self.counts[api] += 1  # the host still makes the call; capture records it instead
            self._host_span("launch", f"{api} (capture)", host_cost)
            self._capture.append((kind, name, dur, effect, tuple(reads), tuple(writes)))
            return
        self.counts[api] += 1
        self._wait_for_queue_slot(stream)
        if kind == "kernel":
            self._last_launch_us = self.host_us
        if host_cost:
            self._host_span("launch" if kind == "kernel" else kind, api, host_cost)
        if reads or writes:
            self.races.op(stream.sid, name, reads, writes)
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
        """One cudaGraphLaunch: host cost g (plus the upload on a first replay); the graph's
        first node may start L (fixed_us) after the call returns."""
        p, m = self.params, self.params.machine
        extra_nodes = max(0, len(graph.nodes) - 1)
        cost = p.tax_us if m.graph_launch_us is None else m.graph_launch_us + extra_nodes * m.graph_launch_per_node_us
        if not graph.uploaded:
            cost += m.graph_upload_us + extra_nodes * m.graph_upload_per_node_us
            graph.uploaded = True
        self.counts["cudaGraphLaunch"] += 1
        stream = self._current
        self._wait_for_queue_slot(stream)
        self._last_launch_us = self.host_us
        self._host_span("graph", "cudaGraphLaunch", cost)
        reads = {r for node in graph.nodes for r in node[4]}
        writes = {w for node in graph.nodes for w in node[5]}
        self.races.op(stream.sid, "graph replay", reads, writes)
        op = SimOp("graph", "graph replay", 0.0, ready_us=self.host_us + m.fixed_us, nodes=graph.nodes,
                   node_gap_us=m.node_gap_us)
        self.engine.run_until(self.host_us)
        self.engine.submit(stream, op)
        self.engine.run_until(self.host_us)

    # ---- tracing ------------------------------------------------------------------------
    @contextlib.contextmanager
    def trace(self, warmup=None):
        """Collect spans and API-call counts of the enclosed region, times from its start."""
        if warmup is not None:
            warmup()
        self.synchronize()
        t0, h0, g0 = self.host_us, len(self.host_spans), len(self.engine.gpu_spans)
        c0 = Counter(self.counts)
        tr = Trace()
        yield tr
        h1 = len(self.host_spans)
        counts = Counter(self.counts)
        self.synchronize()  # lets queued GPU work run, so its spans exist; not part of the region
        tr.spans = [Span(s.lane, s.kind, s.name, s.start_us - t0, s.end_us - t0)
                    for s in self.host_spans[h0:h1]]
        tr.spans += [Span("gpu", kind, name, a - t0, b - t0)
                     for (_, kind, name, a, b) in self.engine.gpu_spans[g0:]]
        tr.counts = {k: v - c0.get(k, 0) for k, v in counts.items() if v - c0.get(k, 0)}
        tr.host_free_us = max((s.end_us for s in tr.spans if s.lane == "cpu" and s.kind in _DISPATCH),
                              default=0.0)

    # ---- what the device is --------------------------------------------------------------
    def known_constants(self) -> Constants:
        return self.params.machine


def _check_broadcast(dst: SimBuffer, src: SimBuffer) -> None:
    """Raise RuntimeError, with torch's wording, unless src's shape broadcasts to dst's."""
    a, b = tuple(dst.shape), tuple(src.shape)
    if len(b) > len(a):
        raise RuntimeError(f"output with shape {list(a)} doesn't match the broadcast shape {list(b)}")
    for i in range(1, len(b) + 1):
        if b[-i] not in (1, a[-i]):
            dim = len(a) - i
            raise RuntimeError(f"The size of tensor a ({a[-i]}) must match the size of tensor b "
                               f"({b[-i]}) at non-singleton dimension {dim}")


# Host spans that are the host dispatching work (not waiting for it): host_free_us ends there.
_DISPATCH = ("launch", "graph", "blocked", "copy", "spin")

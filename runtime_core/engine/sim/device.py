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
from collections import Counter, deque
from functools import partial

from ...constants import Constants
from ...errors import CaptureError
from ...knobs import Backend
from ...result import Span
from ..device import Device, Trace
from ..race_detector import RaceDetector
from .events import ChainAdd, SimEngine, SimOp, SimStream, run_effects
from .objects import SimBuffer, SimEvent, SimGraph, SimHostBuffer
from .params import SimParams

MiB = 1 << 20


class SimDevice(Device):
    """The simulated GPU. See SimParams for its constants and the module docstring for its rules."""

    backend = Backend.SIM
    source_label = "simulated"
    deterministic = True
    torch_device = "cpu"
    bulk = True  # runs of identical chain kernels and graph replays in bulk (same results; False: one by one)

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
        self.launch_chain(x, 200)
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
        self._enqueue(self._current, "kernel", "chain_add", self.kernel_us(buf.numel), ChainAdd(buf),
                      api="cudaLaunchKernel", host_cost=self.params.tax_us,
                      reads=(buf.address,), writes=(buf.address,))

    # ---- runs of chain kernels, in bulk ---------------------------------------------------
    # What N calls of launch_chain_kernel (with host_spin before each, and for blocking dispatch
    # a synchronize after each) would do, computed without simulating each call: the same host
    # spans, GPU spans, counts, race bookkeeping, buffer values and stream state, bit for bit
    # (tests/test_sim_bulk.py compares the two). Where the run's start has other GPU work in
    # flight (another stream busy, an event wait queued), the calls run one by one until it
    # has drained. With `bulk` False every call is simulated.
    def launch_chain(self, buf: SimBuffer, n: int, spin_us: float = 0.0) -> None:
        """n × (host_spin(spin_us), launch_chain_kernel(buf)): asynchronous launches."""
        i = 0
        if self.bulk and self._capture is not None and spin_us <= 0 and n > 0:
            self._record_chain(buf, n)
            return
        while i < n:
            if self.bulk and self._capture is None and self._bulk_async_ready():
                self._bulk_async(buf, n - i, spin_us)
                return
            self.host_spin(spin_us)
            self.launch_chain_kernel(buf)
            i += 1

    def launch_chain_blocking(self, buf: SimBuffer, n: int, spin_us: float = 0.0) -> None:
        """n × (host_spin(spin_us), launch_chain_kernel(buf), synchronize()): blocking dispatch."""
        i = 0
        while i < n:
            if i > 1 and self.bulk and self._capture is None and self._bulk_blocking_ready(buf):
                self._bulk_blocking(buf, n - i, spin_us)
                return
            self.host_spin(spin_us)
            self.launch_chain_kernel(buf)
            self.synchronize()
            i += 1

    def _record_chain(self, buf: SimBuffer, n: int) -> None:
        """n chain launches inside a capture: recorded, not run (one shared node tuple)."""
        api, cost = "cudaLaunchKernel", self.params.tax_us
        node = ("kernel", "chain_add", self.kernel_us(buf.numel), ChainAdd(buf), (buf.address,), (buf.address,))
        self.counts[api] += n
        spans, h, name = self.host_spans, self.host_us, f"{api} (capture)"
        for _ in range(n):
            spans.append(Span("cpu", "launch", name, h, h + cost))
            h += cost
        self.host_us = h
        self._capture.extend([node] * n)

    def _others_idle(self, stream) -> bool:
        for s in self.engine.streams:
            if s is not stream and (s.running is not None or s.queue):
                return False
        return True

    def _bulk_async_ready(self) -> bool:
        """The current stream holds only plain kernels (queued or running) and every other
        stream is idle: its next launches depend on nothing but each other."""
        self.engine.run_until(self.host_us)
        stream, eng = self._current, self.engine
        if eng.stream_gap_us < 0 or eng.now_us > self.host_us or self.params.queue_depth < 1:
            return False
        r = stream.running
        if r is not None and (r.kind != "kernel" or r.on_done is not None or r.waits or r.end_us is None):
            return False
        for op in stream.queue:
            if op.kind != "kernel" or op.waits or op.on_done is not None:
                return False
        return self._others_idle(stream)

    def _bulk_async(self, buf: SimBuffer, n: int, spin: float) -> None:
        """n more asynchronous chain launches on the current stream (see _bulk_async_ready):
        one stream's FIFO on the virtual clock, as SimEngine runs it. An op starts at
        max(its ready time, the previous kernel's end + stream gap) and the host blocks while
        queue_depth launches are pending."""
        eng, stream, sid = self.engine, self._current, self._current.sid
        tax, depth, gap = self.params.tax_us, self.params.queue_depth, eng.stream_gap_us
        dur = self.kernel_us(buf.numel)
        # The first launch as usual (it may find a race), the rest in bulk.
        self.host_spin(spin)
        self.launch_chain_kernel(buf)
        n -= 1
        eng.run_until(self.host_us)
        running = stream.running
        old = list(stream.queue)  # plain kernels already queued, the first one just launched among them
        last_end = running.end_us if running is not None else stream.last_kernel_end
        ready, durs, starts, ends = [], [], [], []
        for op in old:
            s0 = op.ready_us if last_end is None else max(op.ready_us, last_end + gap)
            ready.append(op.ready_us), durs.append(op.dur_us), starts.append(s0), ends.append(s0 + op.dur_us)
            last_end = s0 + op.dur_us
        h, spans, p = self.host_us, self.host_spans, 0
        launch_h = self._last_launch_us
        for _ in range(n):
            if spin > 0:
                spans.append(Span("cpu", "spin", "extra host tax", h, h + spin))
                h += spin
            total = len(starts)
            while p < total and starts[p] <= h:
                p += 1
            if total - p >= depth:  # the launch queue is full: wait until its head starts
                t = starts[p]
                t1 = max(h, t)
                spans.append(Span("cpu", "blocked", "launch queue full", h, t1))
                h = t1
                while p < total and starts[p] <= h:
                    p += 1
            launch_h = h
            if tax:
                spans.append(Span("cpu", "launch", "cudaLaunchKernel", h, h + tax))
                h += tax
            s0 = h if last_end is None else max(h, last_end + gap)
            ready.append(h), durs.append(dur), starts.append(s0), ends.append(s0 + dur)
            last_end = s0 + dur
        self.host_us, self._last_launch_us = h, launch_h
        self.counts["cudaLaunchKernel"] += n
        self.races.same_op_again(sid, "chain_add", buf.address, n)
        # Where the stream stands at host time h: ops started by then ran (their effects, spans).
        total = len(starts)
        while p < total and starts[p] <= h:
            p += 1
        k_old = len(old)
        effects = [op.effect for op in old[:p]] + [ChainAdd(buf)] * max(0, p - k_old)
        run_effects(effects)
        gpu = eng.gpu_spans
        for j in range(p):
            name = old[j].name if j < k_old else "chain_add"
            gpu.append((sid, "kernel", name, starts[j], starts[j] + durs[j]))
            if j < k_old:
                old[j].start_us, old[j].end_us = starts[j], ends[j]
        # The heap: this stream's pending events are replaced by the one that is pending now.
        eng.drop_events(stream)
        prev_end = stream.last_kernel_end if running is None else running.end_us
        if running is not None and running.end_us > h:
            stream.running = running if p == 0 else None
        elif running is not None:
            stream.running = None
        if p > 0:
            q = p - 1
            prev_end = ends[q - 1] if q > 0 else prev_end
            if ends[q] > h:  # the last op started is still running
                op = old[q] if q < k_old else SimOp("kernel", "chain_add", dur, ready_us=ready[q],
                                                      effect=ChainAdd(buf), start_us=starts[q], end_us=ends[q])
                stream.running = op
                stream.last_kernel_end = prev_end
            else:
                stream.running = None
                stream.last_kernel_end = ends[q]
        elif running is not None and running.end_us <= h:
            stream.last_kernel_end = running.end_us
        queue = deque(old[p:]) if p < k_old else deque()
        for j in range(max(p, k_old), total):
            queue.append(SimOp("kernel", "chain_add", dur, ready_us=ready[j], effect=ChainAdd(buf)))
        stream.queue.clear()
        stream.queue.extend(queue)
        if stream.running is not None:
            eng.at(stream.running.end_us, partial(eng._finish, stream, stream.running))
        elif queue:
            eng.at(starts[p], partial(eng._try_start, stream))
        eng.now_us = max(eng.now_us, h)

    def _bulk_blocking_ready(self, buf: SimBuffer) -> bool:
        """Every stream is idle (a synchronize just returned) and the race detector is in the
        state a run of launch+synchronize pairs keeps it in."""
        eng = self.engine
        eng.run_until(self.host_us)
        if eng.stream_gap_us < 0 or eng.now_us > self.host_us or not eng.all_idle():
            return False
        if self._last_launch_us is not None:
            return False
        return self.races.steady_blocking(self._current.sid, buf.address)

    def _bulk_blocking(self, buf: SimBuffer, n: int, spin: float) -> None:
        """n more launch+synchronize pairs on the current stream, every stream idle at the start:
        each kernel starts at max(its ready time, the previous kernel's end + stream gap); each
        synchronize returns sync after it ends, and no sooner than eager_floor after the launch."""
        eng, stream, m = self.engine, self._current, self.params.machine
        tax, gap, dur = self.params.tax_us, eng.stream_gap_us, self.kernel_us(buf.numel)
        sync_us, floor = m.sync_us, m.eager_floor_us
        h, spans, gpu, sid = self.host_us, self.host_spans, eng.gpu_spans, stream.sid
        last_end = stream.last_kernel_end
        for _ in range(n):
            if spin > 0:
                spans.append(Span("cpu", "spin", "extra host tax", h, h + spin))
                h += spin
            launch_h = h
            if tax:
                spans.append(Span("cpu", "launch", "cudaLaunchKernel", h, h + tax))
                h += tax
            s0 = h if last_end is None else max(h, last_end + gap)
            e0 = s0 + dur
            gpu.append((sid, "kernel", "chain_add", s0, e0))
            last_end = e0
            idle_at = max(e0, h)
            done = max(h, idle_at) + sync_us
            done = max(done, launch_h + floor)
            spans.append(Span("cpu", "sync", "cudaDeviceSynchronize", h, done))
            h = done
            eng.now_us = idle_at
        run_effects([ChainAdd(buf)] * n)
        stream.last_kernel_end = last_end
        self.host_us = h
        self.counts["cudaLaunchKernel"] += n
        self.counts["cudaDeviceSynchronize"] += n
        self.races.blocking_again(sid, "chain_add", buf.address, n)

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
        reads, writes = graph.touches()
        self.races.op(stream.sid, "graph replay", reads, writes)
        op = SimOp("graph", "graph replay", 0.0, ready_us=self.host_us + m.fixed_us, nodes=graph.nodes,
                   node_gap_us=m.node_gap_us, plan=graph.plan(m.node_gap_us) if self.bulk else None)
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

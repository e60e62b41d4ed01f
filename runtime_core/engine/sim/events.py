"""The discrete-event core of the simulated GPU: a heap of (time, seq, action), streams and events.

Each stream is a FIFO of operations. An operation starts when it reaches the head of its stream,
its ready time has come and every event it waits on has completed; it ends `dur_us` later. A
kernel also starts no sooner than `stream_gap_us` after the stream's previous kernel ended: the
front end needs that long to fetch and start a separately launched kernel (inside a replayed
graph the gap is the smaller `node_gap_us` of the graph op).
Streams run side by side (a simplification: no contention between them for SMs or copy engines).
The host never lives in here: SimDevice owns the host clock and calls `run_until(t)` to let the
GPU catch up before it looks at GPU state.
"""
from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from typing import Callable


@dataclass
class SimOp:
    """One unit of GPU work: a kernel, a copy, a replayed graph, or an event marker (dur 0)."""

    kind: str
    name: str
    dur_us: float
    ready_us: float
    effect: Callable[[], None] | None = None
    waits: list = field(default_factory=list)  # SimEvent objects that must complete first
    nodes: list = field(default_factory=list)  # for a graph: (kind, name, dur_us, effect, ...) per node
    node_gap_us: float = 0.0
    start_us: float | None = None
    end_us: float | None = None
    on_done: Callable[[float], None] | None = None


class SimStream:
    """A FIFO lane of GPU work. `pending` counts ops enqueued but not yet started."""

    def __init__(self, sid: int):
        self.sid = sid
        self.queue: deque[SimOp] = deque()
        self.running: SimOp | None = None
        self.last_kernel_end: float | None = None

    @property
    def pending(self) -> int:
        return len(self.queue)

    @property
    def idle(self) -> bool:
        return self.running is None and not self.queue

    def __repr__(self) -> str:
        return f"SimStream({self.sid})"


class SimEngine:
    """Drives the GPU side forward in virtual time and records each op's GPU spans."""

    def __init__(self, stream_gap_us: float = 0.0):
        self.stream_gap_us = stream_gap_us
        self.now_us = 0.0
        self._heap: list = []
        self._seq = 0
        self.streams: list[SimStream] = []
        self.gpu_spans: list[tuple] = []  # (stream id, kind, name, start, end)

    def new_stream(self) -> SimStream:
        s = SimStream(len(self.streams))
        self.streams.append(s)
        return s

    def at(self, t: float, action: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, action))

    def submit(self, stream: SimStream, op: SimOp) -> None:
        stream.queue.append(op)
        self.at(max(op.ready_us, self.now_us), partial(self._try_start, stream))

    def run_until(self, t: float) -> None:
        """Process every GPU event up to and including time t."""
        while self._heap and self._heap[0][0] <= t:
            when, _, action = heapq.heappop(self._heap)
            self.now_us = max(self.now_us, when)
            action()
        self.now_us = max(self.now_us, t)

    def run_while(self, busy: Callable[[], bool]) -> float:
        """Process events until `busy()` is false; return the time that happened."""
        while busy() and self._heap:
            when, _, action = heapq.heappop(self._heap)
            self.now_us = max(self.now_us, when)
            action()
        if busy():
            raise RuntimeError("simulated GPU deadlocked: a stream waits on an event never recorded")
        return self.now_us

    def all_idle(self) -> bool:
        for s in self.streams:  # SimStream.idle, inlined: called once per event of every sync
            if s.running is not None or s.queue:
                return False
        return True

    def _try_start(self, stream: SimStream) -> None:
        if stream.running is not None or not stream.queue:
            return
        op = stream.queue[0]
        ready = op.ready_us
        if op.kind == "kernel" and stream.last_kernel_end is not None:
            ready = max(ready, stream.last_kernel_end + self.stream_gap_us)
        if op.waits and not all(ev.done_by(self.now_us) for ev in op.waits):
            return  # the event's completion will poke this stream again
        if ready > self.now_us:
            self.at(ready, partial(self._try_start, stream))
            return
        stream.queue.popleft()
        stream.running = op
        op.start_us = self.now_us
        op.end_us = op.start_us + self._run_op(stream, op)
        self.at(op.end_us, partial(self._finish, stream, op))

    def _run_op(self, stream: SimStream, op: SimOp) -> float:
        if op.kind != "graph":
            if op.effect:
                op.effect()
            if op.dur_us > 0 or op.kind != "marker":
                self.gpu_spans.append((stream.sid, op.kind, op.name, self.now_us, self.now_us + op.dur_us))
            return op.dur_us
        t, sid, spans, gap = self.now_us, stream.sid, self.gpu_spans, op.node_gap_us
        last = len(op.nodes) - 1
        for i, node in enumerate(op.nodes):  # the hot loop of a replay: N nodes, locals only
            dur, effect = node[2], node[3]
            if effect:
                effect()
            spans.append((sid, node[0], node[1], t, t + dur))
            t += dur + (gap if i < last else 0.0)
        return t - self.now_us

    def _finish(self, stream: SimStream, op: SimOp) -> None:
        stream.running = None
        if op.kind == "kernel":
            stream.last_kernel_end = op.end_us
        if op.on_done:
            op.on_done(op.end_us)
        for s in self.streams:  # a finished op may complete an event another stream waits on
            self._try_start(s)

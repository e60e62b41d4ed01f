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
from itertools import accumulate, repeat
from operator import add
from typing import Callable

import numpy as np

EXACT_INT_F32 = float(1 << 24)  # float32 holds every integer up to 2^24 exactly


class ChainAdd:
    """The effect of one chain kernel: buf += 1. One object may stand for many identical kernels
    (a captured graph's nodes share it), so `times` of them in a row run as one call (add_ones)."""

    __slots__ = ("buf",)

    def __init__(self, buf):
        self.buf = buf

    def __call__(self) -> None:
        self.buf.data += 1.0


def add_ones(data: np.ndarray, times: int) -> None:
    """`data += 1.0`, `times` times over, with the same float32 result bit for bit: one add of
    `times` when every value is a whole number and stays below 2^24 (each of the single adds is
    then exact), else the single adds one by one."""
    if times <= 0:
        return
    if times > 1 and data.size:
        top = float(np.abs(data).max())
        if top + times <= EXACT_INT_F32 and np.array_equal(np.floor(data), data):
            data += np.float32(times)
            return
    for _ in range(times):
        data += 1.0


def run_effects(effects) -> None:
    """Run effects in order: a run of ChainAdd on one buffer goes through add_ones."""
    i, n = 0, len(effects)
    while i < n:
        e = effects[i]
        if type(e) is ChainAdd:
            j = i + 1
            while j < n and type(effects[j]) is ChainAdd and effects[j].buf.data is e.buf.data:
                j += 1
            add_ones(e.buf.data, j - i)
            i = j
            continue
        if e is not None:
            e()
        i += 1


class GraphPlan:
    """A captured graph's nodes laid out for a replay: their kinds, names and durations as
    columns, the steps between node starts (duration + node gap), and their effects. A replay's
    node times are then one running sum (the same additions, in the same order, as a node-by-node
    loop) and its effects run in bulk (run_effects)."""

    def __init__(self, nodes: list, gap: float):
        self.gap = gap
        self.kinds = [nd[0] for nd in nodes]
        self.names = [nd[1] for nd in nodes]
        self.durs = [nd[2] for nd in nodes]
        self.steps = [d + gap for d in self.durs[:-1]]
        self.effects = [nd[3] for nd in nodes]


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
    plan: GraphPlan | None = None  # a graph's nodes as columns (SimGraph.plan), for a bulk replay
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

    def drop_events(self, stream: SimStream) -> None:
        """Forget `stream`'s pending start and finish events (SimDevice's bulk launches put back
        the one that is due, having run the rest themselves)."""
        def mine(entry) -> bool:
            act = entry[2]
            return (isinstance(act, partial) and act.args and act.args[0] is stream
                    and getattr(act.func, "__func__", None) in (SimEngine._try_start, SimEngine._finish))
        kept = [e for e in self._heap if not mine(e)]
        if len(kept) != len(self._heap):
            self._heap = kept
            heapq.heapify(self._heap)

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
        if op.plan is not None and op.plan.gap == op.node_gap_us:
            return self._run_plan(stream.sid, op.plan)
        t, sid, spans, gap = self.now_us, stream.sid, self.gpu_spans, op.node_gap_us
        last = len(op.nodes) - 1
        for i, node in enumerate(op.nodes):  # the hot loop of a replay: N nodes, locals only
            dur, effect = node[2], node[3]
            if effect:
                effect()
            spans.append((sid, node[0], node[1], t, t + dur))
            t += dur + (gap if i < last else 0.0)
        return t - self.now_us

    def _run_plan(self, sid: int, plan: GraphPlan) -> float:
        """A replayed graph's nodes, as _run_op's node loop runs them: node i starts at the sum
        of the steps before it (itertools.accumulate adds them in the loop's order), ends
        duration later; the effects run in node order."""
        if not plan.durs:
            return 0.0
        t0 = self.now_us
        starts = list(accumulate(plan.steps, initial=t0))
        ends = list(map(add, starts, plan.durs))
        run_effects(plan.effects)
        self.gpu_spans.extend(zip(repeat(sid), plan.kinds, plan.names, starts, ends))
        return ends[-1] - t0

    def _finish(self, stream: SimStream, op: SimOp) -> None:
        stream.running = None
        if op.kind == "kernel":
            stream.last_kernel_end = op.end_us
        if op.on_done:
            op.on_done(op.end_us)
        for s in self.streams:  # a finished op may complete an event another stream waits on
            self._try_start(s)

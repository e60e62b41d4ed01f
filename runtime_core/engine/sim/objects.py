"""The simulated GPU's handles: device and host buffers, events and graphs (used by SimDevice)."""
from __future__ import annotations

import threading

import numpy as np

ADDRESS_BASE = 0x7F0000000000   # where simulated device addresses start
GRANULE_BYTES = 1 << 21         # address ranges are handed out in 2 MiB granules
_next_granule = 0
_address_lock = threading.Lock()


def reserve_addresses(nbytes: int) -> int:
    """The first address of a fresh simulated device range of at least `nbytes` bytes (rounded up
    to 2 MiB granules, at least one), never handed out again.

    Buffers (SimBuffer) and allocator segments (allocator.backends.HostArenaBackend) take their
    addresses from this one space, as a GPU's buffers and cudaMalloc segments share one: two
    different allocations never get the same address, so the race detector, which keys on
    addresses, never mistakes one for the other."""
    global _next_granule
    granules = max(1, -(-int(nbytes) // GRANULE_BYTES))
    with _address_lock:
        first = _next_granule
        _next_granule += granules
    return ADDRESS_BASE + first * GRANULE_BYTES


class SimBuffer:
    """A device buffer of float32 values with a stable fake address. Views share both."""

    def __init__(self, numel: int):
        self.data = np.zeros(numel, dtype=np.float32)
        self.address = reserve_addresses(4 * int(numel))

    @classmethod
    def view_of(cls, data: np.ndarray, address: int) -> "SimBuffer":
        """A buffer over existing float32 memory at `address` (a prefix view, an allocator block)."""
        buf = cls.__new__(cls)
        buf.data, buf.address = data, address
        return buf

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def numel(self) -> int:
        return int(self.data.size)


class SimHostBuffer:
    """Host memory of float32 values: pinned (page-locked) or pageable."""

    def __init__(self, numel: int, pinned: bool):
        self.data = np.zeros(numel, dtype=np.float32)
        self.pinned = pinned

    @property
    def numel(self) -> int:
        return int(self.data.size)


class _Recording:
    """One record() of an event: done when its marker finishes. A wait binds to one recording,
    as cudaStreamWaitEvent waits for the work captured by the most recent record at call time."""

    def __init__(self, clock: dict):
        self.done_at: float | None = None
        self.clock = clock  # happens-before: what the recording stream had enqueued

    def complete(self, t: float) -> None:
        self.done_at = t

    def done_by(self, t: float) -> bool:
        return self.done_at is not None and self.done_at <= t


class SimEvent:
    """An event: completes when the marker of its latest record() finishes on its stream."""

    def __init__(self, dev):
        self._dev = dev
        self._latest: _Recording | None = None  # never recorded: complete, as in CUDA

    def record(self, stream=None) -> None:
        stream = stream or self._dev.current_stream()
        self._latest = rec = _Recording(self._dev.races.clock_of(stream.sid))
        self._dev._enqueue(stream, "marker", "event", 0.0, None, on_done=rec.complete,
                           api="cudaEventRecord", host_cost=0.0)

    def done_by(self, t: float) -> bool:
        return self._latest is None or self._latest.done_by(t)

    def query(self) -> bool:
        """True once the recorded work has finished; the host then knows it came before."""
        self._dev.engine.run_until(self._dev.host_us)
        done = self.done_by(self._dev.host_us)
        if done and self._latest is not None:
            self._dev.races.host_waited_for(self._latest.clock)
        return done

    def wait(self, stream=None) -> None:
        """Make `stream` wait for this event (cudaStreamWaitEvent): no host blocking."""
        stream = stream or self._dev.current_stream()
        waits = [self._latest] if self._latest is not None else []
        if self._latest is not None:
            self._dev.races.wait(stream.sid, self._latest.clock)
        self._dev._enqueue(stream, "marker", "wait", 0.0, None, waits=waits,
                           api="cudaStreamWaitEvent", host_cost=0.0)


class SimGraph:
    """A recorded list of nodes (kind, name, dur_us, effect, reads, writes); replay submits them
    all with one call. The first replay also uploads the graph (`uploaded` turns True)."""

    def __init__(self, dev, nodes: list):
        self._dev, self.nodes = dev, nodes
        self.uploaded = False
        self._plan = None      # GraphPlan, made at the first replay (the nodes never change)
        self._touches = None   # (reads, writes): every node's buffer keys

    def plan(self, gap: float):
        from .events import GraphPlan
        if self._plan is None or self._plan.gap != gap:
            self._plan = GraphPlan(self.nodes, gap)
        return self._plan

    def touches(self) -> tuple[set, set]:
        if self._touches is None:
            self._touches = ({r for node in self.nodes for r in node[4]},
                             {w for node in self.nodes for w in node[5]})
        return self._touches

    def replay(self) -> None:
        self._dev._replay(self)

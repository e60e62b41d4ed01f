"""CUDA-graph dispatch: a shape guard, a bounded cache of captured graphs, and three miss policies.

A graph is a recording: it replays the same kernels on the same addresses. So every replay
first copies the request's input into the graph's *static* input buffer (a fresh tensor lives
at another address, and the graph would read stale memory), and a request whose shape differs
from the captured one cannot replay at all. What happens then is the policy:

    fallback   dispatch this call without the graph, asynchronously (the streams executor), as
               PyTorch does when a captured region can't serve an input; graph_valid = False.
               (The seed's textbook widget snaps back to *eager*; the textbook model keeps that.)
    recapture  warm up and capture a graph for the new shape, kept in an LRU cache of
               `cache_size` graphs: with shapes that keep changing this is a capture storm
    bucket     pad the input up to a bucket size (a power of two) that has a graph; the padded
               elements are wasted work
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from ..knobs import Mode, Policy
from .capture import warm_up_and_capture
from .executors import Executor, StepInfo, StepPath, StreamsExecutor
from .workload import ChainWorkload


@dataclass
class ShapeGuard:
    """The guard a capture leaves behind: the exact element count it was recorded for."""

    numel: int

    def matches(self, buf) -> bool:
        return buf.numel == self.numel


@dataclass
class Captured:
    """One recorded graph with its static input buffer (the address the graph reads)."""

    guard: ShapeGuard
    static_in: object
    graph: object
    capture_us: float


@dataclass
class GraphStats:
    """Counters of one GraphExecutor, as a student reads them on the page."""

    replays: int = 0
    hits: int = 0
    misses: int = 0
    fallbacks: int = 0
    captures: int = 0
    capture_us: float = 0.0
    evictions: int = 0
    useful_elems: int = 0
    padded_elems: int = 0
    pool_bytes: int = 0  # device memory the captures added (private pool + static buffers)
    shapes_seen: set = field(default_factory=set)

    @property
    def wasted_work_pct(self) -> float:
        total = self.useful_elems + self.padded_elems
        return 100.0 * self.padded_elems / total if total else 0.0

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items() if k != "shapes_seen"}
        d["distinct_shapes"] = len(self.shapes_seen)
        d["wasted_work_pct"] = round(self.wasted_work_pct, 2)
        return d


def bucket_numel(numel: int) -> int:
    """The bucket a request of `numel` elements is padded to: the next power of two."""
    return 1 << max(0, (numel - 1).bit_length())


class GraphExecutor(Executor):
    """Warm up, capture, replay; on a guard miss apply `policy` (fallback, recapture, bucket).

    Args:
        dev: the device.
        workload: the chain to run.
        extra_tax_us: host work paid before the one replay call (and before each eager launch).
        policy: "fallback", "recapture" or "bucket".
        cache_size: how many captured graphs the LRU cache holds (recapture and bucket).
    """

    mode = Mode.GRAPH

    def __init__(self, dev, workload: ChainWorkload, extra_tax_us: float = 0.0,
                 policy: str = "fallback", cache_size: int = 4):
        super().__init__(dev, workload, extra_tax_us)
        if cache_size < 1:
            raise ValueError("cache_size must be at least 1")
        self.policy = Policy(policy)
        self.cache_size = cache_size
        self.cache: OrderedDict[int, Captured] = OrderedDict()
        self.pool = dev.new_pool()  # one private pool: captured buffers keep stable addresses
        self.stats = GraphStats()
        self._calls_seen: dict[int, int] = {}
        self._fallback = StreamsExecutor(dev, workload, extra_tax_us)

    # ---- the three phases ---------------------------------------------------------------
    def prepare(self, x) -> Captured:
        """Warm up and capture a graph for x's shape now (what a server does before traffic).
        With the bucket policy the graph is captured at x's bucket size, the size it will serve."""
        self.stats.shapes_seen.add(x.numel)
        if self.policy == Policy.BUCKET:
            return self._capture(bucket_numel(x.numel))
        return self._capture(x.numel, x)

    def static_input(self, numel: int | None = None):
        """The captured input buffer for `numel` elements (the only graph's, if None): the
        zero-copy path writes the next request straight into it, and `run(that buffer)`
        replays with no copy. Raises LookupError when no graph serves that size."""
        if numel is None and len(self.cache) == 1:
            return next(iter(self.cache.values())).static_in
        key = bucket_numel(numel) if (numel is not None and self.policy == Policy.BUCKET) else numel
        if key not in self.cache:
            raise LookupError(f"no captured graph for {numel} elements; call prepare() first")
        return self.cache[key].static_in

    def _capture(self, numel: int, like=None) -> Captured:
        t0 = self.dev.host_now_us()
        reserved0 = self.dev.reserved_bytes()
        static_in = self.dev.new_buffer(numel)
        if like is not None and like.numel == numel:
            self.dev.copy(static_in, like)
        # Warm up and capture on one side stream that waits for the copy above (engine/capture.py).
        graph, _ = warm_up_and_capture(self.dev, lambda: self.workload.launch(self.dev, static_in),
                                       pool=self.pool)
        self.dev.synchronize()
        entry = Captured(ShapeGuard(numel), static_in, graph, self.dev.host_now_us() - t0)
        self.stats.captures += 1
        self.stats.capture_us += entry.capture_us
        self.stats.pool_bytes += max(0, self.dev.reserved_bytes() - reserved0)
        self.cache[numel] = entry
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
            self.stats.evictions += 1
        return entry

    def _replay(self, entry: Captured, x):
        if x is not entry.static_in:
            self.dev.copy(entry.static_in, x)  # stable addresses: the graph reads static_in
        self._spin()
        entry.graph.replay()
        self.dev.synchronize()
        self.stats.replays += 1
        return entry.static_in

    # ---- one step -----------------------------------------------------------------------
    def run(self, x):
        """One step on x. Returns the output buffer (the static buffer when a graph replayed;
        with the bucket policy its first x.numel elements)."""
        self.stats.shapes_seen.add(x.numel)
        self.stats.useful_elems += x.numel
        key = bucket_numel(x.numel) if self.policy == Policy.BUCKET else x.numel
        entry = self.cache.get(key)
        if entry is not None:
            self.stats.hits += 1
            self.cache.move_to_end(key)
            self.stats.padded_elems += key - x.numel
            self.last = StepInfo(StepPath.REPLAY)
            out = self._replay(entry, x)
            return out if key == x.numel else self.dev.view_prefix(out, x.numel)
        self.stats.misses += 1
        if self.policy == Policy.FALLBACK:
            if self.cache:  # a graph exists, but for another shape: the guard missed
                return self._without_graph(x, valid=False)
            if self._bump(key) < 2:  # phase 1: the first call at a shape runs for real
                return self._without_graph(x, valid=True)
        entry = self._capture(key)  # phase 2 (or a recapture / a new bucket): capture, then replay
        self.stats.padded_elems += key - x.numel
        self.last = StepInfo(StepPath.CAPTURE_REPLAY)
        out = self._replay(entry, x)
        return out if key == x.numel else self.dev.view_prefix(out, x.numel)

    def _bump(self, key: int) -> int:
        self._calls_seen[key] = self._calls_seen.get(key, 0) + 1
        return self._calls_seen[key]

    def _without_graph(self, x, valid: bool):
        # Guard miss with the fallback policy: the recording can't serve this shape, so the
        # runtime dispatches it the normal way, launch by launch and asynchronously, as PyTorch
        # does. (On the very first call, before any capture, this is the real run: still valid.)
        self.stats.fallbacks += 0 if valid else 1
        self._fallback.run(x)
        self.last = StepInfo(StepPath.FIRST_CALL if valid else StepPath.FALLBACK, graph_valid=valid)
        return x

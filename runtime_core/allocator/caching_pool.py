"""CachingPool: PyTorch's caching allocator policy over any backend.

    malloc  round to 512 B, best fit from the free list of the same pool and stream; if nothing
            fits, reserve a segment (2 MiB / 20 MiB / own, see sizes.py) or, in expandable mode,
            grow the stream's segment; if the backend is full, release the cache and retry once;
            then raise AllocatorOOM.
    free    no driver call: the block goes back on the free list (merged with free neighbours),
            or waits for stream events first if other streams used it (stream_reuse.py).
    empty_cache  give wholly free segments (and an expandable segment's free tail) back.
"""
from __future__ import annotations

from . import expandable
from .errors import AllocatorOOM, BackendOutOfMemory
from .free_lists import FreeLists
from .segments import ALLOCATED, AWAITING_EVENT, FREE, Block, new_segment
from .sizes import check_size, pool_kind, round_size, segment_bytes, should_split
from .stats import PoolStats, Sample, fragmentation
from .stream_reuse import PendingFrees


class CachingPool:
    """A caching allocator.

    Args:
        backend: a Backend (HostArenaBackend on CPU, CudaBackend on a GPU).
        expandable: grow one segment per (pool, stream) in pages instead of adding segments.
        skip_stream_events: DEBUG ONLY. Reuse freed blocks at once even if another stream may
            still use them. Exists so a test can show the corruption that events prevent.
        record_timeline: keep a Sample after every call (for memory-over-time charts).
    """

    def __init__(self, backend, expandable: bool = False, skip_stream_events: bool = False,
                 record_timeline: bool = False):
        if expandable and not backend.supports_expandable:
            raise ValueError(f"{backend.name} does not support expandable segments")
        self.backend = backend
        self.expandable = expandable
        self.skip_stream_events = skip_stream_events
        self.record_timeline = record_timeline
        self.segments: list = []
        self._free = FreeLists()
        self._pending = PendingFrees(backend)
        self._grown: dict[tuple, object] = {}  # (kind, stream) -> its expandable segment
        self._stats = PoolStats()

    # ---- public API -------------------------------------------------------------------
    def malloc(self, nbytes: int, stream=None) -> Block:
        """Return a block of at least `nbytes` bytes for use on `stream` (default: current).

        Raises BadAllocSize for a bad size, AllocatorOOM when nothing fits even after
        releasing the cache.
        """
        nbytes = check_size(nbytes, self.backend.capacity_bytes)
        stream = self.backend.current_stream() if stream is None else stream
        self.process_events()
        size = round_size(nbytes)
        kind = pool_kind(size)
        block = self._free.pop_best_fit(kind, stream, size)
        if block is None:
            block = self._reserve_or_retry(kind, stream, size, nbytes)
        self._hand_out(block, size, nbytes)
        return block

    def free(self, block: Block) -> None:
        """Return `block` to the pool (no driver call). Raises ValueError on a double free."""
        if block.state != ALLOCATED or block.segment not in self.segments:
            raise ValueError(f"free of a block that is not allocated from this pool "
                             f"(address {block.address:#x}, state {block.state})")
        self._count(-block.size_bytes, -block.requested_bytes, -1)
        self._stats.num_frees += 1
        other_streams = block.used_on - {block.stream}
        if other_streams and not self.skip_stream_events:
            block.state = AWAITING_EVENT
            self._pending.park(block, other_streams)
        else:
            self._release([block])
        self._sample("free")

    def process_events(self) -> int:
        """Free the parked blocks whose stream events have completed (queried, never waited
        for); malloc does this first. Returns how many blocks became free."""
        ready = self._pending.ready()
        self._release(ready)
        return len(ready)

    def record_stream(self, block: Block, stream) -> None:
        """Note that `stream` uses `block` (torch's Tensor.record_stream): its free will wait for it."""
        if block.state != ALLOCATED:
            raise ValueError("record_stream on a block that is not allocated")
        block.used_on.add(stream)

    def empty_cache(self) -> int:
        """Wait for parked blocks, then give every wholly free segment back; return bytes released."""
        self._release(self._pending.wait_all())
        released = 0
        for seg in list(self.segments):
            if seg.expandable:
                released += expandable.trim(self.backend, seg, self._free)
                if seg.first is None:
                    self._drop(seg)
            elif seg.is_wholly_free():
                self._free.remove(seg.first)
                self.backend.free(seg.handle, seg.size_bytes)
                released += seg.size_bytes
                self._drop(seg)
        self._stats.reserved_bytes.add(-released)
        self._sample("empty_cache")
        return released

    def view(self, block: Block):
        """The block's bytes (the backend's array or tensor type), `requested_bytes` long."""
        return self.backend.view(block.segment.handle, block.offset_bytes, block.requested_bytes)

    # ---- reserving --------------------------------------------------------------------
    def _reserve_or_retry(self, kind: str, stream, size: int, nbytes: int) -> Block:
        try:
            return self._reserve(kind, stream, size)
        except BackendOutOfMemory:
            pass
        # As PyTorch does: wait for parked blocks, free cached segments, then try once more.
        self._stats.num_alloc_retries += 1
        self.empty_cache()
        block = self._free.pop_best_fit(kind, stream, size)
        if block is not None:
            return block
        try:
            return self._reserve(kind, stream, size)
        except BackendOutOfMemory:
            self._stats.num_ooms += 1
            raise self._oom_error(nbytes) from None

    def _reserve(self, kind: str, stream, size: int) -> Block:
        """A new block of at least `size` bytes from the backend (not on any free list)."""
        seg = self._grown.get((kind, stream)) if self.expandable else None
        if seg is not None:
            block, extra = expandable.grow(self.backend, seg, size, self._free)
            self._stats.reserved_bytes.add(extra)
            return block
        if self.expandable:
            seg = expandable.create(self.backend, kind, stream, size)
            self._grown[(kind, stream)] = seg
        else:
            handle, address = self.backend.alloc(segment_bytes(size))
            seg = new_segment(handle, address, segment_bytes(size), kind, stream)
        self.segments.append(seg)
        self._stats.reserved_bytes.add(seg.size_bytes)
        return seg.first

    def _drop(self, seg) -> None:
        self.segments.remove(seg)
        self._grown.pop((seg.kind, seg.stream), None)

    # ---- handing out and taking back --------------------------------------------------
    def _hand_out(self, block: Block, size: int, nbytes: int) -> None:
        if should_split(block.segment.kind, block.size_bytes - size):
            self._free.insert(block.split(size))
        block.state, block.requested_bytes, block.used_on = ALLOCATED, nbytes, set()
        self._count(block.size_bytes, nbytes, 1)
        self._stats.num_allocs += 1
        self._sample("malloc")

    def _release(self, blocks) -> None:
        """Put blocks on the free list, merged with free neighbours (never with parked ones)."""
        for block in blocks:
            block.state, block.used_on = FREE, set()
            if block.prev is not None and block.prev.state == FREE:
                self._free.remove(block.prev)
                block = block.prev
                block.absorb_next()
            if block.next is not None and block.next.state == FREE:
                self._free.remove(block.next)
                block.absorb_next()
            self._free.insert(block)

    # ---- stats ------------------------------------------------------------------------
    def _count(self, size: int, requested: int, blocks: int) -> None:
        self._stats.allocated_bytes.add(size)
        self._stats.requested_bytes.add(requested)
        self._stats.active_blocks.add(blocks)

    def _sample(self, what: str) -> None:
        if self.record_timeline:
            s = self._stats
            s.timeline.append(Sample(len(s.timeline), self._now_us(), s.allocated_bytes.current,
                                     s.reserved_bytes.current, what))

    def _now_us(self) -> float:
        return self.backend.now_us()

    def free_block_sizes(self) -> list[int]:
        """Sizes (bytes) of the blocks that are free now (not those awaiting events)."""
        return [b.size_bytes for b in self._free.all_blocks()]

    def stats(self) -> dict:
        """PyTorch-style stats plus driver counts and fragmentation (see stats.py)."""
        out = self._stats.as_dict()
        sizes = self.free_block_sizes()
        out["free_bytes"] = sum(sizes)
        out["largest_free_block_bytes"] = max(sizes, default=0)
        out["fragmentation"] = fragmentation(sizes)
        out["num_driver_mallocs"] = self.backend.driver_mallocs
        out["num_driver_frees"] = self.backend.driver_frees
        out["num_segments"] = len(self.segments)
        out["blocks_awaiting_events"] = len(self._pending)
        return out

    def timeline(self) -> list[Sample]:
        return list(self._stats.timeline)

    def reset_peaks(self) -> None:
        for name in ("allocated_bytes", "requested_bytes", "reserved_bytes", "active_blocks"):
            getattr(self._stats, name).reset_peak()

    def _oom_error(self, nbytes: int) -> AllocatorOOM:
        sizes = self.free_block_sizes()
        return AllocatorOOM(nbytes, sum(sizes), max(sizes, default=0),
                            self._stats.reserved_bytes.current, self.backend.capacity_bytes)

    def snapshot(self) -> list[dict]:
        """Every block of every segment, for a block map: segment, offset, size, state, stream."""
        rows = []
        for i, seg in enumerate(self.segments):
            for b in seg.blocks():
                rows.append({"segment": i, "segment_address": seg.address, "kind": seg.kind,
                             "expandable": seg.expandable, "offset_bytes": b.offset_bytes,
                             "size_bytes": b.size_bytes, "requested_bytes": b.requested_bytes,
                             "state": b.state, "stream": str(b.stream),
                             "used_on": sorted(str(s) for s in b.used_on)})
        return rows

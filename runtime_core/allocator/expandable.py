"""Expandable segments: one segment per (pool, stream) that grows in place by pages (2 MiB in the
small pool, 20 MiB in the large one, as PyTorch maps them).

PyTorch's `expandable_segments:True` reserves a large virtual address range once and maps
physical pages into it on demand (cuMemAddressReserve + cuMemCreate + cuMemMap). Because the
segment stays contiguous, a block freed at its end merges with the newly mapped pages, and
blocks freed anywhere merge across what would have been separate segments in the default
mode. Fewer stranded slabs means less reserved memory and fewer "OOM with free memory" errors.
"""
from __future__ import annotations

from .errors import BackendOutOfMemory, fmt_bytes
from .segments import FREE, Block, Segment, new_segment
from .sizes import PAGE_BYTES


def _pages(nbytes: int, kind: str) -> int:
    """`nbytes` rounded up to whole pages of pool `kind`."""
    page = PAGE_BYTES[kind]
    return -(-nbytes // page) * page


def create(backend, kind: str, stream, size_bytes: int) -> Segment:
    """Reserve a virtual range as large as the backend's capacity and map enough pages for `size_bytes`."""
    virtual = _pages(backend.capacity_bytes, kind)
    handle, address = backend.reserve_virtual(virtual)
    mapped = _pages(size_bytes, kind)
    backend.map(handle, 0, mapped)
    return new_segment(handle, address, mapped, kind, stream, expandable=True, virtual_bytes=virtual)


def grow(backend, seg: Segment, size_bytes: int, free_lists) -> tuple[Block, int]:
    """Map pages at the segment's end so its last block can hold `size_bytes`.

    Returns (a block of at least size_bytes, not on any free list; bytes newly mapped).
    Raises BackendOutOfMemory if the backend has no pages left or the virtual range is full.
    """
    tail = seg.last
    tail_free = tail.state == FREE
    extra = _pages(size_bytes - (tail.size_bytes if tail_free else 0), seg.kind)
    if seg.size_bytes + extra > seg.virtual_bytes:
        raise BackendOutOfMemory(f"expandable segment's virtual range of {fmt_bytes(seg.virtual_bytes)} is full")
    backend.map(seg.handle, seg.size_bytes, extra)  # may raise BackendOutOfMemory: nothing changed yet
    if tail_free:
        free_lists.remove(tail)  # its size changes, so it must leave the sorted list first
        tail.size_bytes += extra
        block = tail
    else:
        block = Block(seg, seg.size_bytes, extra, prev=tail)
        tail.next = block
    seg.size_bytes += extra
    return block, extra


def trim(backend, seg: Segment, free_lists) -> int:
    """Unmap the whole pages of a free block at the segment's end; return the bytes unmapped.

    Only the tail is trimmed (PyTorch also unmaps free pages in the middle; we keep it simple).
    If the whole segment is free, every page is unmapped and the caller drops the segment.
    """
    tail = seg.last
    if tail.state != FREE:
        return 0
    first_whole_page = _pages(tail.offset_bytes, seg.kind)
    nbytes = seg.size_bytes - first_whole_page
    if nbytes <= 0:
        return 0
    backend.unmap(seg.handle, first_whole_page, nbytes)
    free_lists.remove(tail)
    tail.size_bytes -= nbytes
    seg.size_bytes -= nbytes
    if tail.size_bytes > 0:
        free_lists.insert(tail)
    elif tail.prev is not None:
        tail.prev.next = None
    else:
        seg.first = None  # nothing left mapped
    return nbytes

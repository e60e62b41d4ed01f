"""Segments and blocks: a segment is memory reserved from the backend; blocks tile it exactly.

Blocks of one segment form a doubly linked list in address order, so splitting a block and
merging a freed block with its free neighbours are O(1) pointer updates (as in PyTorch).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A block is in exactly one of these states.
ALLOCATED = "allocated"          # handed out to a caller
FREE = "free"                    # on the free list, reusable now
AWAITING_EVENT = "awaiting_event"  # freed by the caller, but another stream may still use it


@dataclass(eq=False)
class Segment:
    """One reservation from the backend.

    Args:
        handle: the backend's handle (what `_free` gets back).
        address: the segment's first byte (a device or fake host address).
        size_bytes: bytes currently backed (for an expandable segment: mapped so far).
        kind: "small" or "large", the pool it serves.
        stream: the stream whose allocations it serves.
        expandable: True if it grows in place by mapping pages (virtual_bytes is its limit).
    """

    handle: Any
    address: int
    size_bytes: int
    kind: str
    stream: Any
    expandable: bool = False
    virtual_bytes: int = 0
    first: "Block | None" = None

    def blocks(self) -> list["Block"]:
        """The segment's blocks in address order."""
        out, b = [], self.first
        while b is not None:
            out.append(b)
            b = b.next
        return out

    @property
    def last(self) -> "Block":
        b = self.first
        while b.next is not None:
            b = b.next
        return b

    def is_wholly_free(self) -> bool:
        return self.first.state == FREE and self.first.next is None


@dataclass(eq=False)
class Block:
    """A contiguous piece of a segment. `offset_bytes` counts from the segment's start.

    `requested_bytes` is what the caller asked for (before rounding); `used_on` holds streams,
    other than the owning one, that used the block (see CachingPool.record_stream).
    """

    segment: Segment
    offset_bytes: int
    size_bytes: int
    state: str = FREE
    requested_bytes: int = 0
    used_on: set = field(default_factory=set)
    prev: "Block | None" = None
    next: "Block | None" = None

    @property
    def address(self) -> int:
        return self.segment.address + self.offset_bytes

    @property
    def stream(self) -> Any:
        return self.segment.stream

    def split(self, size_bytes: int) -> "Block":
        """Keep the first `size_bytes` here; return the rest as a new FREE block after it."""
        rest = Block(self.segment, self.offset_bytes + size_bytes, self.size_bytes - size_bytes,
                     prev=self, next=self.next)
        if self.next is not None:
            self.next.prev = rest
        self.next = rest
        self.size_bytes = size_bytes
        return rest

    def absorb_next(self) -> "Block":
        """Merge the following block into this one; return the absorbed block (now gone)."""
        nxt = self.next
        self.size_bytes += nxt.size_bytes
        self.next = nxt.next
        if nxt.next is not None:
            nxt.next.prev = self
        return nxt


def new_segment(handle, address: int, size_bytes: int, kind: str, stream,
                expandable: bool = False, virtual_bytes: int = 0) -> Segment:
    """A segment holding one FREE block that covers it."""
    seg = Segment(handle, address, size_bytes, kind, stream, expandable, virtual_bytes)
    seg.first = Block(seg, 0, size_bytes)
    return seg

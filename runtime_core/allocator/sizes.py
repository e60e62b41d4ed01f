"""PyTorch's size rules: how a request is rounded, which pool serves it, how big a new segment is.

Constants follow c10/cuda/CUDACachingAllocator.cpp (kMinBlockSize, kSmallSize, kSmallBuffer,
kMinLargeAlloc, kLargeBuffer, kRoundLarge).
"""
from __future__ import annotations

import numbers

from .errors import BadAllocSize, fmt_bytes

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

MIN_BLOCK_BYTES = 512          # every block is a multiple of this (and aligned to it)
SMALL_REQUEST_BYTES = 1 * MiB  # requests up to this size go to the small pool
SMALL_SEGMENT_BYTES = 2 * MiB  # a small-pool segment
MID_REQUEST_BYTES = 10 * MiB   # requests below this (and above 1 MiB) share 20 MiB segments
MID_SEGMENT_BYTES = 20 * MiB   # a large-pool segment for mid-size requests
LARGE_ROUND_BYTES = 2 * MiB    # a big request gets its own segment, rounded up to this
# an expandable segment maps (and unmaps) memory in pages of its pool's segment size: 2 MiB for
# the small pool, 20 MiB for the large one (get_expandable_segment: kSmallBuffer or kLargeBuffer)
PAGE_BYTES = {"small": SMALL_SEGMENT_BYTES, "large": MID_SEGMENT_BYTES}


def check_size(nbytes, capacity_bytes: int | None = None) -> int:
    """Return `nbytes` as an int, or raise BadAllocSize saying what is wrong with it.

    Args:
        nbytes: the requested size in bytes; must be a positive integer (bool is refused).
        capacity_bytes: if given, a request above it can never succeed and is refused here.
    """
    if isinstance(nbytes, bool) or not isinstance(nbytes, numbers.Integral):
        raise BadAllocSize(f"size must be a whole number of bytes, got {nbytes!r} "
                           f"({type(nbytes).__name__})")
    nbytes = int(nbytes)
    if nbytes <= 0:
        raise BadAllocSize(f"size must be at least 1 byte, got {nbytes}")
    if capacity_bytes is not None and nbytes > capacity_bytes:
        raise BadAllocSize(f"size {fmt_bytes(nbytes)} ({nbytes} B) is larger than the whole "
                           f"device capacity of {fmt_bytes(capacity_bytes)}")
    return nbytes


def round_size(nbytes: int) -> int:
    """Round a request up to a multiple of 512 B, so freed blocks fit later requests more often."""
    return -(-nbytes // MIN_BLOCK_BYTES) * MIN_BLOCK_BYTES


def pool_kind(rounded_bytes: int) -> str:
    """"small" for requests of at most 1 MiB, else "large" (two separate free lists)."""
    return "small" if rounded_bytes <= SMALL_REQUEST_BYTES else "large"


def segment_bytes(rounded_bytes: int) -> int:
    """How much to reserve from the backend when no cached block fits a request.

    Small requests share a 2 MiB segment, 1-10 MiB requests share a 20 MiB segment, and
    bigger requests get a segment of their own, rounded up to 2 MiB.
    """
    if rounded_bytes <= SMALL_REQUEST_BYTES:
        return SMALL_SEGMENT_BYTES
    if rounded_bytes < MID_REQUEST_BYTES:
        return MID_SEGMENT_BYTES
    return -(-rounded_bytes // LARGE_ROUND_BYTES) * LARGE_ROUND_BYTES


def should_split(kind: str, remaining_bytes: int) -> bool:
    """Split a block when the leftover is worth keeping: any 512 B in the small pool, but only
    more than 1 MiB in the large pool (smaller large-pool leftovers stay with the block)."""
    if kind == "small":
        return remaining_bytes >= MIN_BLOCK_BYTES
    return remaining_bytes > SMALL_REQUEST_BYTES

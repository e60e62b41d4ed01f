"""The allocator's typed errors: a bad size is the caller's bug, an OOM is a state of the pool."""
from __future__ import annotations

from ..errors import UsageError


class BadAllocSize(UsageError):
    """A requested size that no allocator should accept (0, negative, not an integer, too big)."""


class BackendOutOfMemory(RuntimeError):
    """The backend (the "driver") could not reserve more memory. The pool catches this and
    retries once after releasing its cache; only then does the caller see AllocatorOOM."""


class AllocatorOOM(MemoryError):
    """Out of memory, with the numbers that explain why.

    Attributes (all bytes): requested_bytes, free_bytes (reserved but unallocated),
    largest_free_block_bytes, reserved_bytes, capacity_bytes.
    """

    def __init__(self, requested_bytes: int, free_bytes: int, largest_free_block_bytes: int,
                 reserved_bytes: int, capacity_bytes: int):
        self.requested_bytes = requested_bytes
        self.free_bytes = free_bytes
        self.largest_free_block_bytes = largest_free_block_bytes
        self.reserved_bytes = reserved_bytes
        self.capacity_bytes = capacity_bytes
        super().__init__(self._message())

    @property
    def fragmented(self) -> bool:
        """True for the confusing case: enough free bytes in total, but no block big enough."""
        return self.free_bytes >= self.requested_bytes > self.largest_free_block_bytes

    def _message(self) -> str:
        msg = (f"AllocatorOOM: tried to allocate {fmt_bytes(self.requested_bytes)}; "
               f"{fmt_bytes(self.free_bytes)} free (reserved but unallocated), "
               f"largest free block {fmt_bytes(self.largest_free_block_bytes)}; "
               f"{fmt_bytes(self.reserved_bytes)} reserved of a {fmt_bytes(self.capacity_bytes)} capacity")
        if self.fragmented:
            msg += (". The free memory is fragmented: no single free block or new segment fits "
                    "the request")
        return msg


def fmt_bytes(n: int) -> str:
    """Human-readable bytes in binary units (B, KiB, MiB, GiB), e.g. 1536 -> '1.50 KiB'."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} B"

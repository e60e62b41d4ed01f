"""The pool's free blocks, kept sorted by (size, address) per (pool kind, stream) for best fit."""
from __future__ import annotations

import bisect


class FreeLists:
    """Best fit = the smallest free block at least as big as the request (lowest address on ties)."""

    def __init__(self):
        self._lists: dict[tuple, list] = {}  # (kind, stream) -> sorted [(size, address, block)]

    def insert(self, block) -> None:
        key = (block.segment.kind, block.stream)
        bisect.insort(self._lists.setdefault(key, []), (block.size_bytes, block.address, block))

    def remove(self, block) -> None:
        entries = self._lists[(block.segment.kind, block.stream)]
        i = bisect.bisect_left(entries, (block.size_bytes, block.address))
        if i == len(entries) or entries[i][2] is not block:
            raise RuntimeError(f"allocator bug: block at {block.address:#x} is not on the free list")
        entries.pop(i)

    def pop_best_fit(self, kind: str, stream, size_bytes: int):
        """Remove and return the best-fitting free block, or None if none is big enough."""
        entries = self._lists.get((kind, stream), [])
        i = bisect.bisect_left(entries, (size_bytes, -1))
        return entries.pop(i)[2] if i < len(entries) else None

    def all_blocks(self) -> list:
        return [block for entries in self._lists.values() for _, _, block in entries]

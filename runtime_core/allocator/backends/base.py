"""Where segments come from. Policy sits above hooks (as in tinygrad): the pool decides what to
reserve and when; a backend only fills `_alloc(nbytes)` / `_free(handle)` (and `_map`/`_unmap`
for expandable segments). The base class does the bookkeeping every backend shares: the
capacity limit, the reserved total, and the count of driver calls.

The backends themselves: sim.py (HostArenaBackend, host memory on a SimDevice's clock) and
cuda.py (CudaBackend, raw cudaMalloc); backends/__init__.py finds a device's by its backend.
"""
from __future__ import annotations

import time

from ..errors import BackendOutOfMemory, fmt_bytes
from ..sizes import GiB


class Backend:
    """The shared part of a backend. Counts (`driver_mallocs`, `driver_frees`) are of real hook
    calls; `reserved_bytes` is physical bytes held (virtual reservations don't count)."""

    name = "base"
    supports_expandable = False

    def __init__(self, capacity_bytes: int):
        self.capacity_bytes = int(capacity_bytes)
        self.reserved_bytes = 0
        self.driver_mallocs = 0
        self.driver_frees = 0

    def now_us(self) -> float:
        """The clock the pool's memory timeline uses: the host's wall clock."""
        return time.perf_counter() * 1e6

    # ---- called by the pool ------------------------------------------------------------
    def alloc(self, nbytes: int):
        """Reserve `nbytes` (one driver malloc); return (handle, address)."""
        self._check_capacity(nbytes)
        handle, address = self._alloc(nbytes)
        self.reserved_bytes += nbytes
        self.driver_mallocs += 1
        return handle, address

    def free(self, handle, nbytes: int) -> None:
        """Give a whole segment back (one driver free)."""
        self._free(handle)
        self.reserved_bytes -= nbytes
        self.driver_frees += 1

    def reserve_virtual(self, nbytes: int):
        """Reserve address space only (expandable segments); no physical memory, no malloc."""
        return self._reserve(nbytes)

    def map(self, handle, offset_bytes: int, nbytes: int) -> None:
        """Back `nbytes` of a virtual reservation with physical pages (counted as a malloc)."""
        self._check_capacity(nbytes)
        self._map(handle, offset_bytes, nbytes)
        self.reserved_bytes += nbytes
        self.driver_mallocs += 1

    def unmap(self, handle, offset_bytes: int, nbytes: int) -> None:
        self._unmap(handle, offset_bytes, nbytes)
        self.reserved_bytes -= nbytes
        self.driver_frees += 1

    def _check_capacity(self, nbytes: int) -> None:
        if self.reserved_bytes + nbytes > self.capacity_bytes:
            raise BackendOutOfMemory(
                f"{self.name}: cannot reserve {fmt_bytes(nbytes)}; {fmt_bytes(self.reserved_bytes)} "
                f"of {fmt_bytes(self.capacity_bytes)} already reserved")

    # ---- hooks a backend fills ----------------------------------------------------------
    def _alloc(self, nbytes: int):
        raise NotImplementedError

    def _free(self, handle) -> None:
        raise NotImplementedError

    def _reserve(self, nbytes: int):
        raise NotImplementedError(f"{self.name} has no expandable segments")

    def _map(self, handle, offset_bytes: int, nbytes: int) -> None:
        raise NotImplementedError

    def _unmap(self, handle, offset_bytes: int, nbytes: int) -> None:
        raise NotImplementedError

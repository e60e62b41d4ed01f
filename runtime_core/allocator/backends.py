"""Where segments come from. Policy sits above hooks (as in tinygrad): the pool decides what to
reserve and when; a backend only fills `_alloc(nbytes)` / `_free(handle)` (and `_map`/`_unmap`
for expandable segments). The base class does the bookkeeping every backend shares: the
capacity limit, the reserved total, and the count of driver calls.

`HostArenaBackend` is the CPU peer of the CUDA backend (cuda_backend.py): its "driver" hands out
fake device addresses from a fixed capacity, backs them with host memory on first touch, and
uses a SimDevice's streams and events, so stream-aware reuse runs on a virtual clock.
"""
from __future__ import annotations

import time

import numpy as np

from .errors import BackendOutOfMemory, fmt_bytes
from .sizes import GiB


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


class HostMemory:
    """A host stand-in for a device allocation: a fake address, a size, and bytes made on first use."""

    def __init__(self, address: int, nbytes: int):
        self.address, self.nbytes = address, nbytes
        self._data: np.ndarray | None = None

    @property
    def data(self) -> np.ndarray:
        # Made lazily so a demo can reserve gigabytes without touching them.
        if self._data is None:
            self._data = np.zeros(self.nbytes, dtype=np.uint8)
        return self._data


class HostArenaBackend(Backend):
    """Host memory with a fixed capacity, driven by a SimDevice's streams and events.

    Args:
        capacity_bytes: the most this "device" can hold (default 1 GiB); beyond it, alloc fails.
        device: a SimDevice for streams and events (a new one if None).
        driver_call_us: virtual host time each malloc/free costs on the device's clock (0 = free).
    """

    name = "host arena (simulated device memory)"
    supports_expandable = True

    def __init__(self, capacity_bytes: int = 1 * GiB, device=None, driver_call_us: float = 0.0):
        super().__init__(capacity_bytes)
        if device is None:
            from ..engine.sim_device import SimDevice
            device = SimDevice()
        self.device = device
        self.driver_call_us = driver_call_us
        self.driver_spans: list[tuple[float, float, str]] = []  # (start_us, end_us, api name)

    def now_us(self) -> float:
        """The simulated device's host clock (virtual µs)."""
        return self.device.host_now_us()

    def _new_address(self, nbytes: int) -> int:
        """A fake device address, 2 MiB aligned and never reused (so a stale pointer is obvious),
        from the same address space as the simulator's buffers (sim_objects.reserve_addresses)."""
        from ..engine.sim_objects import reserve_addresses
        return reserve_addresses(nbytes)

    def _driver_call(self, api: str) -> None:
        if self.driver_call_us > 0:
            t0 = self.device.host_now_us()
            self.device.host_spin(self.driver_call_us, name=api)
            self.driver_spans.append((t0, self.device.host_now_us(), api))

    def _alloc(self, nbytes: int):
        self._driver_call("cudaMalloc")
        mem = HostMemory(self._new_address(nbytes), nbytes)
        return mem, mem.address

    def _free(self, handle: HostMemory) -> None:
        self._driver_call("cudaFree")
        handle._data = None

    def _reserve(self, nbytes: int):
        mem = HostMemory(self._new_address(nbytes), nbytes)
        return mem, mem.address

    def _map(self, handle, offset_bytes, nbytes) -> None:
        self._driver_call("cuMemMap")

    def _unmap(self, handle, offset_bytes, nbytes) -> None:
        self._driver_call("cuMemUnmap")

    # ---- data, streams and events ---------------------------------------------------------
    def view(self, handle: HostMemory, offset_bytes: int, nbytes: int) -> np.ndarray:
        """The bytes of a block as a numpy uint8 array (shares memory with the segment)."""
        return handle.data[offset_bytes:offset_bytes + nbytes]

    def device_buffer(self, block):
        """A SimBuffer whose float32 data is the block's bytes, so SimDevice kernels and copies
        really read and write the block (as SimDevice.view_prefix does: share memory, keep the address)."""
        from ..engine.sim_objects import SimBuffer
        view = self.view(block.segment.handle, block.offset_bytes, block.requested_bytes)
        return SimBuffer.view_of(view.view(np.float32), block.address)

    def current_stream(self):
        return self.device.current_stream()

    def new_event(self):
        return self.device.new_event()

    def wait_event(self, event) -> None:
        """Block the host until `event` completes (the simulator drains every stream)."""
        if not event.query():
            self.device.synchronize()

"""The simulator's allocator backend: `HostArenaBackend`, the CPU peer of the CUDA backend
(cuda.py). Its "driver" hands out fake device addresses from a fixed capacity, backs them with
host memory on first touch, and uses a SimDevice's streams and events, so stream-aware reuse
runs on a virtual clock.
"""
from __future__ import annotations

import numpy as np

from ..errors import BackendOutOfMemory, fmt_bytes
from ..sizes import GiB
from .base import Backend


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
            from ...engine.sim.device import SimDevice
            device = SimDevice()
        self.device = device
        self.driver_call_us = driver_call_us
        self.driver_spans: list[tuple[float, float, str]] = []  # (start_us, end_us, api name)

    def now_us(self) -> float:
        """The simulated device's host clock (virtual µs)."""
        return self.device.host_now_us()

    def _new_address(self, nbytes: int) -> int:
        """A fake device address, 2 MiB aligned and never reused (so a stale pointer is obvious),
        from the same address space as the simulator's buffers (engine/sim/objects.reserve_addresses)."""
        from ...engine.sim.objects import reserve_addresses
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
        from ...engine.sim.objects import SimBuffer
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

"""A small interactive pool for the page: malloc, free, use a block on a side stream, let time pass.

It is a CachingPool on a HostArenaBackend driving a SimDevice, so a block freed while a side
stream's kernel still runs shows up as "awaiting event" until virtual time passes that kernel.
"""
from __future__ import annotations

from .backends import HostArenaBackend
from .caching_pool import CachingPool
from .sizes import MiB


class Playground:
    """Args: capacity_bytes of the simulated device (default 64 MiB)."""

    def __init__(self, capacity_bytes: int = 64 * MiB):
        from ..engine.sim_device import SimDevice, SimParams
        self.device = SimDevice(SimParams(elems_per_us=1.0))  # kernel µs = elements touched
        self.backend = HostArenaBackend(capacity_bytes, device=self.device)
        self.pool = CachingPool(self.backend, record_timeline=True)
        self.side = self.device.new_stream()
        self.live: list = []
        self.log: list[str] = []

    def malloc(self, nbytes: int) -> None:
        """Allocate on the default stream (may raise AllocatorOOM or BadAllocSize)."""
        block = self.pool.malloc(nbytes)
        self.live.append(block)
        self.log.append(f"malloc {nbytes:,} B -> block at offset {block.offset_bytes:,} B")

    def free_newest(self) -> None:
        if self.live:
            block = self.live.pop()
            self.pool.free(block)
            self.log.append(f"free block at offset {block.offset_bytes:,} B (reusable now)")

    def use_on_side_then_free(self, kernel_us: float = 1000.0) -> None:
        """Launch a kernel of `kernel_us` on the side stream, record_stream, then free the newest block."""
        if not self.live:
            return
        block = self.live.pop()
        with self.device.use_stream(self.side):
            self.device.launch_chain_kernel(self.device.new_buffer(max(1, int(kernel_us))))
        self.pool.record_stream(block, self.side)
        self.pool.free(block)
        self.log.append(f"free block at offset {block.offset_bytes:,} B while the side stream runs "
                        f"a {kernel_us:.0f} µs kernel: parked until its event completes")

    def advance(self, us: float) -> None:
        """Let `us` of virtual host time pass (GPU work progresses meanwhile)."""
        self.device.host_spin(us)
        done = self.pool.process_events()  # what the next malloc would do first
        self.log.append(f"advance {us:.0f} µs: {done} parked block(s) became free")

    def empty_cache(self) -> None:
        released = self.pool.empty_cache()
        self.log.append(f"empty_cache released {released:,} B")

"""A small interactive pool for the page: malloc, free, use a block on a side stream, let time pass.

It is a CachingPool on a HostArenaBackend driving a SimDevice, and it follows PyTorch's rules:
    - every block belongs to the stream it was allocated on (here: the default stream);
    - a block freed there is reusable at once, with no event: the next allocation on that
      stream can only run after everything already queued on it;
    - a block also used on a side stream waits, after its free, for an event recorded on that
      side stream, but only if the side stream was named with record_stream; forgetting it is
      a silent data race (the next owner's writes can land before the side stream's read).
Each malloc writes its new block at once (one small kernel), as a new tensor would be, so a
race shows up in the log through the simulator's race detector.
"""
from __future__ import annotations

from .backends.sim import HostArenaBackend
from .caching_pool import CachingPool
from .sizes import MiB


NOTHING_LIVE = "nothing to free: the pool hands out no block now (press malloc first)"


class Playground:
    """Args: capacity_bytes of the simulated device (default 64 MiB)."""

    def __init__(self, capacity_bytes: int = 64 * MiB):
        from ..engine.sim.device import SimDevice, SimParams
        from ..recordings.shipped import shipped_constants
        # kernel µs = elements touched; races are collected (and logged), never raised; the
        # shipped H200's named costs (sync, gaps), as the lesson's simulated device has
        self.device = SimDevice(SimParams(elems_per_us=1.0), raise_on_race=False, constants=shipped_constants())
        self.backend = HostArenaBackend(capacity_bytes, device=self.device)
        self.pool = CachingPool(self.backend, record_timeline=True)
        self.side = self.device.new_stream()
        self.live: list = []
        self.log: list[str] = []
        self.races: list[str] = []  # every race the simulator found, in order (kept: the log moves on)
        self._races_logged = 0

    def _first_element(self, block):
        """The block's first float32, as a device buffer at the block's address (cheap to touch)."""
        return self.device.view_prefix(self.backend.device_buffer(block), 1)

    def malloc(self, nbytes: int) -> None:
        """Allocate on the default stream and write the new block at once (may raise AllocatorOOM
        or BadAllocSize; the log then says the malloc failed, so "Last:" is never the previous one)."""
        before, host_us = self.pool.stats(), self.device.host_us
        try:
            block = self.pool.malloc(nbytes)
        except Exception as e:
            self.log.append(f"malloc {nbytes:,} B failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
            raise
        retried = self._retried(before, self.device.host_us - host_us)
        self.live.append(block)
        self.device.fill(self._first_element(block), 1.0)  # the new tensor is written at once
        self.log.append(f"malloc {nbytes:,} B -> block at offset {block.offset_bytes:,} B of segment "
                        f"{block.segment.address:#x}, written at once on the default stream"
                        + retried + self._new_races())

    def _retried(self, before: dict, waited: float) -> str:
        """What a malloc that found no room did first, as PyTorch does (num_alloc_retries): wait for
        the parked blocks' events, give wholly free segments back, then reserve again ("" if it
        found room at once)."""
        after = self.pool.stats()
        if after["num_alloc_retries"] == before["num_alloc_retries"]:
            return ""
        freed = after["num_driver_frees"] - before["num_driver_frees"]
        parked = before["blocks_awaiting_events"]
        whose = "the parked block's side-stream event" if parked == 1 else f"the {parked} parked blocks' side-stream events"
        wait = f"it waited {waited:,.0f} µs for {whose}, " if parked else ""
        return (f"; first it found no room: {wait}gave {freed} free segment{'s' if freed != 1 else ''} back "
                f"to the driver (empty_cache) and reserved again (num_alloc_retries {after['num_alloc_retries']})")

    def free_newest(self) -> None:
        """Free the newest block on its own stream: reusable at once, no event needed."""
        if not self.live:
            self.log.append(NOTHING_LIVE)
        else:
            block = self.live.pop()
            self.pool.free(block)
            self.log.append(f"free block at offset {block.offset_bytes:,} B: reusable now (same stream, "
                            f"which runs in order, so no event)")

    def use_on_side_then_free(self, kernel_us: float = 1000.0, record_stream: bool = True) -> None:
        """The side stream runs a `kernel_us` kernel and then reads the newest block; the host
        frees the block at once, with or without record_stream(side) first."""
        if not self.live:
            self.log.append(NOTHING_LIVE)
            return
        block = self.live.pop()
        dev = self.device
        scratch = dev.new_buffer(1)
        dev.wait_stream(self.side, dev.current_stream())  # the side stream reads after the block's writes
        with dev.use_stream(self.side):
            dev.launch_busy_kernel(kernel_us)
            dev.copy(scratch, self._first_element(block))  # the read, after the long kernel
        if record_stream:
            self.pool.record_stream(block, self.side)
        self.pool.free(block)
        if record_stream:
            self.log.append(f"record_stream(side), then free block at offset {block.offset_bytes:,} B while "
                            f"the side stream runs a {kernel_us:.0f} µs kernel before reading it: parked "
                            f"until the event recorded on the side stream completes")
        else:
            self.log.append(f"free block at offset {block.offset_bytes:,} B WITHOUT record_stream while the "
                            f"side stream still has to read it: reusable at once, so the next malloc can "
                            f"hand it out and write it before that read (a silent race on a GPU)")

    def advance(self, us: float) -> None:
        """Let `us` of virtual host time pass (GPU work progresses meanwhile)."""
        self.device.host_spin(us)
        done = self.pool.process_events()  # what the next malloc would do first
        left = self.pool.stats()["blocks_awaiting_events"]
        self.log.append(f"advance {us:.0f} µs: {done} parked block(s) became free"
                        + (f"; {left} still parked: the side stream runs its kernels one after another, so a "
                           f"block freed after several side-stream presses waits for all of their kernels"
                           if left else ""))

    def empty_cache(self) -> None:
        parked = self.pool.stats()["blocks_awaiting_events"]
        released = self.pool.empty_cache()
        waited = (f"waited for the side-stream events of {parked} parked block{'s' if parked > 1 else ''} first "
                  f"(it synchronizes, as "
                  f"torch.cuda.empty_cache does, so no block is handed back while a stream may still read it), "
                  f"then " if parked else "")
        self.log.append(f"empty_cache {waited}released {released:,} B ({released / 2**20:,.1f} MiB)")

    def _new_races(self) -> str:
        found = self.device.races.found[self._races_logged:]
        self._races_logged += len(found)
        self.races += [str(r) for r in found]
        return "" if not found else f". RACE (the simulator's detector; a GPU says nothing): {found[0]}"

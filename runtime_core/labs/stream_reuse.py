"""Stream-reuse lab: a tensor used on a side stream, freed on the host, and its block handed out
again, without and with `record_stream`.

What PyTorch's caching allocator does (and our CachingPool models, allocator/stream_reuse.py):
every block belongs to the stream it was allocated on. A block freed there goes straight back
on that stream's free list, with no event, because the next allocation on the same stream can
only run after everything queued before it. Only streams named with `tensor.record_stream(s)`
get an event recorded at free time, and the block waits until those events complete.

The scenario, one program for both devices:
    1. allocate a block from our CachingPool (over allocator.backends.for_device(dev)) on the main stream
       and fill it with ORIGINAL_VALUE there;
    2. the side stream waits for that fill, runs one LONG kernel (SIDE_KERNEL_US, so the race
       shows reliably on a real GPU too), then copies the block into `out`;
    3. the host frees the block at once (the side stream has not read it yet), allocates the
       same size on the main stream and writes NEW_OWNER_VALUE into the new block at once.
Without record_stream the new allocation gets the very same block: the side stream's copy,
which runs milliseconds later, reads the new owner's values. No error is raised anywhere; on the
simulator the race detector names the race (dev.races_seen), on a GPU only the wrong value shows.
With record_stream the freed block waits for the side stream's event (state awaiting_event),
the new allocation is served at once from another address, the side stream reads the original
values, and once the event has completed the old block is handed out again.
"""
from __future__ import annotations

from ..allocator import CachingPool
from ..allocator.backends import for_device
from ..recordings.shipped import get_device
from .common import header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="stream_reuse", summary="a tensor used on a side stream, freed and reused without and with record_stream",
           page="pages/3_Caching_allocator.py", panel="stream_reuse",
           renderer="pages.ui.bug_lab_panels:stream_reuse", text_key="reuse_without_record_stream")

BLOCK_NUMEL = 64 * 1024         # float32 elements: a 256 KiB block (a 2 MiB small-pool segment)
POOL_CAPACITY = 64 << 20        # bytes the lab's pool may reserve
SIDE_KERNEL_US = 5000.0         # the side stream's long kernel before it reads the block
ORIGINAL_VALUE = 1.0            # what the tensor holds while the side stream should read it
NEW_OWNER_VALUE = 7.0           # what the next allocation writes into its block
SENTINEL = -1.0                 # `out` before the side stream's copy


def run(backend: str = "sim") -> dict:
    """The scenario without and with record_stream.

    Returns the header keys, then "without_record_stream" and "with_record_stream", each:
        race_detected       True/False from the simulator's race detector; None on a GPU,
                            which cannot detect races
        races               the detector's messages (empty on a GPU)
        side_stream_read    the value the side stream's copy read from the tensor
        expected_value      ORIGINAL_VALUE, what it should have read
        wrong_value         side_stream_read != expected_value
        block_state_at_free "free" (reusable at once) or "awaiting_event"
        same_address_reused whether the next allocation got the freed block's address
        waited_for_event    whether the freed block was held back for the side stream's event
        original_address_reused_after_event   after a synchronize, does a third allocation
                            get the freed block back (it should, in both runs)
        block_bytes, side_kernel_us           the setting
    then signal (the wrong value without record_stream, the right one with it, and on the
    simulator the race detected only without) and verdict.
    """
    dev = get_device(backend)
    dev.launch_busy_kernel(1.0)  # the device's own one-off set-up (a GPU calibrates its sleep
    dev.synchronize()            # kernel on first use) must not land in the middle of the scenario
    runs = {"without_record_stream": _scenario(dev, record=False),
            "with_record_stream": _scenario(dev, record=True)}
    out = header("stream_reuse", dev)
    out.update(runs)
    bad, good = runs["without_record_stream"], runs["with_record_stream"]
    out["signal"] = (bad["wrong_value"] and not good["wrong_value"]
                     and bad["race_detected"] is not False and not good["race_detected"])
    detector = ("The simulator's race detector named the race"
                if bad["race_detected"] else "A GPU raises nothing, and only the value shows it")
    out["verdict"] = (
        f"Without record_stream the freed block went straight back to the main stream's free list "
        f"and the next allocation got the same address; the side stream, still busy for "
        f"{SIDE_KERNEL_US / 1000:g} ms, then read {bad['side_stream_read']:g} (the new owner's "
        f"value) instead of {bad['expected_value']:g}. {detector}. With record_stream the freed "
        f"block waited for the side stream's event ({good['block_state_at_free']}), the new "
        f"allocation got {'the same' if good['same_address_reused'] else 'another'} address at once, "
        f"and the side stream read {good['side_stream_read']:g}.")
    return out


def _scenario(dev, record: bool) -> dict:
    pool = CachingPool(for_device(dev, POOL_CAPACITY))
    seen: dict = {}

    def scenario() -> None:
        main, side = dev.current_stream(), dev.new_stream()
        out = dev.new_buffer(BLOCK_NUMEL)
        dev.fill(out, SENTINEL)
        block = pool.malloc(4 * BLOCK_NUMEL)                    # belongs to the main stream
        dev.fill(pool.backend.device_buffer(block), ORIGINAL_VALUE)
        dev.wait_stream(side, main)                             # the side stream reads after the fill
        with dev.use_stream(side):
            dev.launch_busy_kernel(SIDE_KERNEL_US)
            dev.copy(out, pool.backend.device_buffer(block))    # reads the tensor, late
        if record:
            pool.record_stream(block, side)                     # tensor.record_stream(side)
        pool.free(block)                                        # the host drops the tensor now
        seen["state_at_free"] = block.state
        seen["address"] = block.address
        new = pool.malloc(4 * BLOCK_NUMEL)                      # the next allocation, same stream
        seen["new_address"] = new.address
        dev.fill(pool.backend.device_buffer(new), NEW_OWNER_VALUE)  # written at once
        dev.synchronize()
        seen["read"] = dev.read(out)[0]
        pool.free(new)
        third = pool.malloc(4 * BLOCK_NUMEL)                    # after the side stream finished
        seen["third_address"] = third.address
        pool.free(third)

    races = dev.races_seen(scenario)
    dev.synchronize()
    pool.empty_cache()  # on a GPU the segment is real cudaMalloc memory: give it back
    return {"race_detected": None if races is None else bool(races),
            "races": [] if races is None else races[:3],
            "side_stream_read": float(seen["read"]), "expected_value": ORIGINAL_VALUE,
            "wrong_value": seen["read"] != ORIGINAL_VALUE,
            "block_state_at_free": seen["state_at_free"],
            "same_address_reused": seen["new_address"] == seen["address"],
            "waited_for_event": seen["state_at_free"] == "awaiting_event",
            "original_address_reused_after_event": seen["third_address"] == seen["address"],
            "block_bytes": 4 * BLOCK_NUMEL, "side_kernel_us": SIDE_KERNEL_US}

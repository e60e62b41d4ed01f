"""Stream-aware reuse: a block freed while another stream may still use it is not handed out
again until an event recorded on that stream at free time has completed.

The scenario (sim and CUDA): block A holds 1.0s. A side stream runs a long kernel, then copies
A into `out`. The host frees A (A was record_stream'ed on the side stream) and at once allocates
a block B of the same size on the default stream and writes 7.0s into it. If B is A, the side
stream's copy, which runs later, reads 7.0s: corruption. With stream events it must read 1.0s.
"""
import numpy as np
import pytest

from runtime_core.allocator import AWAITING_EVENT, CachingPool, HostArenaBackend
from runtime_core.allocator.sizes import MiB
from runtime_core.engine.race_detector import RaceError
from runtime_core.engine.sim.device import SimDevice, SimParams

NBYTES = 4096  # 1024 float32


def sim_scenario(skip_stream_events: bool, raise_on_race: bool = True) -> dict:
    dev = SimDevice(SimParams(elems_per_us=1000.0), raise_on_race=raise_on_race)
    backend = HostArenaBackend(64 * MiB, device=dev)
    pool = CachingPool(backend, skip_stream_events=skip_stream_events)
    side = dev.new_stream()
    a = pool.malloc(NBYTES)
    dev.fill(backend.device_buffer(a), 1.0)
    out, long_work = dev.new_buffer(NBYTES // 4), dev.new_buffer(1_000_000)  # a 1000 µs kernel
    dev.wait_stream(side, dev.current_stream())  # the side stream reads A after its fill
    with dev.use_stream(side):
        dev.launch_chain_kernel(long_work)
        dev.copy(out, backend.device_buffer(a))  # reads A after the long kernel
    pool.record_stream(a, side)
    pool.free(a)
    a_state = a.state
    b = pool.malloc(NBYTES)
    sevens = dev.new_buffer(NBYTES // 4)
    dev.fill(sevens, 7.0)
    dev.copy(backend.device_buffer(b), sevens)  # default stream: runs now, not after the kernel
    reused_early = b.address == a.address
    dev.synchronize()
    return {"reused_early": reused_early, "out": np.array(dev.read(out)), "a_state": a_state,
            "pool": pool, "a_address": a.address, "races": dev.races.found}


def test_freed_block_not_reused_before_stream_event():
    r = sim_scenario(skip_stream_events=False)
    assert r["a_state"] == AWAITING_EVENT
    assert not r["reused_early"]
    assert np.all(r["out"] == 1.0)  # the side stream read what A held


def test_skipping_the_event_corrupts_data():
    """The same scenario with the event skipped: the check above would fail. On a GPU the race is
    silent; the simulator's race detector names it (and, told not to stop, shows the damage)."""
    with pytest.raises(RaceError, match="not ordered after"):
        sim_scenario(skip_stream_events=True)
    r = sim_scenario(skip_stream_events=True, raise_on_race=False)
    assert r["reused_early"] and r["races"]
    assert np.all(r["out"] == 7.0)  # the side stream read the new owner's data


def test_block_is_reused_once_the_event_has_completed():
    r = sim_scenario(skip_stream_events=False)
    pool = r["pool"]  # the device was synchronized: A's event has completed
    assert pool.malloc(NBYTES).address == r["a_address"]
    assert pool.stats()["blocks_awaiting_events"] == 0


def test_event_is_queried_not_waited_for():
    dev = SimDevice(SimParams(elems_per_us=1000.0))
    backend = HostArenaBackend(64 * MiB, device=dev)
    pool, side = CachingPool(backend), dev.new_stream()
    a = pool.malloc(NBYTES)
    with dev.use_stream(side):
        dev.launch_chain_kernel(dev.new_buffer(1_000_000))  # busy until t = 1000 µs
    pool.record_stream(a, side)
    pool.free(a)
    t0 = dev.host_now_us()
    assert pool.malloc(NBYTES).address != a.address
    assert dev.host_now_us() == t0  # malloc did not block the host
    dev.host_spin(2000.0)           # the side stream finishes meanwhile
    assert pool.malloc(NBYTES).address == a.address


def test_a_block_used_only_on_its_own_stream_is_reused_at_once():
    pool = CachingPool(HostArenaBackend(64 * MiB))
    a = pool.malloc(NBYTES)
    pool.free(a)  # stream order protects it: no event needed
    assert pool.malloc(NBYTES).address == a.address


# ---- the same on a real GPU ------------------------------------------------------------
def cuda_scenario(skip_stream_events: bool):
    import torch
    from runtime_core.allocator.backends.cuda import CudaBackend
    pool = CachingPool(CudaBackend(64 * MiB), skip_stream_events=skip_stream_events)
    side = torch.cuda.Stream()
    n = 1 << 20
    a = pool.malloc(4 * n)
    a_t = pool.view(a).view(torch.float32)
    a_t.fill_(1.0)
    out = torch.empty(n, device="cuda")
    side.wait_stream(torch.cuda.current_stream())  # the fill and `out` are ready for the side stream
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # ≈ 25 ms at ≈2000 cycles/µs
        out.copy_(a_t)
    pool.record_stream(a, side)
    pool.free(a)
    b = pool.malloc(4 * n)
    pool.view(b).view(torch.float32).fill_(7.0)  # default stream: runs while the side stream sleeps
    reused_early = b.address == a.address
    torch.cuda.synchronize()
    return reused_early, out


@pytest.mark.gpu
def test_cuda_freed_block_not_reused_before_stream_event():
    reused_early, out = cuda_scenario(skip_stream_events=False)
    assert not reused_early
    assert bool((out == 1.0).all())


@pytest.mark.gpu
def test_cuda_skipping_the_event_corrupts_data():
    reused_early, out = cuda_scenario(skip_stream_events=True)
    assert reused_early
    assert bool((out == 7.0).all())


def test_playground_follows_pytorchs_stream_rules():
    """Same-stream free: reusable at once. Side stream with record_stream: parked until its event.
    Side stream without record_stream: reusable at once, and the next malloc's write races."""
    from runtime_core.allocator.playground import Playground
    pg = Playground()
    pg.malloc(4096)
    address = pg.live[-1].address
    pg.free_newest()
    pg.malloc(4096)
    assert pg.live[-1].address == address and not pg.device.races.found  # same stream, no event, no race
    pg.use_on_side_then_free(1000.0, record_stream=True)
    assert pg.pool.stats()["blocks_awaiting_events"] == 1
    pg.malloc(4096)
    assert pg.live[-1].address != address and not pg.device.races.found
    pg.advance(2000.0)
    assert pg.pool.stats()["blocks_awaiting_events"] == 0
    pg = Playground()
    pg.malloc(4096)
    address = pg.live[-1].address
    pg.use_on_side_then_free(1000.0, record_stream=False)
    assert pg.pool.stats()["blocks_awaiting_events"] == 0
    pg.malloc(4096)
    assert pg.live[-1].address == address  # handed out again while the side stream still reads it
    assert pg.device.races.found and "RACE" in pg.log[-1]


def test_a_failed_malloc_is_the_last_line_and_a_race_is_kept_after_the_log_moves_on():
    """An out-of-memory malloc left "Last: malloc 12,582,912 B → block at …" (the previous,
    successful one) under the red box; the race line was clipped and gone after the next click."""
    import pytest
    from runtime_core.allocator.errors import AllocatorOOM
    from runtime_core.allocator.playground import Playground
    pg = Playground()
    with pytest.raises(AllocatorOOM):
        for _ in range(10):
            pg.malloc(12 * 1024 * 1024)
    assert pg.log[-1].startswith("malloc 12,582,912 B failed: ")
    pg = Playground()
    pg.malloc(4096)
    pg.use_on_side_then_free(1000.0, record_stream=False)
    pg.malloc(4096)
    pg.advance(1000.0)
    assert len(pg.races) == 1 and "race" in pg.races[0].lower() and "RACE" not in pg.log[-1]


def test_a_malloc_that_had_to_wait_for_a_parked_block_says_so():
    """A full pool with a block parked behind a side-stream event: the next malloc waits for it,
    gives the segment back and reserves again, as PyTorch does; its log line used to say only
    where the block landed, so the parked block seemed to vanish."""
    from runtime_core.allocator.playground import Playground
    pg = Playground()
    for _ in range(5):
        pg.malloc(12 * MiB)
    assert "no room" not in pg.log[-1]
    pg.use_on_side_then_free(record_stream=True)
    pg.malloc(12 * MiB)
    assert "first it found no room: it waited" in pg.log[-1] and "num_alloc_retries 1" in pg.log[-1], pg.log[-1]
    assert "the parked block's side-stream event" in pg.log[-1]
    again = Playground()                     # no block parked: the retry only gives free segments back
    for _ in range(5):
        again.malloc(12 * MiB)
    again.free_newest()
    again.free_newest()
    again.malloc(20 * MiB)
    assert "first it found no room: gave 2 free segments back" in again.log[-1], again.log[-1]

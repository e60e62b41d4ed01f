"""A graph-safe pool: the same addresses on every replay, for our GraphPool and for CUDA graphs."""
import pytest

from runtime_core.allocator import CachingPool, HostArenaBackend
from runtime_core.allocator.graph_pool import GraphPool, GraphReplayMismatch
from runtime_core.allocator.sizes import KiB, MiB


def forward(pool):
    """An allocation sequence like a forward: temporaries freed as soon as they are read."""
    h1 = pool.malloc(300 * KiB)
    h2 = pool.malloc(3 * MiB)
    pool.free(h1)
    h3 = pool.malloc(100 * KiB)
    pool.free(h2)
    return h3


def test_graph_pool_replays_identical_addresses_while_others_allocate():
    backend = HostArenaBackend(256 * MiB)
    graph_pool, shared = GraphPool(backend), CachingPool(backend)
    captured = graph_pool.capture(forward)
    for i in range(3):
        shared.malloc((i + 1) * 200 * KiB)  # other code keeps allocating in between
        assert graph_pool.replay(forward) == captured


def test_a_shared_pool_does_not_keep_addresses_stable():
    """Why the private pool exists: in a shared pool, others take the blocks in between."""
    pool = CachingPool(HostArenaBackend(256 * MiB))
    first = forward(pool)
    address = first.address
    pool.free(first)
    again = forward(pool)
    assert again.address == address  # alone, a caching pool happens to repeat itself...
    pool.free(again)
    pool.malloc(100 * KiB)           # ...until someone else takes that memory in between
    assert forward(pool).address != address


def test_a_different_allocation_sequence_is_refused():
    graph_pool = GraphPool(HostArenaBackend(256 * MiB))
    graph_pool.capture(forward)
    with pytest.raises(GraphReplayMismatch):
        graph_pool.replay(lambda p: p.malloc(1 * MiB))


@pytest.mark.gpu
def test_cuda_graph_private_pool_addresses_are_stable():
    from runtime_core.allocator.graph_pool import cuda_graph_pool_check
    r = cuda_graph_pool_check(replays=5)
    assert r["stable"] and len(r["ptrs_per_replay"]) == 5
    assert r["max_abs_error"] < 1e-4  # each replay computed the new input's answer
    assert r["allocated_bytes_after"] == r["allocated_bytes_before"]  # replays allocate nothing
    assert not r["outside_alloc_on_graph_address"]

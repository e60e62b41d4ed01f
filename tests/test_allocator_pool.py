"""Specification of CachingPool's policy: sizes, segments, split/merge, stats, errors, modes."""
import pytest

from runtime_core.allocator import (AllocatorOOM, BadAllocSize, CachingPool, HostArenaBackend,
                                    FREE)
from runtime_core.allocator.labs import expandable_comparison, run_order
from runtime_core.allocator.sizes import GiB, KiB, MiB, round_size, segment_bytes


def new_pool(capacity=256 * MiB, **kw):
    return CachingPool(HostArenaBackend(capacity), **kw)


@pytest.mark.parametrize("request_bytes,rounded", [(1, 512), (512, 512), (513, 1024), (1000, 1024)])
def test_sizes_round_up_to_512_bytes(request_bytes, rounded):
    assert round_size(request_bytes) == rounded
    pool = new_pool()
    assert pool.malloc(request_bytes).size_bytes == rounded


@pytest.mark.parametrize("request_bytes,seg_bytes", [
    (4 * KiB, 2 * MiB), (1 * MiB, 2 * MiB),          # small pool: 2 MiB segments
    (1 * MiB + 1, 20 * MiB), (9 * MiB, 20 * MiB),     # mid-size: shared 20 MiB segments
    (10 * MiB, 10 * MiB), (11 * MiB, 12 * MiB),       # large: own segment, rounded to 2 MiB
])
def test_segment_sizes_follow_pytorch_rules(request_bytes, seg_bytes):
    assert segment_bytes(round_size(request_bytes)) == seg_bytes
    pool = new_pool()
    pool.malloc(request_bytes)
    assert [s.size_bytes for s in pool.segments] == [seg_bytes]


def test_small_requests_share_one_segment_and_do_not_overlap():
    pool = new_pool()
    blocks = [pool.malloc(10_000) for _ in range(100)]  # 100 x 10 KiB fit in one 2 MiB segment
    assert len(pool.segments) == 1 and pool.backend.driver_mallocs == 1
    spans = sorted((b.address, b.address + b.size_bytes) for b in blocks)
    assert all(end <= nxt for (_, end), (nxt, _) in zip(spans, spans[1:]))
    assert all(b.address % 512 == 0 for b in blocks)


def test_small_and_mid_requests_use_separate_pools():
    pool = new_pool()
    pool.malloc(4 * KiB)
    pool.malloc(2 * MiB)
    assert sorted(s.kind for s in pool.segments) == ["large", "small"]


def test_free_merges_neighbours_back_into_one_block():
    pool = new_pool()
    a, b, c = (pool.malloc(100 * KiB) for _ in range(3))
    seg = a.segment
    assert len(seg.blocks()) == 4  # a, b, c, and the free rest
    pool.free(a)
    pool.free(c)  # merges with the free rest
    assert [x.state for x in seg.blocks()] == [FREE, "allocated", FREE]
    pool.free(b)  # merges with both sides
    assert len(seg.blocks()) == 1 and seg.first.size_bytes == 2 * MiB


def test_best_fit_picks_the_smallest_hole_that_fits():
    pool = new_pool()
    blocks = [pool.malloc(n) for n in (300 * KiB, 10 * KiB, 100 * KiB, 10 * KiB)]
    pool.free(blocks[0])
    pool.free(blocks[2])  # holes of 300 KiB and 100 KiB
    assert pool.malloc(90 * KiB).address == blocks[2].address


def test_free_makes_no_driver_call_and_reuses_the_block():
    pool = new_pool()
    a = pool.malloc(3 * MiB)
    pool.free(a)
    b = pool.malloc(3 * MiB)
    assert b.address == a.address
    assert (pool.backend.driver_mallocs, pool.backend.driver_frees) == (1, 0)


def test_stats_add_up():
    pool = new_pool()
    blocks = [pool.malloc(n) for n in (1000, 5 * MiB, 12 * MiB, 700 * KiB)]
    pool.free(blocks[1])
    s = pool.stats()
    live = [b for i, b in enumerate(blocks) if i != 1]
    assert s["allocated_bytes.current"] == sum(b.size_bytes for b in live)
    assert s["allocated_bytes.peak"] == sum(b.size_bytes for b in blocks)
    assert s["reserved_bytes.current"] == sum(seg.size_bytes for seg in pool.segments)
    assert s["reserved_bytes.current"] == pool.backend.reserved_bytes
    assert s["free_bytes"] + s["allocated_bytes.current"] == s["reserved_bytes.current"]
    assert 0.0 <= s["fragmentation"] < 1.0


def test_empty_cache_releases_only_wholly_free_segments():
    pool = new_pool()
    keep, drop = pool.malloc(4 * KiB), pool.malloc(12 * MiB)
    pool.free(drop)
    assert pool.empty_cache() == 12 * MiB
    assert pool.backend.driver_frees == 1 and len(pool.segments) == 1
    assert pool.stats()["reserved_bytes.current"] == 2 * MiB
    assert keep.segment in pool.segments


@pytest.mark.parametrize("bad", [0, -1, 1.5, "10", None, True, 10 * GiB])
def test_bad_sizes_raise_a_typed_value_error(bad):
    pool = new_pool(capacity=1 * GiB)
    with pytest.raises(BadAllocSize) as err:
        pool.malloc(bad)
    assert isinstance(err.value, ValueError) and str(err.value)


def test_double_free_is_refused():
    pool = new_pool()
    a = pool.malloc(1000)
    pool.free(a)
    with pytest.raises(ValueError, match="not allocated"):
        pool.free(a)


def test_oom_is_typed_and_states_the_numbers():
    pool = new_pool(capacity=64 * MiB)
    pool.malloc(40 * MiB)
    with pytest.raises(AllocatorOOM) as err:
        pool.malloc(30 * MiB)
    e = err.value
    assert (e.requested_bytes, e.reserved_bytes, e.capacity_bytes) == (30 * MiB, 40 * MiB, 64 * MiB)
    assert not e.fragmented
    for words in ("tried to allocate 30.00 MiB", "free", "largest free block", "40.00 MiB reserved"):
        assert words in str(e)


def test_oom_with_gigabytes_free_when_fragmented():
    r = run_order("fragmenting", request=True)
    assert r["oom_fragmented"]
    s = r["stats"]
    assert s["free_bytes"] == 2 * GiB > 1 * GiB > s["largest_free_block_bytes"] == 512 * MiB
    assert "2.00 GiB free" in r["oom"] and "largest free block 512.00 MiB" in r["oom"]


def test_oom_retry_releases_cached_segments_first():
    pool = new_pool(capacity=64 * MiB)
    pool.free(pool.malloc(40 * MiB))  # cached, wholly free
    pool.malloc(50 * MiB)             # fits only after the cache is released
    assert pool.stats()["num_alloc_retries"] == 1 and pool.backend.driver_frees == 1


def test_expandable_fixes_the_fragmenting_order():
    assert run_order("non_fragmenting", request=True)["oom"] is None
    assert run_order("fragmenting", expandable=True, request=True)["oom"] is None


def test_expandable_reduces_reserved_bytes_for_a_growing_batch():
    growing = expandable_comparison()["growing"]
    # 11 to 25 MiB in one segment mapped in PyTorch's 20 MiB large-pool pages: two pages, as
    # PyTorch's own run of this order reserves (alloc_conf lab, H200)
    assert growing["expandable"]["reserved_peak_bytes"] == 40 * MiB
    assert growing["default"]["reserved_peak_bytes"] == sum(range(12, 27, 2)) * MiB
    assert growing["expandable"]["fragmentation"] < growing["default"]["fragmentation"]


def test_expandable_segment_grows_in_place_by_pages():
    pool = new_pool(expandable=True)
    a = pool.malloc(15 * MiB)
    b = pool.malloc(15 * MiB)
    assert len(pool.segments) == 1 and b.address == a.address + a.size_bytes
    # the large pool maps 20 MiB pages (PyTorch's kLargeBuffer): `a` leaves a 5 MiB free tail,
    # which `b` extends by one more page rather than taking a segment of its own
    assert a.size_bytes == 15 * MiB and pool.segments[0].size_bytes == 40 * MiB
    assert pool.backend.driver_mallocs == 2
    small = pool.malloc(512 * 1024)   # the small pool has its own segment, mapped in 2 MiB pages
    assert len(pool.segments) == 2 and min(seg.size_bytes for seg in pool.segments) == 2 * MiB
    pool.free(small)
    pool.free(b)
    pool.free(a)
    assert pool.empty_cache() == 42 * MiB and pool.segments == []


def test_the_simulated_orders_reserve_what_pytorchs_own_allocator_reserved_on_the_h200():
    """External truth: PyTorch's caching allocator ran the same orders on the H200 (alloc_h200.json,
    each setting in its own process); our pool must reserve the same peak and meet the same fate."""
    import json
    from pathlib import Path
    rec = Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "alloc_h200.json"
    torch_runs = json.loads(rec.read_text())["labs"]["alloc"]["expandable"]["torch"]
    ours = expandable_comparison()
    for order in ("fragmenting", "growing"):
        for mode in ("default", "expandable"):
            theirs, mine = torch_runs[order][mode], ours[order][mode]
            assert mine["reserved_peak_bytes"] == theirs["reserved_peak_bytes"], (order, mode)
            assert bool(mine.get("request_oom")) == bool(theirs.get("request_oom")), (order, mode)

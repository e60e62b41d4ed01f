"""Measured comparisons: steady-state driver calls, the empty_cache sawtooth, CUDA backends."""
import json

import pytest

from runtime_core.allocator.compare import caching_pool, measure_allocators
from runtime_core.allocator.hot_path import hot_path_sim
from runtime_core.allocator.sizes import MiB
from runtime_core.allocator.labs import ORDERS
from runtime_core.recordings.shipped import get_device
from runtime_core.recordings.store import RECORDINGS_DIR


def test_our_pool_makes_no_driver_malloc_in_steady_state():
    r = caching_pool(get_device("sim"), 1 * MiB)
    assert r["driver_mallocs_steady"] == 0 and r["alloc_free_us"] == 0  # no driver call: free on the sim
    assert r["measured_on"] == "simulated"


def test_cost_table_has_all_four_and_prices_only_driver_calls_on_the_simulator():
    table = measure_allocators(get_device("sim"), 64 * 1024)
    assert set(table) == {"plan_arena", "caching_pool", "torch", "raw"}
    assert all(v["measured_on"] == "simulated" for v in table.values())
    assert table["raw"]["driver_mallocs_steady"] == table["raw"]["steady_pairs"]
    # one malloc + one free, each priced at half the shipped H200 recording's measured pair
    recorded = json.loads((RECORDINGS_DIR / "alloc_h200.json").read_text())["labs"]["alloc"]["allocators"]["raw"]
    assert table["raw"]["alloc_free_us"] == pytest.approx(recorded["alloc_free_us"], abs=1e-3)
    assert table["plan_arena"]["alloc_free_us"] == table["caching_pool"]["alloc_free_us"] == 0


def test_empty_cache_every_step_pays_driver_calls_and_saws():
    cached = hot_path_sim(steps=5, empty_cache_each_step=False)
    sawing = hot_path_sim(steps=5, empty_cache_each_step=True)
    assert cached["driver_mallocs_after_first_step"] == 0
    assert sawing["driver_mallocs_after_first_step"] == 4 * (sawing["driver_mallocs"] // 5)
    reserved = [s[2] for s in sawing["samples"]]
    assert reserved.count(0) == 5 and max(reserved) > 0  # falls to zero after every step
    assert min(s[2] for s in cached["samples"][4:]) > 0
    assert sawing["wall_us"] > cached["wall_us"]
    first_launch = min(s[2] for s in sawing["spans"] if s[1] == "cudaLaunchKernel")
    assert any(s[1] == "cudaFree" for s in sawing["spans"])
    assert any(s[1] == "cudaMalloc" and s[3] <= first_launch for s in sawing["spans"])


@pytest.mark.gpu
def test_cuda_backend_malloc_free_and_view():
    import torch
    from runtime_core.allocator import CachingPool
    from runtime_core.allocator.backends.cuda import CudaBackend
    pool = CachingPool(CudaBackend(64 * MiB))
    a = pool.malloc(4096)
    t = pool.view(a).view(torch.float32)
    t.fill_(3.0)
    assert t.is_cuda and t.data_ptr() == a.address and float(t.sum()) == 3.0 * 1024
    pool.free(a)
    assert pool.empty_cache() == 2 * MiB and pool.backend.driver_frees == 1


@pytest.mark.gpu
def test_cuda_cost_table_and_pytorch_expandable_child():
    from runtime_core.allocator.torch_expandable import torch_expandable_comparison
    table = measure_allocators(get_device("cuda"), 1 * MiB)
    assert table["caching_pool"]["driver_mallocs_steady"] == 0
    assert table["torch"]["driver_mallocs_steady"] == 0
    assert table["raw"]["alloc_free_us"] > table["torch"]["alloc_free_us"]
    cmp = torch_expandable_comparison()
    for order in ("fragmenting", "growing"):
        for setting in ("default", "expandable"):
            assert "error" not in cmp[order][setting], cmp[order][setting]
    assert cmp["growing"]["expandable"]["reserved_peak_bytes"] <= cmp["growing"]["default"]["reserved_peak_bytes"]
    grows = sum(1 for step in ORDERS["growing"]["steps"] if step[0] == "malloc")  # each larger than the last freed
    assert cmp["growing"]["default"]["num_driver_mallocs"] == grows  # the order's own cudaMallocs, not the process's
    from runtime_core.allocator.labs import expandable_comparison
    ours = expandable_comparison()  # our pool's size rules against PyTorch's, on this GPU
    for order in ("fragmenting", "growing"):
        for setting in ("default", "expandable"):
            assert ours[order][setting]["reserved_peak_bytes"] == cmp[order][setting]["reserved_peak_bytes"]


def test_a_recording_that_counted_mallocs_from_the_process_start_shows_each_orders_own():
    """The H200's children counted cudaMallocs from their start, and ran the fragmenting order before
    the growing one: the growing order's 12 held the fragmenting order's 4 (17 and 9 under
    max_split_size_mb). Each of its 8 allocations is larger than any block freed before it, so it
    needs a segment of its own: 8 is the order's own count under every setting that uses segments."""
    from runtime_core.allocator.torch_expandable import comparison_per_order, per_order
    root = RECORDINGS_DIR
    grows = sum(1 for step in ORDERS["growing"]["steps"] if step[0] == "malloc")
    settings = json.loads((root / "labs_h200.json").read_text())["labs"]["alloc_conf"]["settings"]
    for name, child in settings.items():
        own = per_order(child)
        assert own["fragmenting"] == dict(child["fragmenting"], mallocs_counted="per order")  # the first order: as counted
        if name != "expandable_segments":   # expandable segments map pages instead: no cudaMalloc at all
            assert own["growing"]["num_driver_mallocs"] == grows, (name, own["growing"])
    torch_side = json.loads((root / "alloc_h200.json").read_text())["labs"]["alloc"]["expandable"]["torch"]
    fixed = comparison_per_order(torch_side)
    assert fixed["growing"]["default"]["num_driver_mallocs"] == grows
    assert fixed["growing"]["order"] == torch_side["growing"]["order"]
    assert per_order(own) == own and comparison_per_order(fixed) == fixed  # counted per order: left alone

"""GPU-only: the decoder worked example, reduce-overhead's cudagraph trees, the CUDA AOT package.

Collected everywhere (imports are CPU-safe); skipped without a CUDA device by tests/conftest.py.
"""
import math
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def test_our_graph_matches_raw_capture_speedup_and_shows_the_stale_input_bug():
    from runtime_core.aot.decoder_bench import run_decoder_bench
    r = run_decoder_bench(tokens=50, blocks=6, with_reduce_overhead=False)
    ms = {k: v["ms_per_token"] for k, v in r["variants"].items()}
    assert all(math.isfinite(v) and v > 0 for v in ms.values()), ms
    assert r["outputs_match_eager"] == {"our_graph": True, "raw_graph": True}
    assert r["our_vs_raw_speedup_ratio"] >= 0.9, r["speedup_vs_eager"]
    assert r["variants"]["our_graph"]["graph_launches_per_token"] == 1
    assert r["variants"]["eager"]["kernel_launches_per_token"] > 50
    stale = r["stale_input"]
    assert stale["fresh_tensor_max_abs_err"] > 1e-2      # the replay read the old token
    assert stale["copied_in_exact"] and stale["copied_in_max_abs_err"] == 0.0


def test_reduce_overhead_records_once_per_shape_and_reports_skips():
    from runtime_core.aot.reduce_overhead import run_reduce_overhead
    r = run_reduce_overhead(tokens=50)
    dec, halves, island = r["decoder"], r["graph_break"], r["cpu_island"]
    assert dec["recordings_batch1_all_positions"] == 1    # pos is data, not shape: one graph
    assert dec["recordings_for_new_batches"] >= 2         # batch 2 and 4: new shapes, new graphs
    assert math.isfinite(dec["ms_per_token"]) and dec["ms_per_token"] > 0
    assert halves["recordings_batch1_all_positions"] >= 2  # one graph per region
    assert halves["tree_nodes"] >= 2                       # two graphed regions in one tree (one pool)
    assert math.isfinite(halves["ms_per_token"])
    # The CPU-island model is reported, not asserted: on torch 2.11 (H200) it recorded one graph
    # and no cudagraph skip, because Dynamo splits the region at the host sync instead.
    assert island["recordings_total"] >= 1


def test_cuda_package_runs_in_the_cpp_runner_and_matches_eager(tmp_path):
    import torch
    from runtime_core.aot.coldwarm import ATOL, RTOL
    from runtime_core.aot.cpp_runner import run_cpp
    from runtime_core.aot.export import build_package
    from runtime_core.aot.models import make_mlp, mlp_input
    package = build_package("cuda")["package"]           # reused from .cache/aot/ when present
    x = mlp_input(5)
    r = run_cpp(Path(package), x.numpy(), "cuda", tmp_path)
    assert "error" not in r, r["error"]
    with torch.no_grad():
        want = make_mlp().cuda()(x.cuda()).cpu().numpy()
    assert np.allclose(r["output"], want, rtol=RTOL, atol=ATOL)

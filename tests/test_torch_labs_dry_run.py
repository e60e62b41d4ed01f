"""A code-path check of the torch-level labs' GPU side without a GPU: torch.cuda faked on the CPU
(tests/fake_cuda.py), sizes made small, the timing and the profiler stubbed. It runs every line a
GPU run takes to its judged, JSON-ready result, so a broken call fails here, before a GPU session
is spent on it. It checks the result's shape only: with no real capture, replay or stream, no
number or signal of it means anything, and none is recorded (the real run: test_torch_labs_gpu.py)."""
import json

import pytest
import torch

from runtime_core.engine.cuda.torch_labs import d2h_hazard as g_d2h, graph_rng as g_rng, \
    partial_capture as g_pc, training_step as g_ts
from runtime_core.labs import d2h_hazard, graph_rng, partial_capture, training_step

import fake_cuda

if torch.cuda.is_available():
    pytest.skip("a GPU is here: test_torch_labs_gpu.py runs the real thing", allow_module_level=True)


@pytest.fixture
def fake(monkeypatch):
    fake_cuda.install(monkeypatch)
    for mod in (g_pc, g_ts):
        monkeypatch.setattr(mod, "step_us", lambda fn, steps=1, repeats=1, warmup=0: (fn(), 1.0)[1])
    monkeypatch.setattr(g_pc, "launch_counts", lambda fn, steps=1: {"kernel_launches": 1.0, "graph_launches": 0.0,
                                                                       "gpu_kernels": 1.0})
    for mod, sizes in ((g_pc, {"WIDTH": 16, "BATCH": 4, "LAYERS": 2}), (g_ts, {"WIDTH": 8, "BATCH": 4, "STEPS": 4}),
                       (g_rng, {"NUMEL": 256}),
                       (g_d2h, {"NUMEL": 256, "BG_NUMEL": 1024, "BG_KERNELS": 2, "PRIORITY_TRIALS": 2})):
        for k, v in sizes.items():
            monkeypatch.setattr(mod, k, v)
    return monkeypatch


KEYS = {
    "partial_capture": {"eager_us", "partial_us", "whole_fixed_us", "whole_capture_error", "partial_rel_errs",
                        "fixed_branch_rel_errs", "parts", "launches_removed", "saving_us"},
    "training_step": {"eager_losses", "graph_losses", "eager_step_us", "graph_step_us", "stale_target",
                      "without_capturable", "copied_rel_gap", "stale_reported_vs_true_gap"},
    "graph_rng": {"eager", "in_graph", "registered", "host_mask", "unregistered", "philox_offsets", "offset_steps"},
    "d2h_hazard": {"ways", "stale", "issue_us", "priority", "priority_measurable"},
}


@pytest.mark.parametrize("lab", [partial_capture, training_step, graph_rng, d2h_hazard], ids=lambda m: m.__name__)
def test_the_gpu_code_path_runs_to_a_judged_result(fake, lab):
    name = lab.__name__.rsplit(".", 1)[-1]
    if name == "training_step":  # Adam's CPU path reads its step count with .item() (capturable=True does not)
        fake.setattr(torch.Tensor, "item", fake_cuda._real_item)
    with fake_cuda.CpuMode():
        r = lab._live()
    json.dumps(r, allow_nan=False)
    assert (r["lab"], r["backend"], r["source"]) == (name, "cuda", "live")
    assert KEYS[name] <= set(r), KEYS[name] - set(r)
    assert isinstance(r["signal"], bool) and r["verdict"]
    failed = {k: v["error"] for k, v in r.items() if isinstance(v, dict) and v.get("error")
              and k not in ("unregistered", "without_capturable")}   # those two are failures the lab asks for
    assert not failed, failed


def test_a_capture_across_item_fails_and_is_reported(fake):
    with fake_cuda.CpuMode():
        r = partial_capture._live()
    assert "stream is capturing" in r["whole_capture_error"]
    assert r["parts"][1]["why"] == r["whole_capture_error"]

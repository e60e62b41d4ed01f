"""The four torch-level labs on a real GPU (skipped without CUDA): each runs live and shows its
signal, and its fix works. tests/gpu_runs/session12_labs.sh runs this file after recording them."""
import json

import pytest

from runtime_core.labs import run_lab, training_step

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def live():
    return {}


def _run(live, name):
    if name not in live:
        live[name] = run_lab(name, "cuda")
        json.dumps(live[name], allow_nan=False)
    return live[name]


def test_partial_capture_graphs_the_static_parts_and_saves_launches(live):
    r = _run(live, "partial_capture")
    assert (r["backend"], r["source"]) == ("cuda", "live")
    assert r["whole_capture_error"], "a capture across .item() should fail"
    assert r["partial_matches_eager"], r["partial_rel_errs"]
    assert r["partial_us"] < r["eager_us"]
    assert r["fixed_branch_wrong_inputs"] == sum(t != r["branch_a_taken"][0] for t in r["branch_a_taken"])
    if r["launches_removed"] is not None:
        assert r["launches_removed"] > 0
    assert r["signal"] is True, r["verdict"]


def test_training_step_in_one_graph_needs_capturable_and_a_copied_target(live):
    r = _run(live, "training_step")
    assert r["capture_error"] is None
    assert r["capturable_false_raised"] and "capturable" in r["without_capturable"]["error"]
    assert r["copied_rel_gap"] < training_step.SAME_REL, (r["graph_losses"], r["eager_losses"])
    assert r["stale_reported_vs_true_gap"] > training_step.STALE_REL
    assert r["graph_step_us"] < r["eager_step_us"]
    assert r["signal"] is True, r["verdict"]


def test_graph_rng_draws_a_new_mask_each_replay_and_freezes_a_host_mask(live):
    r = _run(live, "graph_rng")
    assert r["in_graph_fresh"] and r["registered_fresh"], (r["in_graph"], r["registered"])
    assert r["unregistered_raised"] and "offset" in r["unregistered"]["error"].lower()
    assert r["host_mask_frozen"], r["host_mask"]
    assert 0.4 < r["in_graph"]["kept_fraction"] < 0.6
    # r["offset_steps"]: the default generator's Philox offset after each replay, recorded as torch reports it
    assert r["signal"] is True, r["verdict"]


def test_d2h_read_before_the_sync_is_stale_and_the_event_fixes_it(live):
    r = _run(live, "d2h_hazard")
    assert r["stale"]["early"] > 0 and r["stale"]["to_cpu"] is not None   # to_cpu: recorded as it comes
    assert r["stale"]["event"] == 0 and r["stale"]["sync_after"] == 0
    assert r["issue_us"]["non_blocking"] < r["issue_us"]["blocking"]
    assert r["priority_measurable"] in (True, False), r["priority"]   # measured, either way
    assert r["signal"] is True, r["verdict"]

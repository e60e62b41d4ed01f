"""The four torch-level labs (issue 28) without a GPU: partial_capture, training_step, graph_rng,
d2h_hazard. Their captures need CUDA (tests/test_torch_labs_gpu.py runs them there); here:
- the result without a recording says the H200 recording is owed, with no number in it;
- the mechanism's tensor arithmetic on CPU tensors where it has a meaning off the GPU (a training
  step reading its static buffers, a mask drawn once vs drawn each call, the network's branch),
  labelled as such: none of it is a capture or a replay;
- judging and rendering of SYNTHETIC raw results (tests/fixtures/torch_labs_synthetic.py, marked
  as fixtures in their device name), and the merge into the labs recording."""
import json
import shutil
import sys
from pathlib import Path

import pytest
import torch

from runtime_core.labs import GPU_ONLY, REPLAYS_A_RECORDING, d2h_hazard, graph_rng, partial_capture, run_lab, \
    training_step
from runtime_core.lesson import figures, lab_text
from runtime_core.recordings import store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
sys.path.insert(0, str(ROOT / "tests" / "gpu_runs"))
import torch_labs_synthetic as fx  # noqa: E402

LABS = {"partial_capture": partial_capture, "training_step": training_step, "graph_rng": graph_rng,
        "d2h_hazard": d2h_hazard}


def test_the_four_labs_are_gpu_only_and_replay_a_recording():
    assert GPU_ONLY == set(LABS) and GPU_ONLY <= REPLAYS_A_RECORDING


@pytest.fixture(scope="module")
def without_these_labs(tmp_path_factory) -> Path:
    """The shipped recordings without the four labs (conftest.recordings_without), written once for
    the tests here that only read it: a folder made per test had every recording in it parsed and
    validated again (store caches a file by path and mtime), seconds a test."""
    from conftest import recordings_without
    return recordings_without(tmp_path_factory.mktemp("without-labs"), LABS)


@pytest.mark.parametrize("name", sorted(LABS))
def test_without_a_recording_the_lab_says_it_is_owed_and_holds_no_number(name, without_these_labs, monkeypatch):
    monkeypatch.setenv(store.DIR_ENV, str(without_these_labs))
    r = run_lab(name, "sim")
    assert r["owed_recording"] is True and r["signal"] is False and r["source"] == "recorded"
    assert "Not recorded yet" in r["verdict"]
    assert "session12_labs.sh" in r["record_command"] and "merge_labs28.py" in r["merge_command"]
    assert not [v for v in r.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]


def test_the_cuda_backend_without_a_gpu_is_one_usage_error():
    from runtime_core.errors import UsageError
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(UsageError):
        run_lab("graph_rng", "cuda")


# ---- the mechanisms' arithmetic on CPU tensors (no capture, no replay) -----------------------
def _cpu_step(copy_target: bool):
    """CPU stand-in for a replay: the training step as a closure over its static buffers (what a
    captured graph reads), grads set to None before each call (what the graph's backward does)."""
    from runtime_core.engine.cuda.torch_labs import training_step as ts
    data = ts.batches("cpu")
    model = ts.make_model("cpu")
    opt = torch.optim.Adam(model.parameters(), lr=ts.LR)
    step = ts.TrainStep(model, opt, data[0][0].clone(), data[0][1].clone())

    def call():
        opt.zero_grad(set_to_none=True)
        step()
    return ts.replay_losses(call, step, data, copy_target), ts.eager_losses("cpu", data)


def test_cpu_a_step_over_static_buffers_trains_on_a_rebound_target_never_seen():
    (reported, true), eager = _cpu_step(copy_target=False)
    assert reported[0] == pytest.approx(true[0])          # step 1: the first target is the static one
    gaps = [abs(a - b) / b for a, b in zip(reported, true)]
    assert max(gaps[1:]) > training_step.STALE_REL        # then the reported loss is not the real one
    judged = training_step.rel_gap(reported, true)
    assert judged == pytest.approx(max(gaps))


def test_cpu_a_step_over_static_buffers_with_the_target_copied_in_trains_as_eager():
    (reported, true), eager = _cpu_step(copy_target=True)
    assert training_step.rel_gap(reported, eager) < training_step.SAME_REL
    assert reported == pytest.approx(true)


def test_cpu_mask_statistics_tell_a_fresh_mask_from_a_frozen_one():
    from runtime_core.engine.cuda.torch_labs.graph_rng import mask_stats
    g = torch.Generator().manual_seed(0)
    fresh = mask_stats([torch.rand(4096, generator=g) >= 0.5 for _ in range(8)])   # drawn each call
    once = torch.rand(4096, generator=g) >= 0.5
    frozen = mask_stats([once.clone() for _ in range(8)])                          # drawn before
    assert graph_rng.fresh(fresh) and not graph_rng.frozen(fresh)
    assert 0.4 < fresh["mean_agreement"] < 0.6 and 0.45 < fresh["kept_fraction"] < 0.55
    assert graph_rng.frozen(frozen) and frozen["mean_agreement"] == 1.0


def test_cpu_the_network_splits_its_requests_and_a_fixed_branch_is_wrong_for_the_others():
    from runtime_core.engine.cuda.torch_labs import partial_capture as pc
    net, xs = pc.build("cpu", width=64, layers=3, batch=4)
    taken = pc.branches(net, xs)
    assert sorted(taken) == [False, False, True, True]
    with torch.no_grad():
        ref = [net(x) for x in xs]
        fixed = [net.forward_fixed(x, taken[0]) for x in xs]
        parts = [net.tail(net.middle(net.head(x))) for x in xs]
    errs = [pc.rel_err(f, r) for f, r in zip(fixed, ref)]
    assert all((e == 0) == (t == taken[0]) for e, t in zip(errs, taken))
    assert sum(e > partial_capture.WRONG_TOL for e in errs) == 2
    assert all(pc.rel_err(p, r) == 0 for p, r in zip(parts, ref))


# ---- judging synthetic raw results (fixtures, not measurements) ------------------------------
def test_judge_partial_capture_from_a_fixture():
    r = partial_capture.judge(fx.partial_capture())
    assert r["signal"] and r["saving_us"] == 200.0 and r["launches_removed"] == 46
    assert r["fixed_branch_wrong_inputs"] == 2 and r["partial_matches_eager"]
    assert [p["captured"] for p in r["parts"]] == [True, False, False, True]
    assert "stream is capturing" in r["parts"][1]["why"]
    assert not partial_capture.judge(fx.partial_capture(whole_capture_error=None))["signal"]
    assert not partial_capture.judge(fx.partial_capture(partial_rel_errs=[0.0, 0.3, 0.0, 0.0]))["signal"]


def test_judge_training_step_from_a_fixture():
    r = training_step.judge(fx.training_step())
    assert r["signal"] and r["fix_exact"] and r["capturable_false_raised"] and r["speedup"] == 6.0
    assert r["copied_rel_gap"] == 0.0 and r["stale_reported_vs_true_gap"] > 0.5
    assert not training_step.judge(fx.training_step(graph_losses=[3.0] * 6))["signal"]   # the fix must match
    same = fx.training_step(stale_target={"reported_losses": [1.0] * 6, "true_losses": [1.0] * 6})
    assert not training_step.judge(same)["signal"]


def test_judge_graph_rng_from_a_fixture():
    r = graph_rng.judge(fx.graph_rng())
    assert r["signal"] and r["host_mask_frozen"] and r["unregistered_raised"] and r["offset_steps"] == [4, 4, 4]
    assert not graph_rng.judge(fx.graph_rng(host_mask=fx._stats(8, 0.5)))["signal"]
    assert not graph_rng.judge(fx.graph_rng(in_graph=fx._stats(1, 1.0)))["signal"]


def test_judge_d2h_hazard_from_a_fixture_and_priorities_either_way():
    r = d2h_hazard.judge(fx.d2h_hazard())
    assert r["signal"] and r["fix_exact"] and r["priority_measurable"] is True
    assert "measurably sooner" in r["verdict"]
    flat = d2h_hazard.judge(fx.d2h_hazard(priority={"normal_us": 40.0, "high_us": 39.0}))
    assert flat["priority_measurable"] is False and "2.5% sooner, short of the 20%" in flat["verdict"]
    # 22.5% sooner but only 4.5 µs: the verdict names the µs test, the one that failed
    small = d2h_hazard.judge(fx.d2h_hazard(priority={"normal_us": 20.0, "high_us": 15.5}))
    assert small["verdict"].endswith("4.5 µs sooner, short of the 5 µs this lab asks of a clear gain.")
    slower = d2h_hazard.judge(fx.d2h_hazard(priority={"normal_us": 40.0, "high_us": 41.0}))
    assert slower["verdict"].endswith("no sooner.")
    # a 14% gap is not "no measurable difference": the verdict names the gap and the rule
    near = d2h_hazard.judge(fx.d2h_hazard(priority={"normal_us": 127.5, "high_us": 109.7}))
    assert "14.0% sooner" in near["verdict"] and "no measurable difference" not in near["verdict"]
    # labs.json words the rule as "a fifth": it must follow PRIORITY_GAIN
    assert d2h_hazard.PRIORITY_GAIN == 0.8 and "fifth" in lab_text.text("d2h_hazard", "priority_not_measurable")
    failed = d2h_hazard.judge(fx.d2h_hazard(priority={"error": "RuntimeError: x"}))
    assert failed["priority_measurable"] is None
    ways = fx.d2h_hazard()["ways"]
    assert not d2h_hazard.judge(fx.d2h_hazard(ways=dict(ways, event={"stale_trials": 1})))["signal"]


@pytest.mark.parametrize("name", sorted(LABS))
def test_a_judged_fixture_is_plain_json_with_the_header_keys(name):
    r = LABS[name].judge(getattr(fx, name)())
    assert {"lab", "backend", "source", "device_name", "signal", "verdict"} <= set(r)
    assert (r["lab"], r["backend"], r["source"]) == (name, "cuda", "live")
    assert fx.FIXTURE_GPU in r["device_name"]
    json.dumps(r, allow_nan=False)


# ---- a recording of the fixtures: figures, merge, pages --------------------------------------
def _merged_recordings(folder: Path, monkeypatch) -> Path:
    """`folder`: a copy of the shipped recordings with the four judged fixtures merged into
    labs_h200.json by tests/gpu_runs/merge_labs28.py (its target pointed at the copy)."""
    import merge_labs28
    for path in (ROOT / "lessons" / "recordings").glob("*.json"):
        shutil.copy(path, folder)
    files = []
    for name, mod in LABS.items():
        f = folder / "in" / f"{name}.json"
        f.parent.mkdir(exist_ok=True)
        f.write_text(json.dumps({"recorded_at": "2026-12-02T10:00:00Z", "result": mod.judge(getattr(fx, name)())}))
        files.append(str(f))
    bad = folder / "in" / "broken.json"
    bad.write_text(json.dumps({"recorded_at": "2026-12-02T10:00:00Z", "error": "RuntimeError: boom"}))
    monkeypatch.setattr(merge_labs28, "TARGET", folder / "labs_h200.json")
    assert merge_labs28.main(*files, str(bad)) == 0
    return folder


@pytest.fixture(scope="module")
def merged_once(tmp_path_factory) -> Path:
    """_merged_recordings made once for the tests here that only read it (the merge runs as before;
    a folder made per test had every recording in it parsed and validated again)."""
    with pytest.MonkeyPatch.context() as mp:
        return _merged_recordings(tmp_path_factory.mktemp("merged"), mp)


@pytest.fixture
def fixture_recordings(merged_once, monkeypatch):
    """The recordings folder: the shipped recordings with the four judged fixtures merged in."""
    monkeypatch.setenv(store.DIR_ENV, str(merged_once))
    return merged_once


@pytest.fixture
def own_fixture_recordings(tmp_path, monkeypatch):
    """fixture_recordings in a folder of this test's own, for a test that edits the files in it."""
    monkeypatch.setenv(store.DIR_ENV, str(_merged_recordings(tmp_path, monkeypatch)))
    return tmp_path


def test_the_merge_adds_each_lab_with_its_date_and_leaves_the_rest(fixture_recordings):
    doc = json.loads((fixture_recordings / "labs_h200.json").read_text())
    shipped = json.loads((ROOT / "lessons" / "recordings" / "labs_h200.json").read_text())
    assert set(doc["labs"]) == set(shipped["labs"]) | set(LABS)
    assert doc["meta"]["recorded_at"] == shipped["meta"]["recorded_at"]
    parts, before = doc["meta"]["parts_recorded_at"], shipped["meta"].get("parts_recorded_at") or {}
    assert {n: parts[n] for n in LABS} == {n: "2026-12-02T10:00:00Z" for n in LABS}
    assert {n: d for n, d in parts.items() if n not in LABS} == {n: d for n, d in before.items() if n not in LABS}
    r = run_lab("graph_rng", "sim")
    assert r["source"] == "recorded" and not r.get("owed_recording") and fx.FIXTURE_GPU in r["device_name"]
    assert "2026-12-02" in r["device_name"]


def test_the_figures_render_once_recorded_and_say_not_recorded_before(fixture_recordings, without_these_labs):
    recs = figures.shipped_recordings()
    assert figures.field_text("labs.training_step_speedup", recs) == "6.0×"
    assert figures.field_text("labs.partial_capture_eager_us", recs) == "300 µs"
    assert lab_text.priority_key(recs) == "priority_measurable"
    before = without_these_labs
    for name in [n for n in figures.FIGURES if n.startswith(tuple(f"labs.{lab}" for lab in ("partial_capture",
                                                                                             "training_step", "graph_rng",
                                                                                             "d2h")))]:
        assert figures.field_text(name, {"labs": store.best("labs", before)}) == figures.NOT_RECORDED, name


def _text(at) -> str:
    return "\n".join(str(e.value) for kind in ("markdown", "caption", "warning", "success", "info", "code")
                     for e in getattr(at, kind))


@pytest.mark.slow
def test_page_4_says_the_recording_is_owed_without_one(without_these_labs, monkeypatch):
    from conftest import open_page
    import streamlit as st
    monkeypatch.setenv(store.DIR_ENV, str(without_these_labs))
    st.cache_data.clear()
    at = open_page("pages/4_CUDA_graphs.py")
    assert "Labs: graphs around real torch code" in [s.value for s in at.subheader]
    for name in ("partial_capture", "training_step", "graph_rng"):
        at = at.button(key=f"lab_run_{name}_s4").click().run()
        assert not at.exception, at.exception
    from conftest import tables_of
    assert _text(at).count("Not recorded yet") == 3
    assert sum("session12_labs.sh" in c.value for c in at.code) == 3   # the command that records each
    assert not [df for df in tables_of(at) if "why" in df.columns]   # no numbers drawn: none were measured


@pytest.mark.slow
def test_pages_2_and_4_draw_the_labs_from_a_recording_of_the_fixtures(fixture_recordings):
    from conftest import open_page, tables_of
    import streamlit as st
    st.cache_data.clear()
    at = open_page("pages/4_CUDA_graphs.py")
    for name in ("partial_capture", "training_step", "graph_rng"):
        at = at.button(key=f"lab_run_{name}_s4").click().run()
        assert not at.exception, at.exception
    text = _text(at)
    assert "Not recorded yet" not in text and "SYNTHETIC TEST FIXTURE" in text  # the badge (escaped)
    assert "In the H200 recording a step took 300 µs eager" in text
    cols = [set(df.columns) for df in tables_of(at)]
    assert {"part", "captured", "why"} in cols and any("graph, target copied in" in c for c in cols)
    at = open_page("pages/2_Streams_and_async.py").button(key="lab_run_d2h_hazard_s2").click().run()
    assert not at.exception, at.exception
    text = _text(at)
    assert "stale values in 6 of 6 trials" in text and lab_text.text("d2h_hazard", "priority_measurable") in text



@pytest.mark.slow
def test_hostile_text_in_a_recording_of_these_labs_renders_inert(own_fixture_recordings):
    """Strings and numbers-as-text a recording of these labs could carry, drawn as text only."""
    from conftest import open_page
    from hostile import live_findings
    import streamlit as st
    link, image = "[log in again](https://evil.example/login)", "![x](https://evil.example/a.png)"
    path = own_fixture_recordings / "labs_h200.json"
    doc = json.loads(path.read_text())
    pc, rng = doc["labs"]["partial_capture"], doc["labs"]["graph_rng"]
    pc["parts"][1]["why"], pc["eager_us"], pc["env"]["gpu"] = link, image, link
    rng["unregistered"]["error"], rng["in_graph"]["distinct_masks"] = image, link
    path.write_text(json.dumps(doc))
    st.cache_data.clear()
    at = open_page("pages/4_CUDA_graphs.py")
    for name in ("partial_capture", "graph_rng"):
        at = at.button(key=f"lab_run_{name}_s4").click().run()
        assert not at.exception, at.exception
    _, live = live_findings(at)
    assert not live, live

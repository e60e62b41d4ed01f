"""Diagnose recordings: the simulated fixture validates and is labelled simulated, a recording
resumes after its budget runs out and refuses to overwrite, and a shipped GPU recording (once one
exists) meets the issue's targets."""
import json

import pytest

from runtime_core.diagnose import record
from runtime_core.diagnose.records import SIM_FIXTURE, DiagnoseRecording, recording_set
from runtime_core.diagnose.runners.sim import SimRunner
from runtime_core.errors import RecordingError, UsageError
from runtime_core.recordings import store

REQUIRED = ("model", "batch", "dtype", "predicted_graph_speedup", "measured_graph_speedup")


def test_the_simulated_fixture_is_a_valid_recording_labelled_simulated():
    rec = DiagnoseRecording.load(SIM_FIXTURE)
    assert rec.meta.kind == "diagnose" and rec.meta.backend == "sim" and rec.meta.simulated
    assert "simulated" in rec.meta.device_name.lower() and rec.meta.complete
    assert all(m.startswith("fake-") for m in rec.models())
    for p in rec.points:
        assert all(p.get(k) is not None for k in REQUIRED)
    assert [p["batch"] for p in rec.sweep("fake-cnn")] == [2 ** i for i in range(10)]
    assert len(rec.token_sweep("fake-encoder")) == 7
    assert rec.timeline("fake-cnn", "fp32", 1, 32, "eager") and rec.planner_case("fake-cnn", "zipf")


@pytest.mark.parametrize("damage", ["truncate", "no_points", "point_without_speedup", "bad_dtype"])
def test_a_damaged_diagnose_recording_is_one_line_naming_the_file(tmp_path, damage):
    text = SIM_FIXTURE.read_text()
    doc = json.loads(text)
    if damage == "no_points":
        doc["points"] = []
    elif damage == "point_without_speedup":
        doc["points"][3].pop("measured_graph_speedup")
    elif damage == "bad_dtype":
        doc["points"][0]["dtype"] = "fp8"
    bad = tmp_path / "diagnose_bad.json"
    bad.write_text(text[: len(text) // 2] if damage == "truncate" else json.dumps(doc))
    with pytest.raises(RecordingError) as e:
        store.load(bad)
    assert str(e.value).startswith("diagnose_bad.json: ") and "\n" not in str(e.value)


def test_a_recording_stops_at_its_budget_and_resumes_where_it_stopped(tmp_path, monkeypatch):
    out = tmp_path / "diagnose_sim.json"
    monkeypatch.setattr(record, "ESTIMATE_S", {"base": 0.0, "pass": 0.0, "calibrate": 0.0, "planner": 1e9,
                                                  "variants": 1e9})
    doc = record.run_record(SimRunner(), out, budget_s=60, quick=True)
    assert not doc["meta"]["complete"] and len(doc["points"]) == 8 and not doc["planner"]
    assert not store.load(out, kind="diagnose").meta.complete
    with pytest.raises(UsageError, match="exists"):
        record.run_record(SimRunner(), out, budget_s=60, quick=True)
    monkeypatch.setattr(record, "ESTIMATE_S", {"base": 0.0, "pass": 0.0, "calibrate": 0.0, "planner": 0.0,
                                               "variants": 0.0})
    doc = record.run_record(SimRunner(), out, budget_s=60, quick=True, resume=True)
    assert doc["meta"]["complete"] and len(doc["points"]) == 8 and len(doc["planner"]) == 2
    assert len(doc["meta"]["calibration_passes"]) == 2  # one per run; a run that goes on from
    # its base points to the planner calibrates once more (neither run here did both)
    rec = DiagnoseRecording.load(out)
    assert rec.meta.complete and rec.summary()["accuracy"]["eligible"] > 0
    again = record.run_record(SimRunner(), out, budget_s=60, quick=True, resume=True)  # nothing left to do
    assert again["meta"]["complete"] and len(again["meta"]["calibration_passes"]) == 2


def test_resuming_on_another_device_is_refused(tmp_path):
    out = tmp_path / "diagnose.json"
    doc = json.loads(SIM_FIXTURE.read_text())
    doc["meta"]["device_name"] = "NVIDIA H200"
    doc["meta"]["backend"] = "cuda"
    out.write_text(json.dumps(doc))
    with pytest.raises(UsageError, match="cannot resume"):
        record.run_record(SimRunner(), out, resume=True, quick=True)


def test_resuming_a_full_recording_with_quick_is_refused(tmp_path):
    """--quick on a full grid's partial file would call it complete at the small grid."""
    out = tmp_path / "diagnose.json"
    doc = json.loads(SIM_FIXTURE.read_text())
    doc["meta"]["complete"] = False
    out.write_text(json.dumps(doc))
    before = out.read_bytes()
    with pytest.raises(UsageError, match="outside the --quick grid"):
        record.run_record(SimRunner(), out, resume=True, quick=True)
    assert out.read_bytes() == before


def test_a_new_zoo_recording_says_its_set(tmp_path, monkeypatch):
    monkeypatch.setattr(record, "ESTIMATE_S", {"base": 0.0, "pass": 0.0, "calibrate": 0.0, "planner": 1e9,
                                              "variants": 1e9})
    doc = record.run_record(SimRunner(), tmp_path / "d.json", budget_s=60, quick=True)
    assert doc["meta"]["set"] == "zoo" == store.load(tmp_path / "d.json", kind="diagnose").data["meta"]["set"]
    assert json.loads(SIM_FIXTURE.read_text())["meta"]["set"] == "zoo"


def _gpu_recordings():
    found, _ = store.scan("diagnose")
    return [DiagnoseRecording(r) for r in found if not r.meta.simulated and r.meta.complete]


@pytest.mark.gpu  # a target only a GPU recording can meet: it runs in `make check-gpu`, not in CI
@pytest.mark.parametrize("rec", _gpu_recordings() or [None], ids=lambda r: r.meta.file if r else "none-shipped")
def test_a_shipped_gpu_recording_meets_the_prediction_targets(rec, capsys):
    """Each grid against its own targets. The zoo's: ±15% at ≥ 90% of the points measuring ≥ 1.2x,
    crossovers within one grid step, the planner beating powers of two for Zipf, and every
    measured bucket set inside the memory budget it was planned under. The external grid's (it has
    no crossovers or planner): what `accuracy --recording` judges, recomputed from its points
    (speedups, verdicts, band, ≥ 12 fresh re-checks). Marked gpu so that `make check-gpu` (which
    runs `pytest -m gpu` on the GPU machine) fails when a recording misses; CI skips it."""
    if rec is None:
        pytest.skip("no complete GPU diagnose recording ships in lessons/recordings/ yet")
    if recording_set(rec.doc) == "external":  # on 2026-12-05 this applied the zoo's crossover target to it
        from runtime_core.diagnose.accuracy_cli import diagnose_accuracy
        rc = diagnose_accuracy(rec.rec, as_json=False)
        assert rc == 0, capsys.readouterr().out
        return
    acc = rec.summary()["accuracy"]
    assert acc["eligible"] >= 10, "too few points with a measured speedup of 1.2x or more"
    assert acc["share"] >= 0.90, acc["misses"]
    assert acc["meets_crossover_target"], acc["crossovers"]
    for case in rec.doc["planner"]:
        m = case["measured"]
        for name, got in m.items():
            assert got["pool_bytes"] <= case["budget_bytes"], (case["model"], name)
        if case["preset"] == "zipf":
            assert m["planner"]["expected_step_us"] < m["powers_of_two"]["expected_step_us"], case["model"]


def _no_time_estimates(monkeypatch):
    """Every item fits any budget (the simulator's items take no real time to speak of)."""
    monkeypatch.setattr(record, "ESTIMATE_S", {"base": 0.0, "pass": 0.0, "calibrate": 0.0, "planner": 0.0,
                                               "variants": 0.0})


def test_each_point_keeps_the_median_of_its_passes(tmp_path, monkeypatch):
    """The host drifts: passes 2 and 3 ran 1.6x and 1.2x slower (H and eager); the point keeps
    the median of the three (the 1.2x pass), not the mean and not the first pass."""
    _no_time_estimates(monkeypatch)
    real = record.measure_pass
    seen = []

    def slow_second_pass(runner, spec, guess_us):
        r = real(runner, spec, guess_us)
        seen.append(r)
        slower = 1.6 if len(seen) <= 8 else 1.2  # the quick grid's 8 points, pass 2 then pass 3
        return dict(r, host_dispatch_us=r["host_dispatch_us"] * slower, eager_us=r["eager_us"] * slower)
    monkeypatch.setattr(record, "measure_pass", slow_second_pass)
    doc = record.run_record(SimRunner(), tmp_path / "d.json", quick=True, passes=3)
    assert doc["meta"]["passes"] == 3 and doc["meta"]["complete"]
    for p in doc["points"]:
        assert len(p["passes"]) == 3
        third = p["passes"][2]
        assert p["host_dispatch_us"] == pytest.approx(third["host_dispatch_us"], rel=1e-4)  # the median
        assert p["eager_us"] == pytest.approx(third["eager_us"], rel=1e-4)
    from runtime_core.diagnose.diagnosis import predicted_fields
    from runtime_core.diagnose.machine import mean_machine
    machine = mean_machine(doc["meta"]["calibration_passes"])
    for p in doc["points"]:  # the prediction is made from the median H (the third pass's), not pass 1's
        assert p["predicted_eager_us"] == predicted_fields(p, machine)["predicted_eager_us"]
        first = predicted_fields(dict(p, host_dispatch_us=p["passes"][0]["host_dispatch_us"]), machine)
        assert p["predicted_eager_us"] > first["predicted_eager_us"]
        assert p["measured_graph_speedup"] == pytest.approx(p["eager_us"] / p["graph_us"], rel=1e-3)
    assert any(p["passes"][1]["host_dispatch_us"] > 1.5 * p["passes"][0]["host_dispatch_us"] for p in doc["points"])
    assert store.load(tmp_path / "d.json", kind="diagnose").meta.complete


def test_a_pass_times_h_before_the_steps_it_predicts(monkeypatch):
    from runtime_core.diagnose import diagnosis
    from runtime_core.diagnose.spec import Spec
    order = []
    monkeypatch.setattr(diagnosis, "_host_dispatch_us", lambda runner, step, **reps: order.append("H") or 100.0)
    monkeypatch.setattr(diagnosis, "measure_variants", lambda runner, step, names, guess_us: order.append("timed") or
                        {"eager": {"us": 120.0}, "our_graph": {"us": 60.0}})
    runner = SimRunner()
    r = diagnosis.measure_pass(runner, diagnosis.prepare(runner, Spec("fake-cnn", 1)), guess_us=100.0)
    assert order == ["H"] * diagnosis.VIRTUAL_ROUNDS + ["timed"]  # the simulator's clock is virtual
    assert r == {"host_dispatch_us": 100.0, "eager_us": 120.0, "graph_us": 60.0}


def test_resuming_a_one_pass_recording_adds_the_missing_passes_only(tmp_path, monkeypatch):
    _no_time_estimates(monkeypatch)
    out = tmp_path / "d.json"
    record.run_record(SimRunner(), out, quick=True)  # the simulator's default: one pass
    doc = json.loads(out.read_text())
    assert all(len(p["passes"]) == 1 for p in doc["points"])
    for p in doc["points"]:  # as a recording made before passes existed
        del p["passes"]
    doc["meta"].pop("passes")
    out.write_text(json.dumps(doc))

    def no_new_base_point(*a, **k):
        raise AssertionError("a base point was measured again")
    monkeypatch.setattr(record, "diagnose", no_new_base_point)
    doc = record.run_record(SimRunner(), out, quick=True, resume=True, passes=3)
    assert doc["meta"]["complete"] and doc["meta"]["passes"] == 3
    assert len(doc["points"]) == 8 and all(len(p["passes"]) == 3 for p in doc["points"])
    with pytest.raises(UsageError, match="already has 3 passes"):
        record.run_record(SimRunner(), out, quick=True, resume=True, passes=2)


def test_a_run_killed_while_adding_passes_leaves_a_file_marked_partial(tmp_path, monkeypatch):
    _no_time_estimates(monkeypatch)
    out = tmp_path / "d.json"
    record.run_record(SimRunner(), out, quick=True, variants=False)
    assert json.loads(out.read_text())["meta"]["complete"]
    calls = []

    def killed_after_two(*a, **k):
        if len(calls) == 2:
            raise KeyboardInterrupt  # the device's time limit, as far as the file can tell
        calls.append(1)
        return real(*a, **k)
    real = record.measure_pass
    monkeypatch.setattr(record, "measure_pass", killed_after_two)
    with pytest.raises(KeyboardInterrupt):
        record.run_record(SimRunner(), out, quick=True, variants=False, resume=True, passes=2)
    doc = json.loads(out.read_text())
    assert not doc["meta"]["complete"] and sorted(len(p["passes"]) for p in doc["points"]) == [1] * 6 + [2] * 2


def test_a_recording_calibrates_between_its_points_not_only_at_the_start(tmp_path, monkeypatch):
    _no_time_estimates(monkeypatch)
    monkeypatch.setattr(record, "CALIBRATE_EVERY", 3)
    doc = record.run_record(SimRunner(), tmp_path / "d.json", quick=True, variants=False, passes=2)
    # 8 base points, then 8 of pass 2, then the planner: calibrated at the start, before base points
    # 4 and 7, at pass 2, before its points 4 and 7, and at the planner
    assert len(doc["meta"]["calibration_passes"]) == 7

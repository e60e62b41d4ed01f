"""Diagnose recordings: the simulated fixture validates and is labelled simulated, a recording
resumes after its budget runs out and refuses to overwrite, and a shipped GPU recording (once one
exists) meets the issue's targets."""
import json

import pytest

from runtime_core.diagnose import record
from runtime_core.diagnose.records import SIM_FIXTURE, DiagnoseRecording
from runtime_core.diagnose.sim_runner import SimRunner
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
    monkeypatch.setattr(record, "ESTIMATE_S", {"base": 0.0, "planner": 1e9, "variants": 1e9})
    doc = record.run_record(SimRunner(), out, budget_s=60, quick=True)
    assert not doc["meta"]["complete"] and len(doc["points"]) == 8 and not doc["planner"]
    assert not store.load(out, kind="diagnose").meta.complete
    with pytest.raises(UsageError, match="exists"):
        record.run_record(SimRunner(), out, budget_s=60, quick=True)
    monkeypatch.setattr(record, "ESTIMATE_S", {"base": 0.0, "planner": 0.0, "variants": 0.0})
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


def _gpu_recordings():
    found, _ = store.scan("diagnose")
    return [DiagnoseRecording(r) for r in found if not r.meta.simulated and r.meta.complete]


@pytest.mark.gpu  # a target only a GPU recording can meet: it runs in `make check-gpu`, not in CI
@pytest.mark.parametrize("rec", _gpu_recordings() or [None], ids=lambda r: r.meta.file if r else "none-shipped")
def test_a_shipped_gpu_recording_meets_the_prediction_targets(rec):
    """±15% at ≥ 90% of the points measuring ≥ 1.2x, crossovers within one grid step, and the
    planner beating powers of two for Zipf. Marked gpu so that `make check-gpu` (which runs
    `pytest -m gpu` on the GPU machine) fails when the recording misses; CI skips it."""
    if rec is None:
        pytest.skip("no complete GPU diagnose recording ships in lessons/recordings/ yet")
    acc = rec.summary()["accuracy"]
    assert acc["eligible"] >= 10, "too few points with a measured speedup of 1.2x or more"
    assert acc["share"] >= 0.90, acc["misses"]
    assert acc["meets_crossover_target"], acc["crossovers"]
    for case in rec.doc["planner"]:
        if case["preset"] == "zipf":
            m = case["measured"]
            assert m["planner"]["expected_step_us"] < m["powers_of_two"]["expected_step_us"], case["model"]

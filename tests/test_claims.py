"""Claims vs measurements: verdicts are computed from the recordings, and flip when numbers do."""
import copy

import pytest

from runtime_core.lesson.claims import VERDICTS, evaluate_claims, load_claims
from runtime_core.labs import run_lab
from runtime_core.recordings import best, store


def _typed(doc: dict):
    """The fixture as the app sees it: migrated, validated against the sweep schema, typed."""
    doc = copy.deepcopy(doc)
    for p in doc["points"]:
        p.setdefault("launch_overhead_us", p["wall_us"] - p["kernel_time_us"])
        p.setdefault("graph_valid", True)
    store.validate(store.migrate(doc))
    return store.from_doc(doc)


def _fixture_sweep(eager_overhead_us: float) -> dict:
    """A tiny sweep recording built here: an eager, streams and graph point at the seed's knobs."""
    base = {"n": 120, "extra_tax_us": 0, "dynamic": False, "tax_us": 6.0, "copy_calls": 0}
    pts = [
        {**base, "mode": "eager", "work_us": 2, "kernel_time_us": 240.0,
         "launch_overhead_us": eager_overhead_us, "wall_us": 240.0 + eager_overhead_us, "driver_calls": 120},
        {**base, "mode": "streams", "work_us": 2, "kernel_time_us": 240.0, "wall_us": 722.0, "driver_calls": 120},
        {**base, "mode": "graph", "work_us": 2, "kernel_time_us": 240.0, "wall_us": 250.0, "driver_calls": 1,
         "copy_calls": 1},
        {**base, "mode": "streams", "work_us": 40, "kernel_time_us": 4800.0, "wall_us": 4806.0, "driver_calls": 120},
        {**base, "mode": "graph", "work_us": 40, "kernel_time_us": 4800.0, "wall_us": 4806.0, "driver_calls": 1},
    ]
    cal = {"sync_us": 0, "graph_launch_us": None, "node_gap_us": 0, "kernel_floor_us": 0, "eager_floor_us": 0,
           "fixed_us": 0}
    return {"meta": {"device_name": "Fixture GPU", "torch_version": "0", "recorded_at": "2026-01-01T00:00:00Z",
                     "intrinsic_tax_us": 6.0, "calibration": cal}, "points": pts}


def _by_id(rows):
    return {r["id"]: r for r in rows}


def test_eager_overhead_verdict_flips_with_the_recorded_numbers():
    textbook = _by_id(evaluate_claims(_typed(_fixture_sweep(720.0)), None, None))["eager_720"]
    assert textbook["verdict"] == "holds" and "720 µs overhead" in textbook["measured"]
    measured = _by_id(evaluate_claims(_typed(_fixture_sweep(2300.0)), None, None))["eager_720"]
    assert measured["verdict"] == "differs" and "2300 µs overhead" in measured["measured"]
    assert "synchronize" in measured["reason"]
    assert measured["source"] == "recorded" and "Fixture GPU" in measured["source_detail"]


def test_graph_call_count_verdict_flips_when_a_replay_makes_two_calls():
    sweep = _fixture_sweep(720.0)
    assert _by_id(evaluate_claims(_typed(sweep), None, None))["graph_one_call"]["verdict"] == "holds"
    broken = copy.deepcopy(sweep)
    broken["points"][2]["driver_calls"] = 2
    assert _by_id(evaluate_claims(_typed(broken), None, None))["graph_one_call"]["verdict"] == "differs"


def test_missing_recordings_say_so_instead_of_guessing():
    rows = _by_id(evaluate_claims(None, None, None))
    for cid in ("launch_tax", "eager_720", "segments", "decoder_2x", "cudamalloc_cost"):
        assert rows[cid]["verdict"] == "no data" and "none is shipped" in rows[cid]["reason"]
    assert "measured live on GPU only" in rows["pinned_overlap"]["reason"]


@pytest.fixture(scope="module")
def shipped_rows():
    return evaluate_claims(best("sweep"), best("alloc"), best("decoder"), run_lab("overlap", "sim"))


def test_every_claim_gets_a_verdict_from_the_shipped_recordings(shipped_rows):
    assert [r["id"] for r in shipped_rows] == [c["id"] for c in load_claims()]
    for r in shipped_rows:
        assert r["verdict"] in VERDICTS and r["reason"] and r["measured"]
        if r["id"] != "pinned_overlap":  # the one claim no recording holds
            assert r["verdict"] != "no data" and r["source"] == "recorded", r


def test_decoder_speedup_is_computed_from_the_recording(shipped_rows):
    dec = {p["variant"]: p for p in best("decoder").data["points"]}
    speedup = dec["eager"]["ms_per_token"] / dec["our_graph"]["ms_per_token"]
    row = _by_id(shipped_rows)["decoder_2x"]
    assert f"({speedup:.1f}×)" in row["measured"]
    assert row["verdict"] == ("holds" if 1.5 <= speedup <= 3 else "differs")


def test_simulated_overlap_is_labelled_as_mechanism_not_evidence(shipped_rows):
    row = _by_id(shipped_rows)["pinned_overlap"]
    assert row["source"] == "simulated" and "not evidence" in row["reason"]

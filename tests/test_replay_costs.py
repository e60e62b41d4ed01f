"""§4's replay-cost table and the constants' experiments: every value comes from the sweep
through the named figures, each row names the experiment that measured it, and each constant is
read off its own experiment (changing any other experiment leaves it where it was)."""
import copy
import dataclasses
import statistics

import pytest

from runtime_core.constants import METHODS, Constants
from runtime_core.lesson.figures import NOT_RECORDED, UNMEASURED
from runtime_core.lesson.replay_costs import ROWS, constant_rows, replay_cost_rows
from runtime_core.model.calibrate import derive
from runtime_core.recordings import best


def test_rows_come_from_the_recording_and_zero_means_not_measured():
    rec = best("sweep")
    rows = {r["cost"]: r["value"] for r in replay_cost_rows(rec)}
    assert len(rows) == len(ROWS)
    raws = rec.data["meta"]["calibration_experiments"]
    one = statistics.fmean(g["replay_host_us"] for raw in raws for g in raw["graph_launch"] if g["nodes"] == 1)
    assert rows["host: cudaGraphLaunch, 1 node"] == f"{one:.1f}\u00a0µs"  # one line in a narrow column
    cal = rec.meta.calibration
    gap = rows["GPU: gap between separately launched kernels"]
    assert gap == (UNMEASURED if cal.stream_gap_us == 0 else f"{cal.stream_gap_us:.2f}\u00a0µs")


def test_every_row_says_how_it_was_measured_and_python_dispatch_is_not_called_a_driver_launch():
    rows = replay_cost_rows(best("sweep"))
    assert all(len(r["measured by"]) > 8 for r in rows)
    assert all(len(r["how it was measured"]) > 40 for r in constant_rows(best("sweep")))
    tax = next(r for r in rows if "x.add_(1)" in r["cost"])
    assert "Python dispatch" in tax["cost"] and "cudaLaunchKernel" not in tax["cost"]
    assert any("C++" in r["cost"] and r["value"] != NOT_RECORDED for r in rows)


def test_a_newer_calibration_fills_the_values_in():
    rec = best("sweep")
    newer = dataclasses.replace(rec.meta.calibration, stream_gap_us=1.25, graph_upload_us=20.0)
    rec2 = dataclasses.replace(rec, meta=dataclasses.replace(rec.meta, calibration=newer))
    rows = {r["cost"]: r["value"] for r in replay_cost_rows(rec2)}
    assert rows["GPU: gap between separately launched kernels"] == "1.25\u00a0µs"
    assert rows["host: a first replay's extra, 1 node"] == "20.0\u00a0µs"


def test_without_a_recording_every_value_says_not_recorded():
    assert {r["value"] for r in replay_cost_rows(None)} == {NOT_RECORDED}


def test_the_shipped_sweep_names_an_experiment_for_every_constant_and_keeps_its_numbers():
    meta = best("sweep").data["meta"]
    assert set(Constants.fields()) <= set(meta["calibration_methods"]) and "tax_us" in meta["calibration_methods"]
    assert set(Constants.fields()) <= set(METHODS)
    for raw in meta["calibration_experiments"]:  # the graph launch at four sizes, both gap readings
        assert [g["nodes"] for g in raw["graph_launch"]] == [1, 10, 120, 1000]
        assert raw["graph_trace"]["node_gaps_us"] > 0 and raw["streams_trace"]["kernel_gaps_us"] > 0
        assert len(raw["node_gap_wall"]) == 3 and len(raw["stream_gap_wall"]) == 3
    named = {r["constant"].rsplit(" (", 1)[-1].rstrip(")") for r in constant_rows(best("sweep"))}
    assert named == set(METHODS) | {"driver_launch_us"}
    assert all(not r["constant"].startswith(r["constant"].rsplit(" (", 1)[-1].rstrip(")"))  # words first
               for r in constant_rows(best("sweep")))


# Which parts of the raw experiments each constant may read: its own experiment, and nothing else.
OWN = {"sync_us": {"eager_sync"}, "graph_launch_us": {"graph_launch"}, "graph_launch_per_node_us": {"graph_launch"},
       "graph_upload_us": {"graph_launch"}, "graph_upload_per_node_us": {"graph_launch"},
       "fixed_us": {"graph_trace"}, "node_gap_us": {"node_gap_wall"}, "stream_gap_us": {"stream_gap_wall"},
       "kernel_floor_us": {"kernel_us"}, "eager_floor_us": {"eager_floor"}}


def _scaled(x, k):
    if isinstance(x, dict):
        return {a: b if a in ("n", "nodes", "work_us") else _scaled(b, k) for a, b in x.items()}
    if isinstance(x, list):
        return [_scaled(v, k) for v in x]
    return x * k if isinstance(x, float) else x


@pytest.mark.parametrize("constant", sorted(OWN))
def test_each_constant_is_read_off_its_own_experiment_only(constant):
    """No residuals: scaling every other experiment's numbers leaves the constant unchanged, and
    scaling its own moves it."""
    raw = best("sweep").data["meta"]["calibration_experiments"][0]
    base = getattr(derive(raw), constant)
    others = copy.deepcopy(raw)
    for part in others:
        if part not in OWN[constant] and part != "tax_us":
            others[part] = _scaled(others[part], 1.7)
    assert getattr(derive(others), constant) == pytest.approx(base, abs=1e-3)
    own = copy.deepcopy(raw)
    for part in OWN[constant]:
        own[part] = _scaled(own[part], 1.7)
    if base > 0.01:
        assert getattr(derive(own), constant) != pytest.approx(base, rel=0.05)

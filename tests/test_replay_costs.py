"""§4's replay-cost table: every value comes from the sweep's calibration through the named
figures, and a constant the calibration holds as 0 reads "not measured in this recording"."""
import dataclasses

from runtime_core.lesson.figures import NOT_RECORDED, UNMEASURED
from runtime_core.lesson.replay_costs import ROWS, replay_cost_rows
from runtime_core.recordings import best


def test_rows_come_from_the_recording_and_zero_means_not_measured():
    rec = best("sweep")
    rows = {r["cost"]: r["value"] for r in replay_cost_rows(rec)}
    assert len(rows) == len(ROWS)
    cal = rec.meta.calibration
    assert rows["host: one cudaGraphLaunch"] == f"{cal.graph_launch_us:.1f} µs"
    gap = rows["GPU: gap between two separately launched kernels"]
    assert gap == (UNMEASURED if cal.stream_gap_us == 0 else f"{cal.stream_gap_us:.2f} µs")


def test_a_newer_calibration_fills_the_values_in():
    rec = best("sweep")
    newer = dataclasses.replace(rec.meta.calibration, stream_gap_us=1.25, graph_upload_us=20.0)
    rec2 = dataclasses.replace(rec, meta=dataclasses.replace(rec.meta, calibration=newer))
    rows = {r["cost"]: r["value"] for r in replay_cost_rows(rec2)}
    assert rows["GPU: gap between two separately launched kernels"] == "1.25 µs"
    assert rows["host: extra on a graph's first replay"] == "20.0 µs"


def test_without_a_recording_every_value_says_not_recorded():
    assert {r["value"] for r in replay_cost_rows(None)} == {NOT_RECORDED}

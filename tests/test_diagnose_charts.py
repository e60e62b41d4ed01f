"""Page 7's chart of the external grid: predicted against measured speedup, one marker per point
with its band, the ±15% cone, and a line to what the other recording measured for the point."""
import json
from pathlib import Path

import pytest

from pages.ui.diagnose_charts import external_figure

ROOT = Path(__file__).resolve().parents[1]
REC = ROOT / "lessons" / "recordings" / "diagnose_external_h200.json"


def _pt(model, batch, pred, meas, band):
    return {"model": f"validation.external:{model}", "dtype": "fp32", "batch": batch, "seq": None,
            "predicted_graph_speedup": pred, "measured_graph_speedup": meas, "predicted_speedup_band": band}


def test_each_point_is_a_marker_at_measured_and_predicted_with_its_band_as_the_bar():
    pts = [_pt("a", 1, 4.0, 5.0, [3.0, 6.0]), _pt("a", 4, 2.0, 2.1, [1.5, 2.5]), _pt("b", 1, 1.1, 1.0, [1.0, 1.3])]
    fig = external_figure(pts, None, 0.15, "t")
    nets = {t.name: t for t in fig.data if t.name in ("a", "b")}
    assert list(nets["a"].x) == [5.0, 2.1] and list(nets["a"].y) == [4.0, 2.0]
    assert list(nets["a"].error_y.array) == [2.0, 0.5] and list(nets["a"].error_y.arrayminus) == [1.0, 0.5]
    assert nets["a"].marker.symbol != nets["b"].marker.symbol   # not colour alone
    assert not any(t.name == "the same point, measured again" for t in fig.data)   # no second recording
    cone = next(t for t in fig.data if t.name == "within ±15%")
    lo, hi = cone.x[0], cone.x[1]
    assert cone.y[0] == pytest.approx(lo * 0.85) and cone.y[2] == pytest.approx(hi * 1.15)
    assert lo < 1.0 and hi > 5.0   # every marker inside the axes


def test_a_second_recording_draws_a_line_from_each_point_to_what_it_measured_there():
    pts = [_pt("a", 1, 4.0, 5.0, [3.0, 6.0]), _pt("a", 4, 2.0, 2.1, [1.5, 2.5])]
    again = [dict(pts[0], seq=32, measured_graph_speedup=3.0)]   # a re-check names the default seq: still paired
    fig = external_figure(pts, again, 0.15, "t")
    line = next(t for t in fig.data if t.name == "the same point, measured again")
    assert list(line.x) == [5.0, 3.0, None] and list(line.y) == [4.0, 4.0, None]


def test_the_shipped_grid_draws_every_point_and_every_repeat():
    doc = json.loads(REC.read_text())
    fig = external_figure(doc["points"], doc["repeat"]["points"], 0.15, "t")
    nets = {p["model"].split(":")[-1] for p in doc["points"]}
    assert sum(len(t.x) for t in fig.data if t.name in nets) == len(doc["points"])
    line = next(t for t in fig.data if t.name == "the same point, measured again")
    assert len(line.x) == 3 * len(doc["repeat"]["points"])


def test_a_recording_with_values_no_log_axis_can_hold_draws_the_rest():
    pts = [_pt("a", 1, 4.0, 5.0, [3.0, 6.0]), _pt("a", 4, 0.0, 2.1, None), _pt("a", 16, 2.0, float("nan"), None),
           _pt("b", 1, 1.5, 1.4, [2.0, 1.0]), _pt("b", 4, 2.0, -1.0, None)]
    fig = external_figure(pts, [dict(pts[0], measured_graph_speedup="fast")], 0.15, "t")
    assert [len(t.x) for t in fig.data if t.name in ("a", "b")] == [1, 1]
    b = next(t for t in fig.data if t.name == "b")
    assert list(b.error_y.array) == [0.0] and list(b.error_y.arrayminus) == [0.0]   # a band not around it: none
    assert not any(t.name == "the same point, measured again" for t in fig.data)
    assert external_figure([_pt("a", 1, 4.0, None, None)], None, 0.15, "t") is None   # nothing to draw


def test_the_sweep_charts_label_their_log_axes_with_units_not_bare_minor_digits():
    """From a projector, a log axis's minor labels ("2 3 4 … 9") give no magnitude: the time axis
    labels decades only and says µs, the speedup axis labels round speedups with an x."""
    from pages.ui.diagnose_charts import sweep_figures
    pts = [{"batch": b, "eager_us": 900.0 / b ** 0.1, "predicted_eager_us": 880.0, "graph_us": 200.0 * b ** 0.5,
            "predicted_graph_us": 190.0 * b ** 0.5, "measured_graph_speedup": 4.5 / b ** 0.6,
            "predicted_graph_speedup": 4.6 / b ** 0.6} for b in (1, 2, 4, 8, 16, 32, 64)]
    times, speed = sweep_figures(pts, None)
    assert times.layout.yaxis.title.text == "µs per step"
    shown = [v for v in times.layout.yaxis.tickvals if 100 <= v <= 1000]  # the data spans 190..1,500 µs
    assert len(shown) >= 3 and all(str(t).replace(",", "").isdigit() for t in times.layout.yaxis.ticktext)
    assert speed.layout.yaxis.title.text == "× eager"
    assert all(t.endswith("x") for t in speed.layout.yaxis.ticktext) and "1.2x" in speed.layout.yaxis.ticktext


def test_the_crossover_lines_are_named_in_the_legend():
    """The vertical crossover lines (a Plotly shape has no legend entry) were named only in a caption
    above the charts: each chart's legend names them, solid measured and dashed predicted."""
    from pages.ui.diagnose_charts import sweep_figures
    pts = [{"batch": b, "eager_us": 900.0, "predicted_eager_us": 880.0, "graph_us": 100.0 * b,
            "predicted_graph_us": 95.0 * b, "measured_graph_speedup": 9.0 / b,
            "predicted_graph_speedup": 9.3 / b} for b in (1, 2, 4, 8, 16)]
    for fig in sweep_figures(pts, {"measured": 8, "predicted": 16}):
        named = {t.name: t.line.dash for t in fig.data if t.name and t.name.startswith("crossover")}
        assert named == {"crossover, measured (batch 8)": "solid", "crossover, predicted (batch 16)": "dash"}
    for fig in sweep_figures(pts, None):
        assert not any(t.name and t.name.startswith("crossover") for t in fig.data)

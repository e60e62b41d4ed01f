"""The fusion lab's bars keep their labels level and short: a one-line label with the mode's long
name was set on its side by Plotly and took three quarters of the chart's height (issue 27)."""
from pathlib import Path

import pytest

pytest.importorskip("plotly")

from pages.ui.lab_charts import work_vs_overhead_bars  # noqa: E402
from runtime_core.labs import run_lab  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_the_fusion_bars_labels_are_level_and_a_few_short_lines():
    r = run_lab("fusion", backend="sim")
    fig = work_vs_overhead_bars(r["rows"], "t")
    assert fig.layout.xaxis.tickangle == 0
    for label in fig.data[0].x:
        lines = label.split("<br>")
        assert len(lines) == 3 and max(len(s) for s in lines) <= 12, label
    assert {lbl.split("<br>")[1] for lbl in fig.data[0].x} == {"streams", "graph"}


def test_a_labs_copy_is_a_memory_copy_and_only_the_widgets_graph_copy_is_a_static_buffer():
    """The sync lab's hatched spans are the .item() read: "copy into static buffer", a graph's
    idea, belongs to the widget's graph-mode copy only (page 6 passes STATIC_COPY)."""
    from pages.ui.timeline_chart import STATIC_COPY, timeline_figure
    from runtime_core.labs import run_lab
    spans = run_lab("sync", "sim")["timelines"]["sync"]
    assert any(s["kind"] == "copy" for s in spans)
    names = {t.name for t in timeline_figure(spans, "sync").data}
    assert "memory copy" in names and "copy into static buffer" not in names
    assert "copy into static buffer" in {t.name for t in timeline_figure(spans, "x", labels=STATIC_COPY).data}
    page = (ROOT / "pages" / "6_Launch_overhead_killer.py").read_text()
    assert "labels=STATIC_COPY" in page


def test_a_timeline_too_long_to_draw_whole_spans_the_step_and_keeps_each_kinds_time():
    """Page 6 at N=2000 in eager mode: the chart once drew the first 2,400 bars, a third of the step;
    then every bar, each narrower than a pixel, so the kind drawn last covered its lane (all
    "CPU waits" on the CPU, all kernel on the GPU, at N=1000). A crowded lane is summed into slices:
    the whole step, each kind's drawn time equal to its time, and the title says so."""
    from collections import Counter

    from pages.ui.timeline_chart import MAX_BARS, timeline_figure
    from runtime_core.knobs import Knobs
    from runtime_core.model.formulas import predict
    rows = predict(Knobs("eager", 2000, 2.0, tax_us=6.0)).timeline_rows() * 3
    rows = [dict(r, start_us=r["start_us"] + i // 1200 * 1e5, end_us=r["end_us"] + i // 1200 * 1e5)
            for i, r in enumerate(rows)]
    assert len(rows) > MAX_BARS
    fig = timeline_figure(rows, "One step")
    drawn = sum(len(t.base) for t in fig.data)
    assert drawn <= MAX_BARS
    assert abs(max(b + x for t in fig.data for b, x in zip(t.base, t.x)) - max(r["end_us"] for r in rows)) < 1e-6
    truth = Counter()
    for r in rows:
        truth[r["kind"]] += r["end_us"] - r["start_us"]
    shown = {t.name: sum(t.x) for t in fig.data}
    assert abs(shown["CPU launch tax"] / truth["launch"] - 1) < 1e-6
    assert abs(shown["CPU waits (synchronize)"] / truth["sync"] - 1) < 1e-6
    assert abs(shown["GPU kernel work"] / truth["kernel"] - 1) < 1e-6
    assert "the CPU and GPU lanes summed into 150 slices" in fig.layout.title.text
    assert timeline_figure(rows[:10], "One step").layout.title.text == "One step"


def test_a_slice_lays_its_kinds_side_by_side_and_neighbours_join():
    """Two kinds, 6 and 2 µs per period, 1,000 periods: each slice holds 75% launch and 25% wait;
    an even slice puts its kinds against its end, an odd one from its start in reverse, so the
    same kind meets across a boundary."""
    from runtime_core.engine.timeline_limit import bin_lanes
    rows = []
    for i in range(1000):
        rows += [{"lane": "cpu", "kind": "launch", "name": "l", "start_us": 8.0 * i, "end_us": 8.0 * i + 6},
                 {"lane": "cpu", "kind": "sync", "name": "s", "start_us": 8.0 * i + 6, "end_us": 8.0 * i + 8}]
    out, binned = bin_lanes(rows, slices=100, order=("launch", "sync"))
    assert binned == {"slices": 100, "lanes": ["cpu"], "of": 2000} and len(out) == 200
    first, second, third = out[:2], out[2:4], out[4:6]
    assert [s["kind"] for s in first] == ["launch", "sync"] and [s["kind"] for s in second] == ["sync", "launch"]
    assert first[1]["end_us"] == second[0]["start_us"] == 80.0 and second[1]["end_us"] == third[0]["start_us"]
    assert abs((first[0]["end_us"] - first[0]["start_us"]) - 60.0) < 1e-9
    few = rows[:200]
    assert bin_lanes(few)[1] is None and bin_lanes(few)[0] == few


def test_a_kind_too_thin_for_a_pixel_is_carried_until_it_shows_its_true_area():
    """At N=2000, 100 µs of tax and no work the GPU runs about 1% of the step: drawn in every slice,
    each sliver painted a pixel wide read as 15% busy. It is drawn where it adds up to a quarter of
    a slice, its total kept."""
    from runtime_core.engine.timeline_limit import MIN_SHARE, bin_lanes
    rows = [{"lane": "gpu", "kind": "kernel", "name": "k", "start_us": 100.0 * i, "end_us": 100.0 * i + 1}
            for i in range(2000)]
    out, binned = bin_lanes(rows, slices=100)
    width = (rows[-1]["end_us"] - rows[0]["start_us"]) / 100
    drawn = [s["end_us"] - s["start_us"] for s in out]
    assert binned and abs(sum(drawn) - 2000.0) < 1e-6
    assert all(d >= MIN_SHARE * width - 1e-9 for d in drawn[:-1]) and len(out) < 25

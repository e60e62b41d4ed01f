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


def test_a_timeline_too_long_to_draw_whole_spans_the_step_and_says_it_was_thinned():
    """Page 6 at N=2000 in eager mode: the chart drew the first 2,400 bars, about a third of the
    step, under a title that named the whole step. A long timeline is thinned over the whole step,
    and its title says so."""
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
    assert max(b + x for t in fig.data for b, x in zip(t.base, t.x)) == max(r["end_us"] for r in rows)
    assert f"{drawn:,} of its {len(rows):,} bars drawn" in fig.layout.title.text
    assert timeline_figure(rows[:10], "One step").layout.title.text == "One step"

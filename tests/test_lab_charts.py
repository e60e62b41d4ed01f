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
        assert len(lines) == 3 and max(len(s) for s in lines) <= 8, label  # four fit a 400 px phone
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
    "CPU waits" on the CPU, all kernel on the GPU, at N=1000). A crowded lane is drawn in slices:
    the whole step, each kind's drawn time within one slice of its time, and the title says so."""
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
    end = max(r["end_us"] for r in rows)
    assert max(b + x for t in fig.data for b, x in zip(t.base, t.x)) <= end + 1e-6
    truth = Counter()
    for r in rows:
        truth[r["kind"]] += r["end_us"] - r["start_us"]
    shown = {t.name: sum(t.x) for t in fig.data}
    slice_us = end / 150
    for name, kind in (("CPU launch tax", "launch"), ("CPU waits (synchronize)", "sync"), ("GPU kernel work", "kernel")):
        assert abs(shown[name] - truth[kind]) <= slice_us + 1e-6, (name, shown[name], truth[kind])
    assert "CPU and GPU lanes drawn in 150 slices" in fig.layout.title.text
    assert timeline_figure(rows[:10], "One step").layout.title.text == "One step"


def _chain(periods: int, launch: float, wait: float) -> list[dict]:
    rows = []
    for i in range(periods):
        t = (launch + wait) * i
        rows += [{"lane": "cpu", "kind": "launch", "name": "l", "start_us": t, "end_us": t + launch},
                 {"lane": "cpu", "kind": "sync", "name": "s", "start_us": t + launch, "end_us": t + launch + wait},
                 {"lane": "gpu", "kind": "kernel", "name": "k", "start_us": t + launch, "end_us": t + launch + 1}]
    return rows


def test_each_slice_goes_whole_to_one_kind_and_each_colour_covers_its_share():
    """Launch 6 µs, wait 2 µs (a 1 µs kernel in it), 1,000 periods in 100 slices: three slices in four
    are launch, one is wait; the GPU, busy 1/8 of the time, gets 12 or 13 whole slices, never a
    sliver a browser would paint a pixel wide. Neighbouring slices of one kind are one bar."""
    from runtime_core.engine.timeline_slices import bin_lanes
    out, binned = bin_lanes(_chain(1000, 6.0, 2.0), slices=100, order=("launch", "sync", "kernel"))
    assert binned == {"slices": 100, "lanes": ["cpu", "gpu"], "of": 3000}
    width = 80.0
    drawn = lambda lane, kind: sum(s["end_us"] - s["start_us"] for s in out if s["lane"] == lane and s["kind"] == kind)
    assert abs(drawn("cpu", "launch") - 6000) <= width and abs(drawn("cpu", "sync") - 2000) <= width
    assert abs(drawn("gpu", "kernel") - 1000) <= width
    assert all(abs((s["end_us"] - s["start_us"]) / width - round((s["end_us"] - s["start_us"]) / width)) < 1e-9
               and s["end_us"] - s["start_us"] >= width - 1e-9 for s in out)
    cpu = sorted((s for s in out if s["lane"] == "cpu"), key=lambda s: s["start_us"])
    assert all(a["kind"] != b["kind"] for a, b in zip(cpu, cpu[1:]))  # runs of one kind are joined
    assert "what ran in it" in cpu[0]["name"]
    few = _chain(20, 6.0, 2.0)
    assert bin_lanes(few)[1] is None and bin_lanes(few)[0] == few


def test_nested_spans_count_their_shared_time_once():
    """A profiled launch sits inside its framework dispatch: drawn side by side the lane read 99%
    busy when it was 78%. The shared time goes to the inner span; idle stays idle."""
    from runtime_core.engine.timeline_slices import bin_lanes
    rows = []
    for i in range(500):
        t = 10.0 * i
        rows += [{"lane": "cpu", "kind": "dispatch", "name": "d", "start_us": t, "end_us": t + 8},
                 {"lane": "cpu", "kind": "launch", "name": "l", "start_us": t + 5, "end_us": t + 7}]
    out, binned = bin_lanes(rows, slices=100)
    width = 50.0
    busy = sum(s["end_us"] - s["start_us"] for s in out)
    assert abs(busy - 4000) <= 2 * width  # 80% busy, not 100%
    launch = sum(s["end_us"] - s["start_us"] for s in out if s["kind"] == "launch")
    assert abs(launch - 1000) <= width

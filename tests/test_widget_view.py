"""Page 6's view as data: the numbers, labels, timeline and tables the widget shows for a setting,
computed by pages/ui/widget_view.widget_view without AppTest (the page only draws them)."""
from types import SimpleNamespace

import pytest

pytest.importorskip("streamlit")  # the sources cache through streamlit; the view itself does not import it

from pages.ui import widget_sources as src  # noqa: E402
from pages.ui import widget_view as wv  # noqa: E402
from runtime_core.knobs import Knobs  # noqa: E402
from runtime_core.lesson.page_text import text as prose  # noqa: E402
from runtime_core.recordings import best  # noqa: E402

REC = best("sweep")


def view(k: Knobs, rec=REC, pick=None):
    ctx = SimpleNamespace(live=False, recording=rec, recordings=[rec] if rec else [])
    return wv.widget_view(k, ctx, src.shown(False, rec, k), src, pick)


def by_stem(v) -> dict:
    return {m.label.split(" (")[0]: m for m in v.metrics}


def test_the_seed_defaults_in_eager_show_the_textbook_720_us_beneath_the_overhead():
    m = by_stem(view(Knobs("eager", 120, 2.0, tax_us=6.0)))
    assert list(m) == ["launch overhead", "wall time / step", "driver calls", "graph valid?"]
    assert m["launch overhead"].delta == "textbook 720 µs"
    assert m["driver calls"].delta == "textbook 120"


@pytest.mark.parametrize("mode", ["eager", "streams"])
def test_without_a_graph_the_valid_flag_is_a_dash_not_true(mode):
    """Eager and streams dispatch capture nothing: "graph valid? TRUE" there would teach that
    they have a graph, dynamic shapes or not (the checkpoint's tables already say "no graph")."""
    for dynamic in (False, True):
        g = by_stem(view(Knobs(mode, 120, 2.0, tax_us=6.0, dynamic=dynamic)))["graph valid?"]
        assert g.value == "—" and g.delta == "no graph" and "capture nothing" in g.help


def test_graph_mode_is_one_driver_call_and_valid_with_a_copy_row():
    v = view(Knobs("graph", 120, 2.0, tax_us=6.0))
    m = by_stem(v)
    assert m["driver calls"].delta == "textbook 1" and "TRUE" in m["graph valid?"].value
    labels = [q[0] for q in v.side_by_side.quantities]
    assert labels[-1] == wv.COPY_ROW and "less wall with zero-copy" in wv.COPY_ROW  # the same row under either choice
    assert v.side_by_side.columns[:2] == ["textbook model", "simulated"]


@pytest.mark.skipif(REC is None, reason="needs the shipped sweep recording")
def test_off_grid_n_names_the_recorded_n_in_labels_timeline_and_table():
    v = view(Knobs("graph", 169, 2.0, tax_us=6.0))
    assert by_stem(v)["wall time / step"].label == "wall time / step (recorded point)"
    assert "your N=169" in v.tax_line and "which is N=120, work 2 µs" in v.tax_line
    assert "graph mode the step makes none of these launches" in v.tax_line   # the tax is not the graph's
    assert "added host work is paid once" not in v.tax_line   # nothing added at this point
    assert "none of these launches" not in view(Knobs("eager", 169, 2.0, tax_us=6.0)).tax_line
    assert v.timeline.title.startswith("One step at N=120: graph (measured)")
    assert "host spans at their unprofiled cost" in v.timeline.title  # the redrawn profile says so
    cols = v.side_by_side.columns   # the textbook at the recorded N sits just after the recorded column
    assert [c for c in cols if c.endswith(" †")] == cols[-2:]   # both at the recorded point, marked
    assert any("recorded at N=120" in c for c in v.side_by_side.captions)
    there = cols.index("textbook model †")
    assert there == len(cols) - 1 and not cols[there - 1].startswith("textbook")
    wall = dict(v.side_by_side.quantities)["wall time / step (µs)"]
    assert wall[there] == pytest.approx(src.textbook(Knobs("graph", 120, 2.0, tax_us=6.0))["wall_us"])
    assert wall[0] == pytest.approx(src.textbook(Knobs("graph", 169, 2.0, tax_us=6.0))["wall_us"])
    assert view(Knobs("graph", 169, 2.0, tax_us=6.0), pick="simulated").timeline.title == \
        "One step at N=169: graph (simulated)"
    assert "Model accuracy" in v.tabs


@pytest.mark.skipif(REC is None, reason="needs the shipped sweep recording")
def test_a_tax_off_the_grid_shows_the_points_whole_tax_and_short_labels():
    """Tax 28 µs at N=130: the nearest point adds 20 µs of host work to the GPU's own tax. The view
    says the whole tax per launch (as measured, and what it is made of), never a bare "extra 20",
    and the metric labels stay short (the point is named once, above them)."""
    k = Knobs("graph", 130, 2.0, tax_us=28.0)
    shown = src.shown(False, REC, k)
    v = wv.widget_view(k, SimpleNamespace(live=False, recording=REC, recordings=[REC]), shown, src)
    own = REC.meta.intrinsic_tax_us
    assert f"at {shown.numbers['tax_us']:.1f} µs of host time per launch as measured" in v.tax_line
    assert f"averaging {own:.4g} µs, plus 20 µs of added host work" in v.tax_line
    assert "your N=130, work 2 µs, tax 28 µs" in v.tax_line
    # a graph step makes none of the launches, but its one replay call pays the added work once
    assert "the 20 µs of added host work is paid once, before that call" in v.tax_line
    chips = wv.at_point(k, shown, own).tax_us  # the tax the textbook chips use is the one the line names
    assert f"at {chips:g} µs per launch" in v.tax_line
    assert all(len(m.label) <= len("graph valid? (recorded point)") + 4 for m in v.metrics), [m.label for m in v.metrics]
    text = " ".join([m.label for m in v.metrics] + v.side_by_side.columns + v.side_by_side.captions)
    assert "extra tax" not in text and f"tax {own + 20:.4g} µs" in text


@pytest.mark.parametrize("mode", ["eager", "streams"])
def test_the_side_by_side_table_says_no_graph_outside_graph_mode_as_the_card_does(mode):
    """The card said "— no graph" while the table's row read TRUE in every column."""
    v = view(Knobs(mode, 120, 2.0, tax_us=6.0, dynamic=True))
    row = dict(v.side_by_side.quantities)["graph-capture valid?"]
    assert row and all(c == "— (no graph)" for c in row), row
    graph = dict(view(Knobs("graph", 120, 2.0, tax_us=6.0)).side_by_side.quantities)["graph-capture valid?"]
    assert set(graph) == {"TRUE"}


@pytest.mark.skipif(REC is None, reason="needs the shipped sweep recording")
@pytest.mark.parametrize("mode,tax", [("streams", 20.0), ("eager", 100.0)])
def test_off_grid_tax_puts_the_textbook_chips_at_the_shown_points_tax(mode, tax):
    """The line above the chips says they are for the recorded point; they were priced at the
    knob's tax (100 µs: "textbook 12.0 ms" beside a point measured at 28 µs a launch). They are
    priced at the tax that point asked for (the GPU's own plus what it added, the tax its column's
    note names), as an exact point's chips are priced at the knob's: not at the tax it measured,
    which the host's drift moved (a column "recorded at tax 14.39 µs" showed 120 x 15.62)."""
    k = Knobs(mode, 120, 2.0, tax_us=tax)
    shown = src.shown(False, REC, k)
    assert shown.note, "the recording now has a point at this tax"
    v = wv.widget_view(k, SimpleNamespace(live=False, recording=REC, recordings=[REC]), shown, src)
    d = shown.numbers
    asked = REC.meta.intrinsic_tax_us + d["extra_tax_us"]
    book = src.textbook(k.replace(n=d["n"], work_us=d["work_us"], tax_us=round(asked, 3)))
    assert f"tax {asked:.4g} µs" in shown.note   # the note names the tax the chips use
    assert by_stem(v)["wall time / step"].delta == f"textbook {wv.fmt_us(book['wall_us'])}"
    assert by_stem(v)["wall time / step"].delta != f"textbook {wv.fmt_us(src.textbook(k)['wall_us'])}"


def test_without_a_recording_the_simulator_is_the_column_and_no_measured_timeline():
    v = view(Knobs("streams", 50, 2.0, tax_us=6.0), rec=None)
    assert v.badge == ("simulated", "SimDevice with a 6 µs launch tax")
    assert v.timeline.choices == ["simulated", "textbook model"] and v.measured is None
    assert v.tabs == ["Side by side", "Dynamic shapes", "Timeline files"]
    assert v.timeline.spans == v.simulated["timeline"]


def test_dynamic_graph_shows_the_policy_panel_and_the_fallback_caption():
    v = view(Knobs("graph", 120, 2.0, tax_us=6.0, dynamic=True))
    assert v.dynamic_hint == "" and prose("widget", "fallback") in v.side_by_side.captions
    assert "FALSE" in by_stem(v)["graph valid?"].value
    assert view(Knobs("eager", 120, 2.0, tax_us=6.0)).dynamic_hint == prose("widget", "dynamic_hint")
    # the table's title says the graph did not run, as every column under it does
    assert v.side_by_side.title.endswith(", each shape miss run without the graph")
    kept = view(Knobs("graph", 120, 2.0, tax_us=6.0, dynamic=True, policy="recapture"))
    assert "without the graph" not in kept.side_by_side.title


def test_the_view_module_draws_nothing():
    import ast
    from pathlib import Path
    tree = ast.parse(Path(wv.__file__).read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "streamlit" not in imported


@pytest.mark.skipif(REC is None, reason="needs the shipped sweep recording")
def test_measured_is_not_offered_where_the_recording_has_no_timeline_for_the_setting():
    """Graph mode with dynamic shapes and recapture on the recording: the radio stayed on "timeline:
    measured" while the simulated timeline was drawn (with a caption saying so)."""
    k = Knobs("graph", 120, 2.0, tax_us=6.0, dynamic=True, policy="recapture")
    shown = src.shown(False, REC, k)
    assert not shown.fallback and not shown.numbers.get("timeline"), "the recording now has this timeline"
    v = view(k, pick="measured")
    assert "measured" not in v.timeline.choices and v.timeline.pick == "simulated"
    assert "showing the simulated one" in v.timeline.caption
    assert view(k, pick="textbook model").timeline.caption == ""
    assert "measured" in view(Knobs("graph", 120, 2.0, tax_us=6.0)).timeline.choices


@pytest.mark.skipif(REC is None, reason="needs the shipped sweep recording")
def test_a_zero_copy_replay_is_not_drawn_with_the_copying_replays_timeline():
    """The recording traced graph mode with its input copied in. Zero-copy was offered "measured"
    too, and drew that trace: a copy into the static buffer in a step that copies nothing."""
    copying = view(Knobs("graph", 120, 2.0, tax_us=6.0, graph_input="copy"))
    assert copying.timeline.pick == "measured" and any(s["kind"] == "copy" for s in copying.timeline.spans)
    zero = view(Knobs("graph", 120, 2.0, tax_us=6.0, graph_input="zero-copy"), pick="measured")
    assert "measured" not in zero.timeline.choices
    assert not any(s["kind"] == "copy" for s in zero.timeline.spans)
    # the caption names what was traced, read off the recording, not a sentence that outlived it
    from runtime_core.recordings.lookup import traced_settings
    assert traced_settings(REC) in zero.timeline.caption and "with dynamic shapes" in traced_settings(REC)


def test_the_phone_result_line_carries_the_headline_numbers_and_their_source():
    """On a phone the knobs stack above the cards: a knob's change showed no number on screen."""
    v = view(Knobs("eager", 120, 2.0, tax_us=6.0))
    line = wv.result_line(v)
    m = by_stem(v)
    assert line.startswith(f"Result ({v.badge[0]}, ") and m["launch overhead"].value in line
    assert f"wall time / step {m['wall time / step'].value}" in line and "driver calls" in line
    if REC is not None:  # an off-grid point says which point it is, as the cards' line does
        k = Knobs("eager", 169, 2.0, tax_us=6.0)
        shown = src.shown(False, REC, k)
        off = wv.result_line(view(k), shown.note)
        assert shown.note and f"{shown.note}, not your setting" in off


@pytest.mark.skipif(REC is None, reason="needs the shipped sweep recording")
def test_a_point_off_only_in_n_keeps_the_knobs_tax_in_its_chips_as_an_exact_point_does():
    """Eager at tax 6: the exact N=120 point's chip read "textbook 720 µs"; the same point shown
    for N=169 must not jump to 1,030 µs because its measured tax replaced the knob's."""
    exact = by_stem(view(Knobs("eager", 120, 2.0, tax_us=6.0)))
    off = by_stem(view(Knobs("eager", 169, 2.0, tax_us=6.0)))
    assert exact["launch overhead"].delta == off["launch overhead"].delta == "textbook 720 µs"
    assert exact["wall time / step"].delta == off["wall time / step"].delta


def test_a_metric_and_its_textbook_chip_share_a_unit_when_one_reads_in_ms():
    assert wv.fmt_us(6000.0) == "6,000 µs" and wv.fmt_us(6000.0, like=14_800.0) == "6.00 ms"
    assert wv.fmt_us(14_800.0, like=6000.0) == "14.8 ms" and wv.fmt_us(720.0, like=14_800.0) == "720 µs"


def test_a_timeline_of_only_the_first_kernels_says_so_in_its_title():
    """The textbook model draws a long step's first 400 kernels: the title used to name the whole
    step of 2,000 with no word that most of it was left out."""
    t = view(Knobs("eager", 2000, 2.0, tax_us=6.0), pick="textbook model").timeline
    kernels = sum(1 for s in t.spans if (s["kind"] if isinstance(s, dict) else s.kind) == "kernel")
    assert kernels < 2000 and f"its first {kernels:,} of 2,000 kernels drawn" in t.title
    assert "kernels drawn" not in view(Knobs("eager", 120, 2.0, tax_us=6.0), pick="textbook model").timeline.title


def test_the_recapture_caption_names_the_columns_that_stormed_and_only_those():
    from pages.ui.widget_panels import _storm_where
    calm, storm = {"captures": 4, "distinct_shapes": 4}, {"captures": 26, "distinct_shapes": 9, "evictions": 22}
    both = _storm_where({"simulated": calm, "recorded H200": storm})
    assert "a capture storm, in the recorded H200 column; the simulated run made too few calls" in both
    assert "capture storm" not in _storm_where({"simulated": calm})
    # evicted, but never back to an evicted shape (a short live run): no storm yet
    assert "capture storm" not in _storm_where({"live": {"captures": 6, "distinct_shapes": 6, "evictions": 2}})
    assert "columns." in _storm_where({"simulated": storm, "live": storm})

"""Every chart draws from the Okabe-Ito palette (pages/ui/palette.py), and series that share a lane
differ by more than colour."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHART_MODULES = ("timeline_chart", "alloc_charts", "lab_charts", "diagnose_charts")
OKABE_ITO = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}


def _colours(fig) -> set[str]:
    """Every colour a figure's traces and shapes ask for (marker, line, hatch), as drawn."""
    found = set()

    def walk(x, key=""):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v, key)
        elif isinstance(x, str) and key.endswith("color"):
            found.add(x.upper())
    d = fig.to_dict()
    walk(d["data"])
    walk(d["layout"].get("shapes", []))
    return found


def _figures():
    """One figure of each chart module, drawn from the data its page draws."""
    from pages.ui import alloc_charts, diagnose_charts, lab_charts
    from pages.ui.timeline_chart import timeline_figure
    from runtime_core.allocator import hot_path
    from runtime_core.knobs import Knobs
    from runtime_core.labs import run_lab
    from runtime_core.model.formulas import predict
    overlap, malloc, fusion = (run_lab(n, "sim") for n in ("overlap", "malloc", "fusion"))
    alloc = hot_path.hot_path_sim(steps=3, empty_cache_each_step=True)
    points = [{"batch": b, "eager_us": 10.0 * b, "predicted_eager_us": 11.0 * b, "graph_us": 5.0 * b + 30,
               "predicted_graph_us": 5.5 * b + 30, "measured_graph_speedup": 1.5, "predicted_graph_speedup": 1.4}
              for b in (1, 2, 4)]
    return {
        "timeline_chart": timeline_figure(predict(Knobs("streams", 8, 2.0, tax_us=6.0)).timeline_rows(), "t"),
        "lab_charts": lab_charts.lanes_figure(overlap["timelines"]["pinned"], "t", lab_charts.OVERLAP_STYLE,
                                              ["cpu", "gpu copy", "gpu compute"]),
        "lab_charts (malloc)": lab_charts.lanes_figure(malloc["timelines"]["raw_each_step"], "t",
                                                       lab_charts.MALLOC_STYLE, ["cpu", "gpu"]),
        "lab_charts (bars)": lab_charts.work_vs_overhead_bars(fusion["rows"], "t"),
        "alloc_charts (memory)": alloc_charts.memory_over_time(alloc["samples"], "t"),
        "alloc_charts (host)": alloc_charts.host_timeline(alloc["spans"], "t"),
        "diagnose_charts (sweep, times)": diagnose_charts.sweep_figures(points, None)[0],
        "diagnose_charts (sweep, speedup)": diagnose_charts.sweep_figures(points, {"measured": 2, "predicted": 4})[1],
        "diagnose_charts (planner)": diagnose_charts.planner_figure(
            {"powers of two": {"expected_step_us": 50.0, "capture_us_per_request": 2.0, "objective_us": 52.0,
                               "captures": 3, "pool_bytes": 1 << 20, "wasted_work_pct": 5.0}}),
    }


def test_every_chart_draws_in_the_palettes_colours():
    from pages.ui import palette
    allowed = {c.upper() for c in (*OKABE_ITO, palette.GREY, palette.LIGHT_GREY, palette.INK)} | {"WHITE"}
    for name, fig in _figures().items():
        assert _colours(fig), name
        assert _colours(fig) <= allowed, (name, _colours(fig) - allowed)


def test_the_palette_is_okabe_ito_plus_greys():
    from pages.ui import palette
    assert set(palette.CYCLE) - {palette.GREY} <= OKABE_ITO
    assert {palette.BLACK, palette.ORANGE, palette.SKY_BLUE, palette.GREEN, palette.YELLOW, palette.BLUE,
            palette.VERMILLION, palette.PURPLE} == OKABE_ITO


def test_kinds_on_one_timeline_lane_differ_by_colour_and_hatch_together():
    from pages.ui.lab_charts import MALLOC_STYLE, OVERLAP_STYLE
    from pages.ui.timeline_chart import KIND_STYLE
    for style in (KIND_STYLE, OVERLAP_STYLE, MALLOC_STYLE):
        looks = [(colour, hatch) for _, colour, hatch in style.values()]
        assert len(set(looks)) == len(looks)
        labels = [label for label, _, _ in style.values()]
        assert len(set(labels)) == len(labels) and all(labels)  # each named in the legend


def test_a_timeline_names_its_lanes_and_series_in_text():
    from pages.ui.timeline_chart import timeline_figure
    spans = [{"lane": "cpu", "kind": "launch", "name": "launch", "start_us": 0, "end_us": 6},
             {"lane": "gpu", "kind": "kernel", "name": "add", "start_us": 6, "end_us": 8}]
    fig = timeline_figure(spans, "t")
    assert {t.name for t in fig.data} == {"CPU launch tax", "GPU kernel work"}
    assert set(fig.layout.yaxis.categoryarray) == {"CPU (host)", "GPU"}
    assert fig.layout.legend.yref == "container" and fig.layout.legend.orientation == "h"


def _hatched_figures():
    """Every chart with hatched bars, drawn as its page draws it (page 3's block maps, its host
    timeline and its lesson-06 plan; the lab lanes; the timelines; the planner; the snapshot lab)."""
    from pages.ui import alloc_charts, labs29_panels
    from runtime_core.allocator import labs
    from runtime_core.allocator.playground import Playground
    from runtime_core.allocator.plan_report import plan_report
    from runtime_core.labs import alloc_snapshot
    from tests.labs29_synthetic import synthetic_snapshot
    pg = Playground()  # page 3's playground: one block allocated, one free, one awaiting an event
    pg.malloc(256 * 1024)
    pg.malloc(256 * 1024)
    pg.free_newest()
    pg.use_on_side_then_free(1000.0, record_stream=True)
    plan = plan_report("cpu")
    figs = dict(_figures())
    figs.update({
        "alloc_charts (playground map)": alloc_charts.block_map(pg.pool.snapshot(), "t"),
        "alloc_charts (fragmentation map)": alloc_charts.block_map(labs.run_order(next(iter(labs.ORDERS)))["snapshot"],
                                                                   "t"),
        "alloc_charts (plan)": alloc_charts.plan_layout(plan["layout"], plan["arena_bytes"]),
        "labs29_panels (lifetimes)": labs29_panels.lifetimes_figure(
            alloc_snapshot.reduce_snapshot(synthetic_snapshot()), "t"),
    })
    return figs


def _contrast_ratio(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours ("#RRGGBB", "white" or "black")."""
    def luminance(c: str) -> float:
        c = {"WHITE": "#FFFFFF", "BLACK": "#000000"}.get(c.upper(), c).lstrip("#")
        lin = [(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)
               for v in (int(c[i:i + 2], 16) / 255 for i in (0, 2, 4))]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def test_a_hatch_is_drawn_over_its_series_colour_never_in_its_place():
    """Plotly's default pattern.fillmode "replace" draws the hatch on a transparent background in
    place of the marker colour: page 3's ninth plan buffer (`proj`) went white on white, "free
    (cached)" black on white. Each hatched trace must keep its colour under a hatch that shows."""
    hatched = {}
    for name, fig in _hatched_figures().items():
        for trace in fig.data:
            marker = getattr(trace, "marker", None)
            pattern = getattr(marker, "pattern", None) if marker is not None else None
            if pattern is None or not pattern.shape:
                continue
            where = (name, trace.name)
            colour = marker.color
            assert isinstance(colour, str), where
            # what Plotly paints under the hatch: bgcolor if given, else the marker colour in
            # "overlay" mode and nothing (transparent) in "replace", its default
            background = pattern.bgcolor or (colour if pattern.fillmode == "overlay" else None)
            assert background is not None and background.upper() == colour.upper(), (where, pattern)
            assert pattern.fgcolor and _contrast_ratio(pattern.fgcolor, colour) >= 3, (where, pattern)
            hatched[where] = colour
    names = {trace for _, trace in hatched}
    assert {"proj", "free (cached)", "freed, awaiting stream event", "cudaFree",
            "launch overhead: wall − work (µs), hatched", "its share of the captures",
            "still allocated at the end"} <= names, names
    assert hatched[("alloc_charts (plan)", "proj")].upper() == "#0072B2"  # the palette's blue, hatched


def test_the_plan_charts_repeated_colour_is_told_apart_by_a_pattern_that_means_no_state():
    """On page 3 a "/" hatch means a free cached block and "x" a block awaiting its stream event: the
    ninth plan buffer (blue again) is dotted, never hatched like a state."""
    figs = _hatched_figures()
    proj = next(t for t in figs["alloc_charts (plan)"].data if t.name == "proj")
    state_hatches = {t.marker.pattern.shape for name, fig in figs.items() if name.startswith("alloc_charts (")
                     and name != "alloc_charts (plan)"
                     for t in fig.data if getattr(getattr(t, "marker", None), "pattern", None) is not None
                     and t.marker.pattern.shape}
    assert proj.marker.pattern.shape == "." and "." not in state_hatches and "/" in state_hatches


def test_a_dotted_plan_buffers_name_is_black_on_a_white_halo():
    """The dots under "proj" made its name hard to read (a phone review): a dotted buffer's name is
    black with a white halo; an undotted one keeps Plotly's contrasting text colour."""
    from pages.ui import palette
    plan = _hatched_figures()["alloc_charts (plan)"]
    for t in plan.data:
        font = t.insidetextfont
        if t.marker.pattern.shape:
            assert font.color == palette.BLACK and "white" in (font.shadow or ""), t.name
        else:
            assert font.color is None and font.shadow is None, t.name


def _lines_and_markers(fig) -> list[tuple[str, str | None]]:
    """(what, colour) of every line and marker that is not a bar's fill: scatter traces' lines and
    markers, and the shapes (hline, vline). A shape's colour None: Plotly's default, black."""
    out = []
    d = fig.to_dict()
    for t in d["data"]:
        if t.get("type", "scatter") != "scatter":
            continue
        for part in ("line", "marker"):
            colour = (t.get(part) or {}).get("color")
            if isinstance(colour, str) and (t.get(part) or {}).get("width", 1) != 0:
                out.append((f"{t.get('name')} {part}", colour))
    for shape in d["layout"].get("shapes", []):
        out.append((f"shape {shape.get('type')}", (shape.get("line") or {}).get("color")))
    return out


def test_every_line_and_marker_shows_on_the_dark_theme_too():
    """A reference line in black vanished on the dark theme (page 3's "arena size", page 7's
    crossovers and 1.2x line, page 6's model diamonds): each line and marker has 3:1 contrast or
    more on the dark page, and a shape names its colour (Plotly's default is black)."""
    from pages.ui import palette
    from pages.ui.diagnose_charts import external_figure, sweep_figures
    points = [{"batch": b, "eager_us": 10.0 * b, "predicted_eager_us": 11.0 * b, "graph_us": 5.0 * b + 30,
               "predicted_graph_us": 5.5 * b + 30, "measured_graph_speedup": 1.5, "predicted_graph_speedup": 1.4}
              for b in (1, 2, 4)]
    figs = dict(_hatched_figures())
    figs["diagnose_charts (sweep, crossovers)"] = sweep_figures(points, {"measured": 2, "predicted": 4})[1]
    figs["diagnose_charts (external)"] = external_figure(
        [{"model": f"validation.external:{m}", "dtype": "fp32", "batch": 1, "seq": None, "measured_graph_speedup": x,
          "predicted_graph_speedup": 2.1, "predicted_speedup_band": [1.9, 2.3]} for m, x in (("a", 2.0), ("b", 1.1))],
        [{"model": "validation.external:a", "dtype": "fp32", "batch": 1, "seq": None, "measured_graph_speedup": 2.2,
          "predicted_graph_speedup": 2.1, "predicted_speedup_band": [1.9, 2.3]}], 0.15, "t")
    from pages.ui.widget_panels import _accuracy_figure
    from runtime_core.recordings import load
    figs["widget_panels (model accuracy)"] = _accuracy_figure(load(ROOT / "lessons" / "recordings" / "sweep_h200.json"), 0.15)
    seen = 0
    for name, fig in figs.items():
        for what, colour in _lines_and_markers(fig):
            seen += 1
            assert colour is not None, (name, what, "no colour: Plotly draws it black")
            assert _contrast_ratio(colour, palette.DARK_BACKGROUND) >= 3.0, (name, what, colour)
    assert seen > 10

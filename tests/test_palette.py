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
    allowed = {c.upper() for c in (*OKABE_ITO, palette.GREY, palette.LIGHT_GREY)} | {"WHITE"}
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

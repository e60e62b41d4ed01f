"""Every chart draws from the Okabe-Ito palette (pages/ui/palette.py), and series that share a lane
differ by more than colour."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHART_MODULES = ("timeline_chart", "alloc_charts", "lab_charts", "diagnose_charts")
OKABE_ITO = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}


def test_chart_modules_take_their_colours_from_the_palette():
    for name in CHART_MODULES:
        text = (ROOT / "pages" / "ui" / f"{name}.py").read_text(encoding="utf-8")
        assert "palette" in text, name
        assert not re.findall(r"#[0-9A-Fa-f]{6}\b", text), f"{name} types its own colours"
        assert not re.search(r"color=\"(?:grey|gray|black|red|green|blue)\"", text), name


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

"""The fusion lab's bars keep their labels level and short: a one-line label with the mode's long
name was set on its side by Plotly and took three quarters of the chart's height (issue 27)."""
import pytest

pytest.importorskip("plotly")

from pages.ui.lab_charts import work_vs_overhead_bars  # noqa: E402
from runtime_core.labs import run_lab  # noqa: E402


def test_the_fusion_bars_labels_are_level_and_a_few_short_lines():
    r = run_lab("fusion", backend="sim")
    fig = work_vs_overhead_bars(r["rows"], "t")
    assert fig.layout.xaxis.tickangle == 0
    for label in fig.data[0].x:
        lines = label.split("<br>")
        assert len(lines) == 3 and max(len(s) for s in lines) <= 12, label
    assert {lbl.split("<br>")[1] for lbl in fig.data[0].x} == {"streams", "graph"}

"""Table cells a student can read: whole counts without ".0", a few significant figures, escaped
Markdown, long words that can wrap; and chart titles that move out of the figure as plain text."""
import pytest

pytest.importorskip("streamlit")  # the GPU machine has no streamlit unless its wheels are carried
from pages.ui.tables import ZWSP, cell, num, plain


@pytest.mark.parametrize("value,text", [
    (3, "3"), (3.0, "3"), (48429.0719999671, "48,429"), (7.450580596923828e-08, "7.45e-08"),
    (12.345, "12.3"), (1.2345, "1.23"), (0.012345, "0.0123"), (123.456, "123"), (2_000_000, "2,000,000"),
    (None, "—"), (float("nan"), "—"), (True, "yes"), (False, "no"), ("as typed", "as typed"), (-3.25, "-3.25"), (0.074, "0.074"),
    (2.5, "2.5"), (9.999, "10"), (0.0005, "0.0005"), (0.00012345, "0.000123"),
])
def test_num_rounds_to_a_few_significant_figures(value, text):
    assert num(value) == text


def test_num_appends_a_unit():
    assert num(2, unit="MB") == "2 MB" and num(0.25, unit="s") == "0.25 s" and num(0, unit="s") == "0 s"
    assert num(0.0157, unit="s") == "15.7 ms" and num(2.86e-04, unit="s") == "0.286 ms"   # not 2.86e-04 s
    assert num(4.2e-05, unit="s") == "42 µs"


def test_a_cell_is_escaped_markdown_with_break_points_in_long_words():
    c = cell('torch.compile(mode="reduce-overhead") [x](https://evil.example)')
    assert "](" not in c.replace("\\]", "").replace("\\(", "")  # no live link
    assert ZWSP in c  # the long word can wrap
    assert plain(c) == 'torch.compile(mode="reduce-overhead") [x](https://evil.example)'
    assert cell("short words stay") == "short words stay"


def test_a_chart_title_moves_out_of_the_figure_as_plain_text():
    import plotly.graph_objects as go

    from pages.ui.charts import title_lines
    fig = go.Figure(layout=dict(title="graphs stop paying (< 1.2x) at batch > 512<br>measured &amp; <b>predicted</b>"))
    assert title_lines(fig) == ["graphs stop paying (< 1.2x) at batch > 512", "measured & predicted"]


def test_a_factor_reads_as_the_prose_writes_it():
    from pages.ui.tables import num
    assert num(3.2712, unit="x") == "3.27x" and num(48429.07, unit="µs") == "48,429 µs"

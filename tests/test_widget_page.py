"""The launch-overhead widget as a student uses it: knobs, metrics, both timeline lanes, the URL."""
import pytest

from conftest import open_page
from pages.ui.safe_text import unescape

PAGE = "pages/6_Launch_overhead_killer.py"


def open_widget(query=None):
    return open_page(PAGE, query)


def metrics(at, row: int = 0):
    """The metrics of one row: row 0 is the textbook model, row 1 the GPU or the simulator."""
    labels = ("total launch overhead", "wall time / step", "driver calls")
    return {label: [m.value for m in at.metric if m.label == label][row] for label in labels}


def expected_source() -> str:
    """Where this machine's numbers come from, worked out without the page: a GPU measures live;
    otherwise the best shipped sweep (recorded, or simulated if only a simulated one ships)."""
    from runtime_core.engine.device import cuda_available
    from runtime_core.recordings import store
    if cuda_available():
        return "live"
    rec = store.best("sweep")
    return rec.meta.source if rec else "simulated"


def test_landing_page_renders_with_a_source_badge():
    """The badge is the one st.info under "Where the numbers come from": exactly this machine's
    source label (the page also lists every label in prose, and the sidebar names the source in
    a caption, so finding the word "RECORDED" somewhere on the page proves nothing)."""
    from pages.ui.common import SOURCE_LABELS
    at = open_page()
    assert "Where the numbers come from" in [s.value for s in at.main.subheader]
    source = expected_source()
    assert [i.value for i in at.main.info] == [SOURCE_LABELS[source]]  # a badge, then what it means
    if source == "recorded":  # and it names the recording it replays
        captions = unescape(" ".join(c.value for c in at.main.caption))
        assert "measured numbers replay a shipped recording: NVIDIA H200" in captions


def test_defaults_are_the_seeds_and_graph_mode_is_one_call():
    at = open_widget()
    assert at.slider(key="w_n").value == 120 and at.radio(key="w_mode").value == "graph"
    assert at.number_input(key="w_tax").value == 6 and at.number_input(key="w_work").value == 2
    assert metrics(at)["driver calls"] == "1"


def test_every_knob_changes_the_numbers_and_the_figure_has_both_lanes():
    at = open_widget()
    at.radio(key="w_mode").set_value("eager").run()
    assert metrics(at)["total launch overhead"] == "720 µs"  # the textbook row comes first
    at.slider(key="w_n").set_value(200).run()
    at.number_input(key="w_tax").set_value(10.0).run()
    at.number_input(key="w_work").set_value(5.0).run()
    assert metrics(at)["total launch overhead"] == "2,000 µs"
    measured = metrics(at, row=1)
    captions = unescape(" ".join(c.value for c in at.caption))  # what a student reads
    if "RECORDED" in captions:  # no GPU here: the nearest recorded point, said so on the page
        assert "nearest recorded point: N=300" in captions and measured["driver calls"] == "300"
    else:
        assert measured["driver calls"] == "200"
    at.radio(key="w_mode").set_value("graph").run()
    at.checkbox(key="w_dynamic").set_value(True).run()
    assert not at.exception
    assert any("FALSE" in m.value for m in at.markdown)
    at.selectbox(key="w_policy").set_value("bucket").run()
    assert not at.exception
    chart = at.get("plotly_chart")[0]
    spec = chart.proto.spec
    assert '"CPU (host)"' in spec and '"GPU"' in spec


def test_knobs_come_from_the_url_and_junk_falls_back_with_a_notice():
    at = open_widget({"n": "300", "mode": "streams", "work": "40"})
    assert at.slider(key="w_n").value == 300 and at.radio(key="w_mode").value == "streams"
    at = open_widget({"n": "banana", "tax": "-3", "mode": "warp"})
    assert at.slider(key="w_n").value == 120 and at.radio(key="w_mode").value == "graph"
    notices = unescape(" ".join(w.value for w in at.warning))
    assert "n=banana" in notices and "mode=warp" in notices and "tax=-3" in notices

"""Page 6's knobs survive a browser that missed the run which set them (issue 21: under
`make loadtest SPREAD_N=1` with 20 sessions one session's N became 1).

A knob's value reaches the browser two ways: as a one-shot `set_value` in the run that put it
in session state (the URL's values on the first run, the slider and box syncing each other),
and as the element's default in every run. Streamlit drops a run's unsent messages when a
rerun interrupts it, so under load a browser can miss the one-shot and mount the knob from its
default; it then sends that default back with its next change, and the box's on_change copied
it into N. The defaults were the widgets' own (the box's min_value 1, the slider's first stop 1,
the first mode, ...). Each knob is now drawn with the setting as its default, so a browser
that mounts it from the element shows, and sends, the setting.

`browser_from_defaults` plays that browser in AppTest: every knob's value is what its element
alone says (its default), and a knob change follows."""
import pytest

from conftest import open_page

PAGE = "pages/6_Launch_overhead_killer.py"
QUERY = {"n": "300", "work": "4.5", "tax": "7", "mode": "streams", "dynamic": "1", "policy": "bucket",
         "input": "zero-copy"}
QUERIES = [QUERY, dict(QUERY, n="130", mode="graph", dynamic="0")]


def element_default(w):
    """The value a browser shows for knob `w` when it has only the element (no set_value)."""
    from pages.ui.knobs import GRAPH_INPUTS, MODES, POLICIES
    p, kind = w.proto, type(w).__name__
    raw = {"w_mode": MODES, "w_policy": POLICIES, "w_input": GRAPH_INPUTS}  # AppTest lists options formatted
    if kind == "NumberInput":  # the proto's default is a double; an int box shows it as an int
        return int(p.default) if p.data_type == p.INT else p.default
    if kind == "SelectSlider":  # indices into the options (N's stops, as text)
        return int(w.options[int(p.default[0])])
    if kind == "Radio":  # (w_mode, w_input)
        return raw[w.key][int(p.default)]
    if kind == "Selectbox":
        return raw[w.key][int(p.default[0]) if hasattr(p.default, "__len__") else int(p.default)]
    if kind == "Checkbox":
        return bool(p.default)
    raise AssertionError(kind)


def knobs(at) -> dict:
    out = {w.key: w for w in (*at.number_input, *at.select_slider, *at.radio, *at.checkbox, *at.selectbox)
           if w.key and w.key.startswith("w_") and not w.key.startswith("w_timeline_source")}
    assert {"w_work", "w_tax", "w_mode", "w_dynamic", "w_policy", "w_input"} <= set(out)
    assert {k.rsplit("_", 1)[0] for k in out if k.startswith("w_n_")} == {"w_n_pick", "w_n_box"}
    return out


def setting(at) -> dict:
    s = at.session_state
    return {k: s[k] for k in ("w_n", "w_work", "w_tax", "w_mode", "w_dynamic", "w_policy", "w_input")}


@pytest.mark.parametrize("query", QUERIES, ids=["on-a-stop", "off-the-stops"])
def test_every_knob_is_drawn_with_the_setting_as_its_default(query):
    at = open_page(PAGE, query)
    for key, w in knobs(at).items():
        shown = element_default(w)
        assert shown == w.value, (key, shown, w.value)


@pytest.mark.parametrize("query", QUERIES, ids=["on-a-stop", "off-the-stops"])
def test_a_browser_that_mounts_the_knobs_from_their_defaults_keeps_the_setting(query):
    at = open_page(PAGE, query)
    before = setting(at)
    at.run()  # a later run: no knob is set this time, so nothing is sent as a one-shot
    for key, w in knobs(at).items():  # the browser that missed the first run's one-shots
        if key != "w_work" and not w.disabled:  # AppTest, like a student, can't set a disabled one
            w.set_value(element_default(w))
    at.number_input(key="w_work").set_value(6.5).run()  # and a student changes the work
    assert not at.exception
    assert setting(at) == dict(before, w_work=6.5)


def _by_label(tree, kind: str, label: str):
    return next(w for w in getattr(tree, kind) if w.label == label)


@pytest.mark.parametrize("moved", ["box", "slider"])
def test_a_browser_behind_by_one_run_cannot_put_the_old_n_back(moved):
    """The student sets N with one widget and changes the work before the browser has seen the
    run that followed: the browser still shows the old N in the other widget and sends it. That
    widget is not the one the page now draws (render_n gives it a fresh key), so the old value
    reads as no change; before, its on_change copied the old N back."""
    at = open_page(PAGE, {"n": "120", "mode": "graph"})
    stale = at._tree  # what the browser holds: the page as it was before the student's change
    new_n = 130 if moved == "box" else 200
    if moved == "box":
        _by_label(at, "number_input", "N").set_value(new_n).run()
    else:
        _by_label(at, "select_slider", "kernels in the chain, N").set_value(new_n).run()
    assert at.session_state["w_n"] == new_n
    # the browser: the widget the student moved shows the new N, the other one still 120
    _by_label(stale, "number_input", "N").set_value(new_n if moved == "box" else 120)
    _by_label(stale, "select_slider", "kernels in the chain, N").set_value(120 if moved == "box" else new_n)
    _by_label(stale, "number_input", "GPU work / kernel (µs)").set_value(6.5)
    # the timeline radio offers "measured" only where the recording has that setting's timeline (N=200
    # has none), and names its first choice "timeline: ...": AppTest formats the stale radio's value by
    # the new run's labels, so it is given a choice both runs offer and label alike
    next(r for r in stale.radio if r.key.startswith("w_timeline_source")).set_value("textbook model")
    stale.run()
    assert not at.exception
    assert at.session_state["w_n"] == new_n and at.session_state["w_work"] == 6.5

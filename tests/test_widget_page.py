"""The launch-overhead widget as a student uses it: knobs, metrics, both timeline lanes, the URL."""
import pytest

from conftest import open_page
from pages.ui.safe_text import unescape

PAGE = "pages/6_Launch_overhead_killer.py"


def open_widget(query=None):
    return open_page(PAGE, query)


def n_box(at):
    """The N box: its key changes with each N the slider sets (pages/ui/knobs.render_n)."""
    return next(w for w in at.number_input if w.label == "N")


def n_slider(at):
    return next(w for w in at.select_slider if w.label == "kernels in the chain, N")


def metrics(at) -> dict:
    """The headline metrics by label stem ("launch overhead", "wall time / step", "driver calls",
    "graph valid?"): (label, value, textbook delta)."""
    out = {}
    for m in at.metric:
        stem = m.label.split(" (")[0]
        out[stem] = (m.label, m.value, m.delta)
    return out


def side_by_side(at) -> dict:
    """The side-by-side table as {quantity: {column: cell as a reader sees it}}."""
    from pages.ui.tables import plain
    df = at.table[0].value
    return {plain(row["per step"]): {plain(c): plain(row[c]) for c in df.columns if c != "per step"}
            for _, row in df.iterrows()}


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
        assert "GPU numbers replay shipped recordings (the widget's: NVIDIA H200" in captions
        assert "simulator" in captions and "this CPU" in captions  # not every number is the recording's


def test_defaults_are_the_seeds_and_graph_mode_is_one_call():
    at = open_widget()
    assert n_box(at).value == 120 and n_slider(at).value == 120
    assert at.radio(key="w_mode").value == "graph"
    assert at.number_input(key="w_tax").value == 6 and at.number_input(key="w_work").value == 2
    m = metrics(at)
    assert m["driver calls"][1] == "1" and m["driver calls"][2] == "textbook 1"
    assert m["launch overhead"][2] == "textbook 6.0 µs"  # textbook graph overhead: one launch


def test_the_log_slider_hits_10_and_120_and_the_box_takes_any_n():
    at = open_widget()
    assert {"1", "10", "120", "1000", "2000"} <= set(n_slider(at).options)
    n_slider(at).set_value(10).run()
    assert n_box(at).value == 10
    n_box(at).set_value(169).run()
    assert n_box(at).value == 169 and n_slider(at).value == 169
    assert "169" in n_slider(at).options  # off the stops: shown as typed, not as 150
    assert at.query_params["n"] == ["169"] or at.query_params["n"] == "169"
    n_box(at).set_value(130).run()
    assert n_slider(at).value == 130 and "169" not in n_slider(at).options
    n_slider(at).set_value(200).run()  # and the slider still drives the box
    assert n_box(at).value == 200 and "130" not in n_slider(at).options


def test_every_knob_changes_the_numbers_and_the_figure_has_both_lanes():
    at = open_widget()
    at.radio(key="w_mode").set_value("eager").run()
    assert metrics(at)["launch overhead"][2] == "textbook 720 µs"
    n_box(at).set_value(200).run()
    at.number_input(key="w_tax").set_value(10.0).run()
    at.number_input(key="w_work").set_value(5.0).run()
    m = metrics(at)
    if expected_source() == "recorded":  # no GPU here: the nearest recorded point, named in each label
        for stem in ("launch overhead", "wall time / step", "driver calls"):
            assert m[stem][0] == f"{stem} (recorded point)", m[stem]
        assert any("which is N=300" in c.value for c in at.main.caption)
        assert m["driver calls"][1] == "300" and m["driver calls"][2] == "textbook 300"
    elif expected_source() == "live":
        assert m["driver calls"][1] == "200" and "recorded at" not in m["driver calls"][0]
    table = side_by_side(at)
    assert table["launch overhead (µs)"]["textbook model"] == "2,000"
    at.radio(key="w_mode").set_value("graph").run()
    at.checkbox(key="w_dynamic").set_value(True).run()
    assert not at.exception
    assert "FALSE" in metrics(at)["graph valid?"][1]
    at.selectbox(key="w_policy").set_value("bucket").run()
    assert not at.exception
    chart = at.get("plotly_chart")[0]
    spec = chart.proto.spec
    assert '"CPU (host)"' in spec and '"GPU"' in spec


def test_dynamic_shapes_in_eager_say_the_recorded_step_is_a_run_of_its_own():
    """Without a graph, dynamic shapes have nothing to invalidate: a recorded step that moves when the
    box is ticked is another run, and the page says its difference is the host's pace."""
    if expected_source() != "recorded":
        pytest.skip("only a recording keeps a run per setting")
    at = open_widget()
    at.radio(key="w_mode").set_value("eager").run()
    assert not any("nothing for a new shape to invalidate" in i.value for i in at.info)
    at.checkbox(key="w_dynamic").set_value(True).run()
    assert not at.exception
    assert any("nothing for a new shape to invalidate" in i.value and "pace between the two runs" in i.value
               for i in at.info), [i.value for i in at.info]
    at.radio(key="w_mode").set_value("graph").run()   # in graph mode the policy panel says what happens
    assert not any("nothing for a new shape to invalidate" in i.value for i in at.info)


def test_off_grid_n_says_which_n_each_number_shows():
    """At N=169 the recording has no point: the recorded metrics say "recorded at N=120" in their
    own labels, compare with the textbook at N=120, and the measured timeline's title names N=120."""
    if expected_source() != "recorded":
        pytest.skip("only a recording has a grid (a live GPU measures every N)")
    at = open_widget()
    n_box(at).set_value(169).run()
    m = metrics(at)
    assert m["wall time / step"][0] == "wall time / step (recorded point)"
    assert any("your N=169" in c.value and "which is N=120" in c.value for c in at.main.caption)
    from runtime_core.knobs import Knobs
    from runtime_core.model.formulas import predict
    # off in N only: the knob's tax, as at an exact point (a point off in tax is priced at its own)
    book_120 = predict(Knobs("graph", 120, 2.0, tax_us=6.0)).metrics()["wall_us"]
    assert m["wall time / step"][2] == f"textbook {book_120:,.0f} µs"
    assert "One step at N=120: graph (measured)" in timeline_title(at)
    at.radio(key="w_timeline_source").set_value("simulated").run()
    assert "One step at N=169: graph (simulated)" in timeline_title(at)
    cols = list(side_by_side(at)["launch overhead (µs)"])
    assert [c for c in cols if c.endswith(" †")] == cols[-2:], cols   # the two at the recorded point
    assert any(c.value.startswith("† ") and "recorded at N=120" in c.value for c in at.main.caption)


def timeline_title(at) -> str:
    """The timeline's title, shown as wrapping page text above the chart (pages/ui/charts.show)."""
    from pages.ui.tables import plain
    titles = [plain(m.value) for m in at.markdown if "One step at N=" in m.value]
    assert len(titles) == 1, titles
    return titles[0].strip("*")


def test_knobs_come_from_the_url_and_junk_falls_back_with_a_notice():
    at = open_widget({"n": "300", "mode": "streams", "work": "40"})
    assert n_box(at).value == 300 and at.radio(key="w_mode").value == "streams"
    at = open_widget({"n": "banana", "tax": "-3", "mode": "warp"})
    assert n_box(at).value == 120 and at.radio(key="w_mode").value == "graph"
    notices = unescape(" ".join(w.value for w in at.warning))
    assert "n=banana" in notices and "mode=warp" in notices and "tax=-3" in notices
    # the default as the URL writes it (dynamic=0, tax=6), not Python's False and 6.0
    at = open_widget({"dynamic": "yes", "tax": "abc"})
    notices = unescape(" ".join(w.value for w in at.warning))
    assert "using the default dynamic=0." in notices and "using the default tax=6." in notices
    assert "False" not in notices and "6.0" not in notices


def _policy_table(policy: str):
    """Graph mode with dynamic shapes under `policy`, set by hand: the page and its counter table."""
    at = open_widget()
    at.radio(key="w_mode").set_value("graph").run()
    at.checkbox(key="w_dynamic").set_value(True).run()
    at.selectbox(key="w_policy").set_value(policy).run()
    assert not at.exception
    return at, next(t.value for t in list(at.table) + list(at.dataframe) if "counter" in t.value.columns)


def test_the_recapture_counters_name_their_source_and_their_calls():
    """The dynamic-shapes tab compares the simulator with the measured (or recorded) run: the
    column says which, each column says how many calls it made, and when the two differ a
    caption says why their counters differ (a storm needs more shapes than the cache holds)."""
    at, policy = _policy_table("recapture")
    assert "calls in the run (guard checks)" in policy.to_string().replace("\\", "")
    if expected_source() == "recorded":
        assert list(policy.columns)[2] == "recorded H200"
        captions = " ".join(c.value for c in at.main.caption)
        assert "different numbers of calls" in captions


def test_bucket_padding_that_differs_between_columns_is_explained_with_both_shares():
    """Bucket policy: the simulator padded 42% of its work, the H200 recording 16.5%, and their wall
    times differed by two fifths with nothing on the page to say why."""
    at, policy = _policy_table("bucket")
    row = policy[policy["counter"].astype(str).str.contains("padded")].iloc[0]
    pads = [float(str(v).replace("\\", "").rstrip("%")) for v in list(row)[1:]]
    captions = " ".join(c.value for c in at.main.caption)
    assert len(pads) == (2 if expected_source() == "recorded" else 1)
    if len(pads) == 2 and abs(pads[0] - pads[1]) >= 2:
        assert f"({pads[0]:.1f}% and {pads[1]:.1f}%)" in captions
    else:
        assert "pad different shares" not in captions


def test_zero_copy_is_greyed_out_with_dynamic_shapes():
    at = open_widget({"mode": "graph", "dynamic": "1", "policy": "bucket"})
    assert at.radio(key="w_input").disabled
    at = open_widget({"mode": "graph"})
    assert not at.radio(key="w_input").disabled


def test_the_dynamic_shapes_tab_says_why_the_recorded_column_is_missing():
    """Fallback on a shape miss: the recorded H200 point has times but no policy counters. The
    tab said nothing and showed the simulator alone, as if nothing had been recorded."""
    at = open_widget({"mode": "graph", "dynamic": "true", "policy": "fallback"})
    caps = " ".join(str(c.value) for c in at.caption)
    assert "has no policy counters for this setting" in caps, caps


def test_no_chart_title_is_clipped_and_the_drawing_notes_sit_under_it_as_a_caption():
    """A sliced timeline's title carries notes on how it was drawn (slices, kernels that ran):
    shown whole, the notes as a caption under the bold first line, never cut mid-word with
    "… (N more characters)"."""
    at = open_widget({"n": "120", "mode": "streams"})
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    assert not any("more characters)" in t for t in texts)
    title = timeline_title(at)
    assert "slice" not in title  # the first line alone is bold
    notes = [unescape(c.value) for c in at.caption if "a bar is a slice, not a kernel" in unescape(c.value)]
    assert notes and "GPU operations ran, spread over the whole step" in notes[0], notes


def test_at_the_defaults_the_url_stays_bare_and_a_change_writes_the_whole_setting():
    """Each URL change is a browser history entry: page 6 opened at its defaults writes nothing (it
    wrote all seven knobs, so the first Back seemed to do nothing); a change writes every knob, so
    the link shares the whole setting; back at the defaults the knobs leave the URL."""
    at = open_widget()
    assert not dict(at.query_params), dict(at.query_params)
    n_box(at).set_value(130).run()
    url = {k: (v if isinstance(v, str) else v[0]) for k, v in at.query_params.items()}
    assert url == {"n": "130", "tax": "6", "work": "2", "mode": "graph", "dynamic": "0", "policy": "fallback",
                   "input": "copy"}, url
    n_box(at).set_value(120).run()
    assert not dict(at.query_params), dict(at.query_params)


def test_a_shared_link_shows_the_timeline_source_the_sharer_picked():
    """An instructor review: the timeline's source (measured, simulated, textbook model) lived in
    the session only, so a shared link drew another chart than the sharer's."""
    at = open_widget()
    radio = next(r for r in at.radio if r.key and r.key.startswith("w_timeline_source"))
    radio.set_value("simulated").run()
    assert at.query_params["timeline"] in ("simulated", ["simulated"])
    again = open_widget({"timeline": "simulated"})
    assert next(r for r in again.radio if r.key and r.key.startswith("w_timeline_source")).value == "simulated"
    junk = open_widget({"timeline": "<i>x</i>"})
    assert any("timeline=" in w.value and "<i>" not in w.value for w in junk.warning)
    assert "timeline" not in junk.query_params

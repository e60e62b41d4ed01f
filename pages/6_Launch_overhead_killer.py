"""§6 The launch-overhead killer: eager vs streams vs CUDA-graph replay of N tiny kernels,
the textbook and calibrated models beside the simulator and a real GPU (live or recorded).

The live panel comes first (knobs beside the headline metrics and the timeline); the side-by-side
table, the policy counters, the model's accuracy and the comparison of recordings sit in tabs
under it, and the lesson's prose follows. What each part shows is pages/ui/widget_view.py's
widget_view(); this page only draws it."""
from pages.ui.common import PHONE_MAX_WIDTH_PX, render_lesson, setup_page, source_badge

import streamlit as st

from pages.ui import charts, knobs, tables as ui_tables, widget_sources as src
from pages.ui.safe_text import esc
from pages.ui.timeline_chart import STATIC_COPY, timeline_figure
from pages.ui.widget_panels import (accuracy_panel, compare_panel, downloads, draw_metrics, policy_panel,
                                    timeline_picker)
from pages.ui.widget_view import result_line, timeline_choices, widget_view
from runtime_core.errors import UsageError
from runtime_core.lesson.page_text import text as prose

# Only where the columns stack (a phone): the knobs then come first, some thousand pixels of them.
PHONE_RESULT_CSS = ("<style>.st-key-w_phone_result { display: none; } @media (max-width: %dpx) "
                    "{ .st-key-w_phone_result { display: block; } }</style>" % PHONE_MAX_WIDTH_PX)

ctx = setup_page("Launch-overhead killer", own_url=True)
notices = knobs.init_from_url()
st.title("Launch-overhead killer")
st.caption(prose("widget", "intro"))
for note in notices:
    st.warning(note)  # Markdown with the URL's values escaped (knobs.init_from_url)

knob_col, out_col = st.columns([1, 2.2], gap="medium")
with knob_col:
    floor = src.live_floor_us() if ctx.live else None
    rec_floor = ctx.recording.meta.intrinsic_tax_us if (ctx.recording and not ctx.live) else None
    k = knobs.render(floor if ctx.live else rec_floor, "this GPU" if ctx.live else "the recorded GPU")
    knobs.write_url(k)
    phone_result = st.container(key="w_phone_result")  # filled once the view is known (result_line)
    try:  # the price of this setting, before anything runs (the CLI's limit, engine/cost.py)
        src.check_cost(k.replace(extra_tax_us=0.0), src.sim_device(k))
        if ctx.live:
            src.check_cost(k.replace(extra_tax_us=max(0.0, k.tax_us - floor)), src.live_device())
    except UsageError as e:
        st.error(esc(e, max_chars=400))
        st.stop()

with out_col:
    if ctx.live:
        warm = src.live_gpu().status()
        if warm.state != "ready":
            st.caption(warm.describe())
        line = st.empty()  # the place in the GPU's line, while others measure
        with st.spinner("Measuring on the GPU…"):
            shown = src.shown(True, ctx.recording, k, on_wait=lambda w: line.info(w.describe()))
        line.empty()
        if shown.notice:
            st.info(shown.notice)
    else:
        shown = src.shown(False, ctx.recording, k)
    badge = st.container()
    metrics = st.container()
    choices = timeline_choices(shown)
    with st.container():
        picked = timeline_picker(choices)
    view = widget_view(k, ctx, shown, src, picked)
    with badge:
        source_badge(*view.badge)
        if view.tax_line:
            st.caption(view.tax_line)
    with metrics:
        draw_metrics(view.metrics)
    with phone_result:
        st.html(PHONE_RESULT_CSS)
        st.caption(esc(result_line(view, shown.note), max_chars=None))
    if view.timeline.caption:
        st.caption(view.timeline.caption)
    drawn = {"simulated": "simulated", "textbook model": "model"}.get(view.timeline.pick)
    if drawn and drawn != view.badge[0]:  # the cards above come from elsewhere: label the drawing itself
        source_badge(drawn, "the timeline below")
    charts.show(timeline_figure(view.timeline.spans, view.timeline.title, height=300, labels=STATIC_COPY),
                key="w_timeline")

tabs = dict(zip(view.tabs, st.tabs(view.tabs)))
with tabs["Side by side"]:
    table = view.side_by_side
    st.markdown(f"##### {table.title}")
    ui_tables.compare("per step", table.columns, table.quantities)
    for caption in table.captions:
        st.caption(caption)

with tabs["Dynamic shapes"]:
    if view.dynamic_hint:
        st.info(view.dynamic_hint)
    else:
        policy_panel(k, view.simulated, view.measured, shown.note, shown.label)

with tabs["Timeline files"]:
    st.caption(view.files_captions[0])
    downloads(view.timeline.spans, view.timeline.pick,
              shown.numbers.get("chrome_trace") if view.timeline.pick == "measured" else None)
    for caption in view.files_captions[1:]:
        st.caption(caption)

if "Model accuracy" in tabs:
    with tabs["Model accuracy"]:
        accuracy_panel(ctx.recording)
if "Compare recordings" in tabs:
    with tabs["Compare recordings"]:
        compare_panel(ctx.recordings, k)

st.divider()
render_lesson("06_launch_overhead_widget")

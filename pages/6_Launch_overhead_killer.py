"""§6 The launch-overhead killer: eager vs streams vs CUDA-graph replay of N tiny kernels,
the textbook and calibrated models beside the simulator and a real GPU (live or recorded).

The live panel comes first (knobs beside the headline metrics and the timeline); the side-by-side
table, the policy counters, the model's accuracy and the comparison of recordings sit in tabs
under it, and the lesson's prose follows."""
from pages.ui.common import render_lesson, setup_page, source_badge

import streamlit as st

from pages.ui import charts, knobs, tables as ui_tables, widget_sources as src
from pages.ui.safe_text import esc
from pages.ui.timeline_chart import timeline_figure
from pages.ui.widget_panels import (accuracy_panel, compare_panel, copy_costs, downloads, headline_metrics,
                                   policy_panel)
from runtime_core.errors import UsageError
from runtime_core.knobs import mode_label

ctx = setup_page("Launch-overhead killer")
notices = knobs.init_from_url()
st.title("Launch-overhead killer")
st.caption("N tiny kernels dispatched three ways. Turn the knobs; every number says where it came from.")
for note in notices:
    st.warning(note)  # Markdown with the URL's values escaped (knobs.init_from_url)

knob_col, out_col = st.columns([1, 2.2], gap="medium")
with knob_col:
    floor = src.live_floor_us() if ctx.live else None
    rec_floor = ctx.recording.meta.intrinsic_tax_us if (ctx.recording and not ctx.live) else None
    k = knobs.render(floor if ctx.live else rec_floor, "this GPU" if ctx.live else "the recorded GPU")
    knobs.write_url(k)
    try:  # the price of this setting, before anything runs (the CLI's limit, engine/cost.py)
        src.check_cost(k.replace(extra_tax_us=0.0), src.sim_device(k))
        if ctx.live:
            src.check_cost(k.replace(extra_tax_us=max(0.0, k.tax_us - floor)), src.live_device())
    except UsageError as e:
        st.error(esc(e, max_chars=400))
        st.stop()

book = src.textbook(k)
sim = src.simulated(k)
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
    d = shown.numbers
    at_shown = k if not shown.note else k.replace(n=d["n"], work_us=d["work_us"])
    detail = (f"this machine's GPU, measured at {d.get('measured_at', '?')}" if shown.source == "live" else
              f"SimDevice with a {k.tax_us:g} µs launch tax" if shown.fallback else
              f"{ctx.recording.meta.device_name}, {ctx.recording.meta.recorded_at[:10]}")
    source_badge(shown.source, detail)
    headline_metrics(d, shown.note, src.textbook(at_shown))

    has_measured = not shown.fallback
    choices = (["measured"] if has_measured else []) + ["simulated", "textbook model"]
    pick = st.radio("timeline from", choices, horizontal=True, key="w_timeline_source",
                    format_func=lambda c: f"timeline: {c}" if c == choices[0] else c, label_visibility="collapsed")
    spans = {"measured": d["timeline"] if has_measured else [], "simulated": sim["timeline"],
             "textbook model": book["timeline"]}[pick]
    if pick == "measured" and not spans:
        st.caption("The recording has timelines only for the seed's default and checkpoint settings "
                   "(N=120, work 2 or 40 µs): showing the simulated one.")
        pick, spans = "simulated", sim["timeline"]
    n_shown = d["n"] if pick == "measured" else k.n
    title = f"One step at N={n_shown}: {mode_label(k.mode).split(' (')[0]} ({pick})" + (
        ": GPU lane as profiled, host spans at their unprofiled cost" if pick == "measured" else "")
    charts.show(timeline_figure(spans, title, height=300), key="w_timeline")  # title as text: wraps on a phone

meas_col = shown.label + (f" ({shown.note})" if shown.note else "")
rows = {"textbook model": book, "simulated": sim}
calib = src.calibrated(shown.consts, k.replace(tax_us=shown.eff_tax_us)) if shown.consts else None
if calib:
    rows["calibrated model"] = calib
if has_measured:
    rows[meas_col] = d

tab_names = ["Side by side", "Dynamic shapes", "Timeline files"]
if ctx.recording and not ctx.live:
    tab_names.append("Model accuracy")
if len(ctx.recordings) > 1:
    tab_names.append("Compare recordings")
tabs = dict(zip(tab_names, st.tabs(tab_names)))

with tabs["Side by side"]:
    st.markdown(f"##### Side by side: {mode_label(k.mode)}")
    quantities = [("launch overhead (µs)", [r["launch_overhead_us"] for r in rows.values()]),
                  ("wall time / step (µs)", [r["wall_us"] for r in rows.values()]),
                  ("kernel work (µs)", [r["kernel_work_us"] for r in rows.values()]),
                  ("driver calls", [r["driver_calls"] for r in rows.values()]),
                  ("graph-capture valid?", ["TRUE" if r["graph_valid"] else "FALSE" for r in rows.values()])]
    if k.mode == "graph" and not k.dynamic:
        extra = max(0.0, k.tax_us - (ctx.recording.meta.intrinsic_tax_us or 0.0)) if ctx.recording else 0.0
        quantities.append(("copy into the static input (µs)", copy_costs(k, {
            "textbook model": src.textbook, "simulated": src.simulated_numbers,
            "calibrated model": (lambda kk: src.calibrated(shown.consts, kk.replace(tax_us=shown.eff_tax_us)))
            if calib else None,
            meas_col: (lambda kk: src.recorded(ctx.recording, kk.replace(extra_tax_us=extra)))
            if (ctx.recording and shown.source != "live") else None}, list(rows))))
    ui_tables.compare("per step", list(rows), quantities)
    st.caption("Textbook and simulated columns are computed at your setting. Calibrated model: the same "
               "formulas with constants measured on the GPU (sync round trip, eager floor, graph launch "
               "and its latency, the GPU-side gaps between launched kernels and between graph nodes, "
               "kernel floor) and the GPU's own launch tax. The widget's *eager* blocks after every "
               "launch; PyTorch's own eager mode is asynchronous, which is *streams* here.")
    if shown.note:
        st.caption(f"The {esc(shown.label)} column is {shown.note}: the recording has no point at your setting. "
                   f"The metrics above compare it with the textbook at that same setting.")
    if k.missed_shape and k.policy == "fallback":
        st.caption("On a shape miss the textbook row snaps back to *eager*, as the seed's widget does; "
                   "PyTorch, our graph executor, the simulator and the calibrated model fall back to "
                   "asynchronous dispatch (*streams*) instead.")

with tabs["Dynamic shapes"]:
    if k.dynamic and k.mode == "graph":
        policy_panel(k, sim, d if has_measured else None, shown.note)
    else:
        st.info("Tick **dynamic shapes** in graph mode to see what each shape-miss policy costs "
                "(guard misses, captures, memory, padded work).")

with tabs["Timeline files"]:
    st.caption(f"The timeline shown above ({pick}), to open in a spreadsheet or in Perfetto.")
    downloads(spans, pick, d.get("chrome_trace") if pick == "measured" else None)
    if pick == "measured":
        st.caption("A measured timeline comes from torch.profiler in a separate process. The profiler "
                   "slows the host, so the picture above keeps its GPU lane (kernels, durations, order) and "
                   "draws each host span at its unprofiled cost (the measured launch tax, the calibrated "
                   "replay call, and a sync up to the measured wall time). The Chrome-trace file is the "
                   "profiler's own, host spans as it saw them.")

if "Model accuracy" in tabs:
    with tabs["Model accuracy"]:
        accuracy_panel(ctx.recording)
if "Compare recordings" in tabs:
    with tabs["Compare recordings"]:
        compare_panel(ctx.recordings, k)

st.divider()
render_lesson("06_launch_overhead_widget")

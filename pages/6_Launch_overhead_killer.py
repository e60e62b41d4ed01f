"""§6 The launch-overhead killer: eager vs streams vs CUDA-graph replay of N tiny kernels,
the textbook and calibrated models beside the simulator and a real GPU (live or recorded)."""
from pages.ui.common import render_lesson, setup_page

import pandas as pd
import streamlit as st

from pages.ui import knobs, widget_sources as src
from pages.ui.timeline_chart import timeline_figure
from runtime_core.constants import Constants
from runtime_core.knobs import mode_label
from pages.ui.widget_panels import (accuracy_panel, compare_panel, copy_costs, count_cell, downloads, metric_row,
                                   policy_panel)
from pages.ui.safe_text import esc
from runtime_core.errors import UsageError

ctx = setup_page("Launch-overhead killer")
notices = knobs.init_from_url()
st.title("⚡ Launch-overhead killer")
st.caption("A chain of N tiny kernels dispatched three ways. Turn the knobs; every number says where it came from.")
for note in notices:
    st.warning(note)  # Markdown with the URL's values escaped (knobs.init_from_url)

text_col, live_col = st.columns([2, 3], gap="large")

with live_col:
    floor = src.live_floor_us() if ctx.live else None
    rec_floor = ctx.recording.meta.intrinsic_tax_us if (ctx.recording and not ctx.live) else None
    k = knobs.render(floor if ctx.live else rec_floor, "this GPU" if ctx.live else "the recorded H200")
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
    measured, meas_label, consts = None, "", None
    if ctx.live:
        extra = max(0.0, k.tax_us - floor)
        with st.spinner("Measuring on the GPU (the first run also calibrates and starts the profiler)…"):
            measured = src.live(k.replace(extra_tax_us=extra))
            consts = Constants.from_dict(src.live_calibration())
        meas_label, meas_source, eff_tax = "measured live", "live", floor + extra
    elif ctx.recording:
        rec = ctx.recording
        rec_floor = rec.meta.intrinsic_tax_us
        extra = max(0.0, k.tax_us - rec_floor)
        measured = src.recorded(rec, k.replace(extra_tax_us=extra))
        consts, eff_tax = rec.meta.calibration, rec_floor + extra
        meas_label, meas_source = rec.meta.source, rec.meta.source
    calib = src.calibrated(consts, k.replace(tax_us=eff_tax)) if consts else None

    metric_row("Textbook model", book, "model", "the seed's formulas with your tax and work")
    if measured:
        detail = (ctx.recording_label() if meas_source != "live"
                  else f"this machine's GPU, measured at {measured.get('measured_at', '?')}")
        if meas_source != "live" and not measured["exact"]:
            detail += (f" · nearest recorded point: N={measured['n']}, work={measured['work_us']} µs, "
                       f"extra tax={measured.get('extra_tax_us', 0)} µs")
        metric_row(f"GPU, {meas_label}", measured, meas_source, detail)
    else:
        metric_row("Simulated GPU", sim, "simulated", f"SimDevice with a {k.tax_us:g} µs launch tax")

    st.markdown(f"##### Side by side: {mode_label(k.mode)}")
    rows = {"textbook model": book, "simulated": sim}
    if calib:
        rows["calibrated model"] = calib
    if measured:
        rows[meas_label] = measured
    table = pd.DataFrame({name: {
        "launch overhead (µs)": round(d["launch_overhead_us"], 1),
        "wall time / step (µs)": round(d["wall_us"], 1),
        "kernel work (µs)": round(d["kernel_work_us"], 1),
        "driver calls": count_cell(d["driver_calls"]),
        "graph-capture valid?": "TRUE" if d["graph_valid"] else "FALSE"} for name, d in rows.items()})
    if k.mode == "graph" and not k.dynamic:
        table.loc["copy into the static input (µs)"] = copy_costs(k, {
            "textbook model": src.textbook, "simulated": src.simulated,
            "calibrated model": (lambda kk: src.calibrated(consts, kk.replace(tax_us=eff_tax))) if calib else None,
            meas_label: (lambda kk: src.recorded(ctx.recording, kk.replace(extra_tax_us=extra)))
            if (measured and not ctx.live) else None}, list(rows))
    st.dataframe(table.astype(str), width="stretch")
    st.caption("Calibrated model: the same formulas with constants measured on the GPU (sync round trip, "
               "eager floor, graph launch and its latency, the GPU-side gaps between launched kernels "
               "and between graph nodes, kernel floor) and the GPU's own launch tax. The widget's "
               "*eager* blocks after every launch; PyTorch's own eager mode is asynchronous, which is "
               "*streams* here.")
    if k.missed_shape and k.policy == "fallback":
        st.caption("On a shape miss the textbook row snaps back to *eager*, as the seed's widget does; "
                   "PyTorch, our graph executor, the simulator and the calibrated model fall back to "
                   "asynchronous dispatch (*streams*) instead.")

    choices = [c for c in ("measured", "simulated", "textbook model") if c != "measured" or measured]
    pick = st.radio("timeline from", choices, horizontal=True, key="w_timeline_source")
    spans = {"measured": measured["timeline"] if measured else [], "simulated": sim["timeline"],
             "textbook model": book["timeline"]}[pick]
    if pick == "measured" and not spans:
        st.info("The recording has timelines only for the seed's default and checkpoint settings "
                "(N=120, work 2 or 40 µs). Showing the simulated timeline instead.")
        pick, spans = "simulated", sim["timeline"]
    st.plotly_chart(timeline_figure(spans, f"Two lanes, one step: {mode_label(k.mode)} ({pick})"), width="stretch")
    if pick == "measured":
        st.caption("A measured timeline comes from torch.profiler in a separate process. The profiler "
                   "slows the host, so CPU spans here are longer than in the timed steps above; the "
                   "order of events and the GPU kernels are what to read from it.")
    downloads(spans, pick, measured.get("chrome_trace") if (measured and pick == "measured") else None)
    policy_panel(k, sim, measured)

with text_col:
    render_lesson("06_launch_overhead_widget")

if ctx.recording and not ctx.live:
    accuracy_panel(ctx.recording)
if len(ctx.recordings) > 1:
    compare_panel(ctx.recordings, k)

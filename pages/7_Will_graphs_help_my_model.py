"""Will CUDA graphs help my model? The widget's launch model applied to real networks: the verdict
first, then the evidence (one real step's timeline, prediction beside measurement, the batch sweep
and its crossover, the bucket planner), from a GPU recording or the simulated demo."""
from pages.ui.common import badge, render_lesson, setup_page, source_badge

import streamlit as st

from pages.ui import charts, diagnose_view as view
from pages.ui.diagnose_charts import sweep_figures
from pages.ui.diagnose_external import external_panel
from pages.ui.diagnose_heldout import heldout_panel
from pages.ui.diagnose_data import live_diagnosis, load_source, skipped_files
from pages.ui.diagnose_planner import planner_panel
from pages.ui.diagnose_url import view_from_url, view_to_url
from pages.ui.kept_state import keep, restore
from pages.ui.safe_text import esc, md
from pages.ui.timeline_chart import MODEL_COPY, first_ops_end, timeline_figure
from runtime_core.diagnose.diagnosis import with_band, with_explanation
from runtime_core.diagnose.machine import node_spread_us
from runtime_core.diagnose.sweep import crossovers, host_bumps
from runtime_core.lesson.page_text import text as prose
from runtime_core.words import all_of

CLOSE_UP_OPS = 30  # the evidence timeline's close-up: as long as the step takes for its first GPU operations


ctx = setup_page("Will graphs help my model?", icon=":material/biotech:")
st.title("Will CUDA graphs help my model?", anchor="diagnosis")
st.caption("The launch-overhead widget's model, pointed at real networks: predict first, then measure.")
src = load_source()
for line in skipped_files():
    st.warning(md("Skipped a diagnose recording that failed its check: {line}", line=line), icon=":material/warning:")
if src.notice:
    st.warning(src.notice)
if src.rec is None:
    st.error("Neither a diagnose recording nor the simulated demo (tests/fixtures/diagnose_sim.json) is here.")
    st.stop()
rec = src.rec
source_badge(src.source, rec.label())

s = view.knobs(rec)
p = rec.point(s.model, s.dtype, s.batch, s.seq)
simulated = src.source == "simulated"
machine = rec.machine(node_spread_us(rec.meta.device_name, simulated))
p = with_explanation(with_band(p, machine), machine)
view.verdict(p, prose("diagnose", "verdict_intro", source="Simulated" if simulated else "Recorded",
                      model=esc(s.model), dtype=s.dtype, batch=s.batch, shape=view.shape_clause(rec, s),
                      device=esc(rec.meta.device_name)))
view.explanation(p, simulated)
if ctx.live and src.source == "recorded" and st.button("diagnose this setting on this GPU now", key="dg_live"):
    with st.spinner("Profiling, then 15 seconds of host timing before predicting and 15 of steps after (about a minute)…"):
        live = live_diagnosis(s.model, s.batch, s.seq, s.dtype)
    if live is not None:
        view.verdict(live, f"{badge('live')} on this GPU at {live['measured_at']}")

st.divider()
st.subheader("The evidence")
st.markdown(prose("diagnose", "timeline_heading_simulated" if simulated else "timeline_heading"))
tl_batches = rec.timeline_batches(s.model)
c1, c2 = st.columns([2, 3])
view_from_url()  # a shared link's view of the timeline, read once
restore("dg_tl_variant", "eager", valid=lambda v: v in ("eager", "our_graph"))
variant = c1.radio("step", ["eager", "our_graph"], key="dg_tl_variant", horizontal=True,
                   format_func={"eager": "eager", "our_graph": "graph replay"}.get)
keep("dg_tl_variant")
near = min(tl_batches, key=lambda b: abs(b - s.batch), default=None)
shape = rec.default_shape(s.model)
# the evidence may be at another shape than the verdict's: name it as the model names it ("64 tokens")
shape_name = rec.about(s.model).get("shape_name") or "shape"
at_shape = "" if shape is None else f", {view.shape_words(shape, shape_name)}"
spans = rec.timeline(s.model, "fp32", near, shape, variant) if near else []
close = None
if spans:
    if near != s.batch or s.dtype != "fp32" or s.seq != shape:
        differs = ([] if near == s.batch else [f"batch {s.batch}"]) + ([] if s.dtype == "fp32" else [s.dtype]) \
            + ([] if s.seq == shape else [view.shape_words(s.seq, shape_name)])
        c2.caption(f"Timelines were recorded at batches {', '.join(map(str, tl_batches))} (fp32{at_shape}): "
                   f"showing batch {near} in fp32{at_shape}, not your {' or '.join(differs)}.")
    restore("dg_tl_close", False, valid=lambda v: isinstance(v, bool))
    close = c1.toggle(f"the first {CLOSE_UP_OPS} GPU operations, close up", key="dg_tl_close",
                      help="Drawn whole, a step of hundreds of operations is drawn in slices; close up, "
                           "every span is drawn as it ran")
    keep("dg_tl_close")
    window = first_ops_end(spans, CLOSE_UP_OPS) if close else None
    fig = timeline_figure(spans, f"{s.model}, fp32, batch {near}{at_shape}: {variant.replace('_', ' ')} step"
                          + (f", its first {window:,.0f} µs" if window else ""), labels=MODEL_COPY, max_us=window)
    if window:
        fig.update_xaxes(range=[0, window * 1.02])
    charts.show(fig, key="dg_timeline")
    st.caption(prose("diagnose", "timeline_simulated" if simulated else "timeline"))
    if variant == "our_graph" and not simulated:
        same = near == s.batch and s.dtype == "fp32" and s.seq == shape  # the table below times this very step
        st.caption(prose("diagnose", "timeline_graph",
                         compare=prose("diagnose", "timeline_graph_compare") if same else ""))
else:
    st.info("No timeline is recorded for this model.")
view_to_url(variant, close)

st.markdown("##### Predicted and measured, every way to run the step")
view.variants_table(p, simulated)
view.note_figures(p)
if not simulated and (p["model"], p["batch"], p["dtype"]) == ("decoder", 1, "fp32"):
    st.caption(prose("diagnose", "decoder_harness"))

st.markdown("##### Where the gain vanishes, batch by batch")
sweep = rec.sweep(s.model)
cross = crossovers(sweep) if len(sweep) >= 2 else None
if cross:
    def _where(which: str, line: str) -> str:  # a crossover past the sweep's last batch has no line drawn
        x, said = cross[which], "simulated" if simulated and which == "measured" else which
        return f"{x} {said} ({line})" if x else f"> {sweep[-1]['batch']} {said} (past the sweep: no line)"
    st.caption(esc(f"{s.model} (fp32{at_shape}): graphs stop paying (< 1.2x) at batch "
                   f"{_where('measured', 'solid line')}, {_where('predicted', 'dashed')}"))
    times, speed = sweep_figures(sweep, cross, "simulated" if simulated else "measured")
    c1, c2 = st.columns(2)
    with c1:
        charts.show(times, key="dg_sweep")
    with c2:
        charts.show(speed, key="dg_sweep_speedup")
    bumps = host_bumps(sweep)
    if bumps:
        st.caption(prose("diagnose", "sweep_host_bumps", batch="batch" if len(bumps) == 1 else "batches",
                         bumps=all_of(b for b, _ in bumps), ratios=all_of(f"{r:.1f}x" for _, r in bumps)))
view.accuracy_panel(rec, simulated)

st.divider()
external_panel()

st.divider()
heldout_panel()

st.divider()
planner_panel(rec, s.model)

st.divider()
view.downloads(rec.settings(s.model), spans, f"diagnose {s.model} batch {near} ({variant})")
st.divider()
render_lesson("09_will_graphs_help_my_model")

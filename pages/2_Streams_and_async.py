"""§2 Streams and async dispatch: the CPU running ahead (simulated and recorded timelines),
copies beside compute (overlap lab), a stray sync (sync lab) and a copy to the host read before
its stream is synchronized (d2h_hazard lab, GPU-only: recorded on the H200)."""
from pages.ui.common import lesson_columns, metric_row, render_lesson, setup_page, source_badge

import streamlit as st

from pages.ui import charts, lab_panels, torch_lab_panels, widget_sources as src
from pages.ui.kept_state import keep, restore
from pages.ui.timeline_chart import first_ops_end, timeline_figure
from runtime_core.knobs import SEED_TAX_US, SEED_WORK_US, Knobs, mode_label
from runtime_core.lesson.page_text import text as prose

EAGER, STREAMS = mode_label("eager"), mode_label("streams")

ctx = setup_page("Streams and async dispatch")
text_col, live_col = lesson_columns(lesson="02_streams_and_async")


GPU_N = 120       # kernels in the real-GPU panel's step (recorded at N=120)
ZOOM_KERNELS = 12  # the zoomed window: as long as streams takes for its first dozen kernels


def _zoom_end(streams: list) -> float:
    """Where the streams step's ZOOM_KERNELS-th kernel ends: a window in which the gaps between
    its kernels are several pixels wide (over a whole step of 120 they are under one)."""
    return first_ops_end(streams, ZOOM_KERNELS, kind="kernel")


def _pair(eager: list, streams: list, title: str, key: str, window: float | None = None) -> None:
    """Eager above streams on one µs axis, so the shorter step looks shorter. `window`: draw only
    its first µs, on the same axis for both."""
    end = window or max([s["end_us"] for s in eager + streams] or [1.0])
    for mode, spans in (("eager", eager), ("streams", streams)):
        fig = timeline_figure(spans, f"{title}: {mode_label(mode)}" + (
            f", its first {end:,.0f} µs" if window else ""), max_us=window)
        fig.update_xaxes(range=[0, end * 1.02])
        charts.show(fig, key=f"s2_{key}_{mode}")


def simulated_panel() -> None:
    st.subheader("The CPU runs ahead: a few kernels, two ways")
    st.info(prose("streams", "async_note"))
    restore("s2_n", 8, valid=lambda v: isinstance(v, int) and 2 <= v <= 24)  # kept across pages
    n = st.slider("kernels in the chain (N)", 2, 24, key="s2_n")
    keep("s2_n")
    from runtime_core.recordings.shipped import shipped_constants
    consts = shipped_constants()
    source_badge("simulated", prose("streams", "sim_badge", markdown=False, tax=f"{SEED_TAX_US:g}", work=f"{SEED_WORK_US:g}",
                                    sync=f"{consts.sync_us:.1f}", floor=f"{consts.eager_floor_us:.1f}"))
    eager = src.simulated(Knobs("eager", n, SEED_WORK_US, tax_us=SEED_TAX_US))
    streams = src.simulated(Knobs("streams", n, SEED_WORK_US, tax_us=SEED_TAX_US))
    c = metric_row()
    c.metric(f"{EAGER} wall / step", f"{eager['wall_us']:.0f} µs", width="content")
    c.metric(f"{STREAMS} wall / step", f"{streams['wall_us']:.0f} µs", width="content")
    closing = sum(s["end_us"] - s["start_us"] for s in streams["timeline"] if s["kind"] == "sync")
    # the round trip to two decimals: n × it, as a student multiplies it, comes out at the wall shown
    st.caption(prose("streams", "sim_sums", n=n, tax=f"{SEED_TAX_US:g}", launches=f"{n * SEED_TAX_US:.0f}",
                     sync=f"{closing:.1f}", streams=f"{streams['wall_us']:.0f}", floor=f"{eager['wall_us'] / n:.2f}",
                     eager=f"{eager['wall_us']:.0f}"))
    _pair(eager["timeline"], streams["timeline"], f"N={n}, simulated", "sim")


def gpu_panel() -> None:
    st.subheader(f"The same on a real GPU: {GPU_N} kernels")
    restore("s2_work", 2, valid=lambda v: v in (2, 40))
    work = st.radio("GPU work per kernel", [2, 40], format_func=lambda w: f"{w} µs", horizontal=True,
                    key="s2_work")
    keep("s2_work")
    if ctx.live:
        if st.button("measure eager (blocking) and streams on this GPU", key="s2_measure"):
            with st.spinner("measuring on the GPU…"):
                st.session_state[f"s2_live_{work}"] = (src.live(Knobs("eager", GPU_N, work)),
                                                       src.live(Knobs("streams", GPU_N, work)))
        if f"s2_live_{work}" not in st.session_state:
            return
        source_badge("live", "this machine's GPU")
        eager, streams = st.session_state[f"s2_live_{work}"]
    elif ctx.recording:
        source_badge("recorded", ctx.recording_label())
        eager = src.recorded(ctx.recording, Knobs("eager", GPU_N, work))
        streams = src.recorded(ctx.recording, Knobs("streams", GPU_N, work))
    else:
        st.info("No GPU here and no recording shipped: the simulated timeline above is all there is.")
        return
    if not (eager and streams and eager["timeline"] and streams["timeline"]):
        st.info("The recording has no timeline for this setting.")
        return
    c = metric_row()
    c.metric(f"{EAGER} wall / step", f"{eager['wall_us']:,.0f} µs", width="content")
    c.metric(f"{STREAMS} wall / step", f"{streams['wall_us']:,.0f} µs", width="content")
    views = ["the whole step", f"the first {ZOOM_KERNELS} kernels of streams, close up"]
    restore("s2_zoom", views[0], valid=lambda v: v in views)
    zoom = st.radio("draw", views, horizontal=True, key="s2_zoom")
    keep("s2_zoom")
    window = _zoom_end(streams["timeline"]) if zoom != "the whole step" else None
    _pair(eager["timeline"], streams["timeline"], f"N={GPU_N}, {work} µs work", f"gpu{work}", window)
    busy = {name: 100 * d["kernel_work_us"] / d["wall_us"] for name, d in (("eager", eager), ("streams", streams))}
    kernel_us, tax_us = streams["kernel_work_us"] / GPU_N, streams["tax_us"]
    fed = "gpu_busy_fed" if kernel_us > tax_us else "gpu_busy_starved"
    # right under the charts: drawn whole, short kernels are slices, and the close-up shows each one
    st.caption("Profiled GPU lane, host spans at their unprofiled cost: " + (
        "each drawn step is as long as its wall time above." if window is None else
        "both steps are cut at the same moment, where streams ran its first kernels.")
        + (" " + prose("streams", "gpu_busy_zoom") if window is None and fed == "gpu_busy_starved" else ""))
    st.caption(" ".join([
        prose("streams", "gpu_busy", eager_pct=f"{busy['eager']:.0f}", eager=EAGER, streams_pct=f"{busy['streams']:.0f}"),
        prose("streams", fed, work=f"{kernel_us:.1f}", tax=f"{tax_us:.1f}",
              tax_source=prose("streams", "tax_source_live" if ctx.live else "tax_source_recorded"))]))


def d2h_panel() -> None:
    st.subheader(torch_lab_panels.lab_title("d2h_hazard"))   # one heading, the lab's own
    with st.container(border=True):
        torch_lab_panels.intro("d2h_hazard", title=False)
        lab_panels.lab_section("d2h_hazard", ctx.live, "s2")


with text_col:
    render_lesson("02_streams_and_async", title=False)

with live_col:
    simulated_panel()
    st.divider()
    gpu_panel()
    st.divider()
    st.subheader("Lab: a copy beside compute, pinned vs pageable")
    r = lab_panels.run_button("overlap", ctx.live, "s2")
    if r:
        lab_panels.show(r)
    st.divider()
    st.subheader("Lab: one .item() per step")
    r = lab_panels.run_button("sync", ctx.live, "s2")
    if r:
        lab_panels.show(r)
    st.divider()
    d2h_panel()

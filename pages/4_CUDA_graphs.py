"""§4 CUDA graphs: what replay costs on the GPU side (the shipped calibration), a stale input
(stale lab), a capture storm (storm lab, recapture vs bucket), the silent graph bugs (five labs),
graphs around real torch code (partial capture, a training step, random numbers: GPU-only labs,
recorded on the H200), the decoder worked example from the shipped recording, and what
mode="reduce-overhead" really does (the reduce_overhead lab)."""
from pages.ui.common import lesson_columns, recordings_of, render_lesson, render_text, setup_page, source_badge

import streamlit as st

from pages.ui import figure_log, lab_panels, labs29_panels, tables as ui_tables, torch_lab_panels
from pages.ui.kept_state import keep, restore
from pages.ui.nav import app_link
from runtime_core.aot.tables import decoder_rows
from runtime_core.labs import failure_modes, labs_on
from runtime_core.lesson.claims import evaluate_claims, load_claims
from runtime_core.lesson.replay_costs import constant_rows, replay_cost_rows
from runtime_core.lesson.figures import UNMEASURED
from runtime_core.lesson.page_text import text as prose

ctx = setup_page("CUDA graphs")
text_col, live_col = lesson_columns(lesson="04_cuda_graphs")


def replay_costs_panel() -> None:
    st.subheader("What a replay costs, CPU and GPU")
    rec = ctx.recording
    if rec is None:
        st.info("No sweep recording is shipped, so there are no calibrated constants to show.")
        return
    source_badge(rec.meta.source, f"{rec.label()}: the calibrated constants of this sweep")
    rows, constants = replay_cost_rows(rec), constant_rows(rec)
    ui_tables.show(rows)
    with st.expander("Each constant's experiment, in full"):
        ui_tables.show(constants)
    if any(r["value"] == UNMEASURED for r in rows + constants):  # only where one is
        st.caption("A value the calibration holds as 0 was not measured by the run that made this recording "
                   "(an older calibration); a newer recording fills it in.")


def stale_panel() -> None:
    st.subheader("Lab: a new input in the wrong buffer")
    st.caption("Capture a chain, then give the graph its next input two ways: written into a fresh "
               "buffer, or copied into the buffer the graph was captured with.")
    r = lab_panels.run_button("stale", ctx.live, "s4")
    if r:
        lab_panels.show(r)


def storm_panel() -> None:
    st.subheader("Lab: shapes that keep changing")
    restore("s4_cache", 4, valid=lambda v: isinstance(v, int) and 1 <= v <= 10)
    cache = st.slider("graphs the cache can hold", 1, 10, key="s4_cache",
                      help="requests cycle through 8 input sizes; recapture keeps one graph per size")
    keep("s4_cache")
    r = lab_panels.run("storm", False, cache_size=cache)
    lab_panels.show(r)
    if ctx.live and st.button("run the storm lab on this GPU", key="s4_storm_live"):
        with st.spinner("capturing graphs on the GPU…"):
            live_storm = lab_panels.run("storm", True, cache_size=cache)
        if live_storm is not None:
            st.session_state["s4_storm_gpu"] = live_storm
    if "s4_storm_gpu" in st.session_state:
        lab_panels.show(st.session_state["s4_storm_gpu"])


def graph_bugs_panel() -> None:
    st.subheader("Labs: bugs a replay does not report")
    st.caption("Each lab captures a small region by hand, shows the wrong answer a replay returns "
               "without any error, then the fix.")
    titles = {fm["id"]: fm["title"] for fm in failure_modes()}
    for lab in labs_on("pages/4_CUDA_graphs.py", "graph_bugs"):  # every lab that declares this panel
        with st.container(border=True):
            st.markdown(f"**{titles.get(lab.text_key, lab.summary)}**")
            lab_panels.lab_section(lab.name, ctx.live, "s4")


def torch_graphs_panel() -> None:
    st.subheader("Labs: graphs around real torch code")
    st.caption(prose("cuda_graphs", "torch_labs"))
    for lab in labs_on("pages/4_CUDA_graphs.py", "torch_graphs"):  # partial_capture, training_step, graph_rng
        with st.container(border=True):
            torch_lab_panels.intro(lab.name)
            lab_panels.lab_section(lab.name, ctx.live, "s4")


def decoder_panel() -> None:
    st.subheader("Worked example: a small decoder, one token per step")
    rec, _ = recordings_of("decoder")
    if rec is None:
        st.warning(prose("cuda_graphs", "no_decoder"))
        return
    source_badge(rec.meta.source, rec.label())
    ui_tables.show(decoder_rows(rec))
    st.caption(figure_log.bench_caption(rec))
    figure_log.note_decoder_bench(rec, "decoder table and claim")
    claim = [c for c in load_claims() if c["id"] == "decoder_2x"]
    row = evaluate_claims(None, None, rec, claims=claim)[0]
    st.markdown(f"**The lesson says:** {render_text(row['seed_value'])}  \n**Measured:** {row['measured']}  \n"
                f"**Verdict:** {row['verdict']}. {row['reason']}")
    app_link("pages/11_Claims.py", label="Every claim of the lesson against the measurements", icon=":material/fact_check:")


def reduce_overhead_panel() -> None:
    st.subheader("What the reduce-overhead mode really does")
    st.caption("The decoder step compiled with torch.compile(mode=\"reduce-overhead\"), each claim measured: "
               "inputs copied into static buffers for you, outputs overwritten by the next replay (and the two "
               "fixes), a new graph per shape with torch's warning, regions it skips, and the kernels in its "
               "graph against ours. "
               + ("It runs on this GPU (a few minutes: it compiles the decoder several times)." if ctx.live else
                  "No GPU here: the button shows the H200 recording."))
    with st.container(border=True):
        lab_panels.lab_section("reduce_overhead", ctx.live, "s4")


with text_col:
    render_lesson("04_cuda_graphs", title=False)

with live_col:
    replay_costs_panel()
    st.divider()
    stale_panel()
    st.divider()
    storm_panel()
    st.divider()
    graph_bugs_panel()
    st.divider()
    torch_graphs_panel()
    st.divider()
    decoder_panel()
    st.divider()
    reduce_overhead_panel()
    labs29_panels.page_panels("pages/4_CUDA_graphs.py", ctx.live, "s4")

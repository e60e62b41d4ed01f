"""Landing page: what this app is, where its numbers come from, and where to start."""
import streamlit as st

from pages.ui.common import SOURCE_LABELS, setup_page
from pages.ui.nav import app_link
from pages.ui.safe_text import md
from runtime_core.knobs import SEED_N, SEED_TAX_US, SEED_WORK_US

ctx = setup_page("Runtime & executor: a live lesson", icon=":material/rocket_launch:")


@st.fragment(run_every=2)
def warm_up_status() -> None:
    """The GPU's warm-up (engine/live_gpu.py), redrawn every 2 s until it is done."""
    from pages.ui.widget_sources import live_gpu
    status = live_gpu().status()
    if status.state == "warming":
        st.info(status.describe(), icon=":material/hourglass_top:")
    elif status.state == "failed":
        st.warning(status.describe())
    else:
        st.success(status.describe())


st.title("How a runtime turns a compiled artifact into fast GPU work")
st.markdown(
    "A compiler hands you an **inert artifact**: kernels, a memory plan, and guards. This app is "
    "about the program that makes it run: the **runtime**. Each page pairs a section of the lesson "
    "with a widget that drives a real runtime core: eager, async-stream and CUDA-graph dispatch of "
    "N tiny kernels, a caching allocator, and a dynamic-shape switch: a captured graph cannot "
    "replay a shape it was not captured at."
)
st.caption("The lesson these pages teach is called **the seed** here, and a figure quoted from it carries the "
           "marker ‹seed›. Its example is also where the launch-overhead widget starts: "
           f"N={SEED_N} kernels, each costing the host {SEED_TAX_US:g} µs to launch (the launch **tax**) "
           f"and the GPU {SEED_WORK_US:g} µs of work.")

col_a, col_b = st.columns([3, 2], gap="large")
with col_a:
    st.subheader("Where to start")
    app_link("pages/6_Launch_overhead_killer.py", label="Launch-overhead killer: the lesson's widget",
             icon=":material/bolt:")
    app_link("pages/7_Will_graphs_help_my_model.py", label="Will CUDA graphs help my model?",
             icon=":material/biotech:")
    app_link("pages/1_Artifact_vs_runtime.py", label="Read the lesson from §1", icon=":material/menu_book:")
    app_link("pages/9_Checkpoint.py", label="Do the checkpoint exercise", icon=":material/task_alt:")
    app_link("pages/10_Interview.py", label="Test yourself: interview flashcards", icon=":material/style:")
    app_link("pages/11_Claims.py", label="The lesson's claims, measured", icon=":material/fact_check:")
    st.markdown(
        "- In class: open the widget, press through the modes, then turn on dynamic shapes.\n"
        "- On your own: read §1–§5, try the widget of §6, do the checkpoint, then test yourself with the interview cards."
    )
with col_b:
    st.subheader("Where the numbers come from")
    st.info(SOURCE_LABELS[ctx.source])
    if ctx.source == "recorded":
        st.caption(md("No GPU here, so GPU numbers replay shipped recordings (the widget's: {label}). Most labs "
                      "run on the simulator or on this CPU instead, each under its own badge, with the GPU's "
                      "recorded run beside them where one ships.", label=ctx.recording_label()))
    elif ctx.source == "live":
        st.caption("A CUDA GPU is present: widgets measure on it now.")
        warm_up_status()
    if ctx.live_switched_off:
        st.caption("A GPU is present, but live measuring is switched off (RUNTIME_LIVE=0): every page "
                   "shows the recorded numbers.")
    st.markdown(
        "Every number is labelled with its source:\n" + "\n".join(f"- {label}" for label in SOURCE_LABELS.values())
    )

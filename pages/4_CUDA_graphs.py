"""§4 CUDA graphs: a stale input (stale lab), a capture storm (storm lab, recapture vs bucket),
and the decoder worked example from the shipped recording."""
from pages.ui.common import recordings_of, render_lesson, setup_page, source_badge

import pandas as pd
import streamlit as st

from pages.ui import lab_panels
from runtime_core.aot.tables import decoder_rows
from runtime_core.lesson.claims import evaluate_claims, load_claims

ctx = setup_page("CUDA graphs")
text_col, live_col = st.columns([5, 6], gap="large")


def stale_panel() -> None:
    st.subheader("Lab: a new input in the wrong buffer")
    st.caption("Capture a chain, then give the graph its next input two ways: written into a fresh "
               "buffer, or copied into the buffer the graph was captured with.")
    r = lab_panels.run_button("stale", ctx.live, "s4")
    if r:
        lab_panels.show(r)


def storm_panel() -> None:
    st.subheader("Lab: shapes that keep changing")
    cache = st.slider("graphs the cache can hold", 1, 10, 4, key="s4_cache",
                      help="requests cycle through 8 input sizes; recapture keeps one graph per size")
    r = lab_panels.run("storm", False, cache_size=cache)
    lab_panels.show(r)
    if ctx.live and st.button("run the storm lab on this GPU", key="s4_storm_live"):
        with st.spinner("capturing graphs on the GPU…"):
            st.session_state["s4_storm_gpu"] = lab_panels.run("storm", True, cache_size=cache)
    if "s4_storm_gpu" in st.session_state:
        lab_panels.show(st.session_state["s4_storm_gpu"])


def decoder_panel() -> None:
    st.subheader("Worked example: a small decoder, one token per step")
    rec, _ = recordings_of("decoder")
    if rec is None:
        st.warning("No decoder recording is shipped (lessons/recordings/decoder_*.json), so there are no "
                   "measured numbers for this example here. It needs a GPU to record.")
        return
    source_badge(rec.meta.source, rec.label())
    st.dataframe(pd.DataFrame(decoder_rows(rec)), hide_index=True, width="stretch")
    claim = [c for c in load_claims() if c["id"] == "decoder_2x"]
    row = evaluate_claims(None, None, rec, claims=claim)[0]
    st.markdown(f"**The lesson says:** {row['seed_value']}  \n**Measured:** {row['measured']}  \n"
                f"**Verdict:** {row['verdict']}. {row['reason']}")
    st.page_link("pages/11_Claims.py", label="Every claim of the lesson against the measurements", icon="🔎")


with text_col:
    render_lesson("04_cuda_graphs")

with live_col:
    stale_panel()
    st.divider()
    storm_panel()
    st.divider()
    decoder_panel()

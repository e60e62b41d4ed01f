"""§1 The artifact and the runtime: who owns what, each row linked to the page that shows it."""
from pages.ui.common import lesson_data, render_lesson, setup_page, source_badge

import pandas as pd
import streamlit as st

from runtime_core.knobs import SEED_N, SEED_TAX_US, SEED_WORK_US, Knobs, mode_label
from runtime_core.model.formulas import predict

ctx = setup_page("Artifact vs runtime")
text_col, live_col = st.columns([5, 6], gap="large")

with text_col:
    render_lesson("01_artifact_vs_runtime")

with live_col:
    st.subheader("Who owns what: each row, proved on a page")
    for r in lesson_data("labs")["artifact_rows"]:
        with st.container(border=True):
            st.markdown(f"**{r['concern']}**")
            c = st.columns(2)
            c[0].caption("compiler (compile time)")
            c[0].markdown(r["compiler"])
            c[1].caption("runtime (every request)")
            c[1].markdown(r["runtime"])
            st.page_link(r["page"], label=r["proof"], icon="➡️")

    st.subheader("The runtime's choice, priced")
    source_badge("model", f"the seed's widget defaults: N={SEED_N}, tax {SEED_TAX_US:g} µs, "
                          f"work {SEED_WORK_US:g} µs per kernel")
    rows = []
    for mode in ("eager", "streams", "graph"):
        m = predict(Knobs(mode, SEED_N, SEED_WORK_US, tax_us=SEED_TAX_US)).metrics()
        rows.append({"dispatch": mode_label(mode), "wall time / step (µs)": m["wall_us"],
                     "launch overhead (µs)": m["launch_overhead_us"],
                     "kernel work (µs)": m["kernel_work_us"], "driver calls": m["driver_calls"]})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("Same compiled kernels, same work: only how the runtime launches them changes. "
               "The widget's *eager* blocks after every launch; PyTorch's own eager mode is "
               "asynchronous, which is *streams* here.")
    st.page_link("pages/6_Launch_overhead_killer.py", label="Turn the knobs yourself", icon="⚡")

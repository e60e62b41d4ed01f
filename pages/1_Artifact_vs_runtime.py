"""§1 The artifact and the runtime: who owns what, each row linked to the page that shows it."""
from pages.ui.common import lesson_columns, lesson_data, render_lesson, setup_page, source_badge

import streamlit as st

from pages.ui import tables
from pages.ui.nav import app_link, page_title
from runtime_core.knobs import SEED_N, SEED_TAX_US, SEED_WORK_US, Knobs, mode_label
from runtime_core.model.formulas import predict
from runtime_core.lesson.page_text import text as prose

ctx = setup_page("Artifact vs runtime")
text_col, live_col = lesson_columns(lesson="01_artifact_vs_runtime", jump="Jump to who owns what, and the model's numbers ↓")

with text_col:
    render_lesson("01_artifact_vs_runtime", title=False)

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
            st.markdown(r["proof"])  # what the page shows, in a sentence that wraps; the link stays short
            app_link(r["page"], label=f"See it: {page_title(r['page'])}", icon=":material/arrow_forward:")

    st.subheader("The runtime's choice, priced")
    source_badge("model", f"the seed's widget defaults: N={SEED_N}, tax {SEED_TAX_US:g} µs, "
                          f"work {SEED_WORK_US:g} µs per kernel")
    modes = ("eager", "streams", "graph")
    m = {mode: predict(Knobs(mode, SEED_N, SEED_WORK_US, tax_us=SEED_TAX_US)).metrics() for mode in modes}
    tables.compare("per step", [mode_label(mode) for mode in modes], [
        ("wall time", [tables.num(m[mode]["wall_us"], unit="µs") for mode in modes]),
        ("launch overhead", [tables.num(m[mode]["launch_overhead_us"], unit="µs") for mode in modes]),
        ("kernel work", [tables.num(m[mode]["kernel_work_us"], unit="µs") for mode in modes]),
        ("driver calls (launches)", [tables.num(m[mode]["driver_calls"]) for mode in modes]),
        ("synchronizes", [tables.num(m[mode]["sync_calls"]) for mode in modes]),
    ])
    st.caption(prose("artifact", "same_kernels"))
    app_link("pages/6_Launch_overhead_killer.py", label="Turn the knobs yourself", icon=":material/tune:")

"""§5 AOT and serving: export -> AOTInductor -> load; the serving loop; the decoder example."""
from pages.ui.common import lesson_columns, setup_page, render_lesson, source_badge, lesson_data

import streamlit as st

from pages.ui import aot_view, labs29_panels

ctx = setup_page("AOT and serving")
text_col, live_col = lesson_columns(lesson="05_aot_and_serving")

with text_col:
    render_lesson("05_aot_and_serving", title=False)

with live_col:
    aot_view.coldwarm_panel("cuda" if ctx.live else "cpu")
    st.divider()
    aot_view.serving_panel("cuda" if ctx.live else "cpu")
    st.divider()
    aot_view.decoder_panel(ctx.live)
    labs29_panels.page_panels("pages/5_AOT_and_serving.py", ctx.live, "s5")
    cards = [c for c in lesson_data("interview")["cards"] if c.get("section") == "§5"]
    if cards:
        with st.expander("Interview prompts for §5"):
            for c in cards:
                st.markdown(f"**{c['question']}**\n\n{c['answer']}")

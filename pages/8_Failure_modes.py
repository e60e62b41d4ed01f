"""Failure modes and checklist: each failure mode next to a lab that shows its signal."""
from pages.ui.common import lesson_columns, render_lesson, setup_page

import streamlit as st

from pages.ui import lab_panels
from runtime_core.labs import failure_modes

ctx = setup_page("Failure modes")
text_col, live_col = lesson_columns(lesson="07_failure_modes_and_checklist")

with text_col:
    render_lesson("07_failure_modes_and_checklist", title=False)
    st.divider()
    render_lesson("08_takeaway_and_next")

with live_col:
    st.subheader("See each failure happen")
    st.caption("Each button runs a small lab " + ("on this machine's GPU." if ctx.live else
               "on the simulated GPU (no GPU here), and says what it measured."))
    for i, fm in enumerate(failure_modes(), start=1):
        with st.container(border=True):
            st.markdown(f"**{i}. {fm['title']}**")
            st.caption(f"Look for: {fm['look_for']}")
            if fm["lab"] is None:
                st.page_link(fm["page"], label="Measure cold vs warm starts on the AOT page", icon=":material/arrow_forward:")
                continue
            r = lab_panels.run_button(fm["lab"], ctx.live, "s7")
            if r:
                lab_panels.show(r)

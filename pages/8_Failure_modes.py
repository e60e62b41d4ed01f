"""Failure modes and checklist: each failure mode next to a lab that shows its signal."""
from pages.ui.common import lesson_columns, lesson_text, render_lesson, setup_page

import re

import streamlit as st

from pages.ui import lab_panels
from pages.ui.nav import app_link
from runtime_core.labs import failure_modes

ctx = setup_page("Failure modes")
text_col, live_col = lesson_columns(lesson="07_failure_modes_and_checklist")

CHECKLIST = "## Checklist"  # from here on the lesson is read full width, below the labs' column
with text_col:
    render_lesson("07_failure_modes_and_checklist", title=False, until=CHECKLIST)

# the lesson numbers its failure modes ("### 1. ..."); the labs past them have no section there
IN_LESSON = sum(1 for line in lesson_text("07_failure_modes_and_checklist").splitlines()
                if re.match(r"### \d+\. ", line))

with live_col:
    st.subheader("See each failure happen")
    st.caption(f"Labs 1 to {IN_LESSON} follow the lesson's list. Each button runs a small lab "
               + ("on this machine's GPU." if ctx.live else "on the simulated GPU (no GPU here), and says what it measured."))
    for i, fm in enumerate(failure_modes(), start=1):
        if i == IN_LESSON + 1:
            st.subheader("More failures, inside torch's own machinery")
            st.caption("These go past the lesson's list: cudagraph trees, compile caches and PyTorch's own allocator. "
                       + ("Each runs on this machine's GPU." if ctx.live else
                          ("Each shows its shipped recording under its own badge: the H200's, labelled RECORDED, "
                           "or, where the lab also runs on a CPU, a CPU run labelled CPU, RECORDED.")))
        with st.container(border=True):
            st.markdown(f"**{i}. {fm['title']}**")
            st.caption(f"Look for: {fm['look_for']}")
            if fm["lab"] is None:
                app_link(fm["page"], label="Measure cold vs warm starts on the AOT page", icon=":material/arrow_forward:")
                continue
            r = lab_panels.run_button(fm["lab"], ctx.live, "s7")
            if r:
                lab_panels.show(r)

st.divider()
render_lesson("07_failure_modes_and_checklist", title=False, since=CHECKLIST)
st.divider()
render_lesson("08_takeaway_and_next")

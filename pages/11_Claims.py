"""The lesson's claims beside what was measured: computed now from the shipped recordings (and,
for the copy-overlap claim, from the overlap lab), with a verdict and the reason for it."""
from pages.ui.common import SOURCE_LABELS, recordings_of, setup_page, source_badge

import streamlit as st

from pages.ui import lab_panels
from runtime_core.lesson.claims import evaluate_claims

ctx = setup_page("Claims vs measurements")
VERDICT_STYLE = {"holds": ":green[**holds**]", "differs": ":orange[**differs**]", "no data": ":gray[**no data**]"}


def _recordings() -> dict:
    return {kind: recordings_of(kind)[0] for kind in ("sweep", "alloc", "decoder")}


st.title("🔎 The lesson's claims, checked")
st.caption("Each measured cell is computed when this page renders, from the recordings shipped in "
           "lessons/recordings/ (or a lab run), never typed in. A claim can hold in spirit and still "
           "differ in its number: the reason says which.")

recs = _recordings()
for kind, rec in recs.items():
    if rec is None:
        st.warning(f"No {kind} recording is shipped (lessons/recordings/{kind}_*.json): the claims that "
                   f"need it show **no data**.")

if ctx.live and st.button("run the overlap lab on this GPU", key="cl_overlap_gpu"):
    with st.spinner("copying 64 MiB beside ten matmuls…"):
        st.session_state["cl_overlap"] = lab_panels.run("overlap", True)
overlap = st.session_state.get("cl_overlap") or lab_panels.run("overlap", False)
rows = evaluate_claims(recs["sweep"], recs["alloc"], recs["decoder"], overlap_lab=overlap)

counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICT_STYLE}
c = st.columns(3)
for col, (verdict, n) in zip(c, counts.items()):
    col.metric(verdict, n)

for r in rows:
    with st.container(border=True):
        st.markdown(f"**{r['section']} · {r['claim']}**")
        cols = st.columns([2, 4, 1])
        cols[0].caption("the lesson says")
        cols[0].markdown(r["seed_value"])
        cols[1].caption("measured")
        cols[1].markdown(r["measured"])
        cols[2].caption("verdict")
        cols[2].markdown(VERDICT_STYLE[r["verdict"]])
        st.markdown(r["reason"])
        if r["source"] in SOURCE_LABELS:
            source_badge(r["source"], r["source_detail"])
        else:
            st.caption("⚫ NO SOURCE: nothing shipped or measured here holds this number.")

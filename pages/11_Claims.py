"""The lesson's claims beside what was measured: computed now from the shipped recordings (and,
for the copy-overlap claim, from the overlap lab), with a verdict and the reason for it."""
from pages.ui.common import (SOURCE_LABELS, citation_caption, metric_row, recordings_of, render_text, setup_page,
                             source_badge)

import streamlit as st

from pages.ui import figure_log, lab_panels
from pages.ui.safe_text import esc
from runtime_core.lesson.claims import evaluate_claims
from runtime_core.lesson.page_text import text as prose

ctx = setup_page("Claims vs measurements", icon=":material/fact_check:")
# Verdicts as coloured words (the word carries the meaning; the colour only repeats it).
VERDICT_STYLE = {"holds": ":green[**holds**]", "differs": ":orange[**differs**]",
                 "not evidence": ":blue[**not evidence**]", "no data": ":gray[**no data**]"}


def _recordings() -> dict:
    """The sweep picked in the sidebar (every sweep found is listed there), and the best alloc
    and decoder recordings."""
    return {"sweep": ctx.recording, **{kind: recordings_of(kind)[0] for kind in ("alloc", "decoder")}}


def _citations(rows: list) -> str:
    """Every claim's text, for the line that names what each citation marker means."""
    return " ".join(f"{r['claim']} {r['seed_value']}" for r in rows)


st.title("The lesson's claims, checked")
st.caption(prose("claims", "intro"))

recs = _recordings()
for kind, rec in recs.items():
    if rec is None:
        st.warning(f"No {kind} recording is shipped (lessons/recordings/{kind}_*.json): the claims that "
                   f"need it show **no data**.")

if ctx.live and st.button("run the overlap lab on this GPU", key="cl_overlap_gpu"):
    with st.spinner("copying 64 MiB beside ten matmuls…"):
        live_overlap = lab_panels.run("overlap", True)
    if live_overlap is not None:
        st.session_state["cl_overlap"] = live_overlap
overlap = (st.session_state.get("cl_overlap") or lab_panels.recorded("overlap")
           or lab_panels.run("overlap", False))
rows = evaluate_claims(recs["sweep"], recs["alloc"], recs["decoder"], overlap_lab=overlap)
if recs["decoder"] is not None and any(r["id"] in ("decoder_2x", "kernels_per_token") for r in rows):
    figure_log.note_decoder_bench(recs["decoder"], "decoder claims")
others = [r for r in ctx.recordings if r is not recs["sweep"]]
other = None
if others:
    labels = {r.meta.file: r.label() for r in others}
    pick = st.selectbox("compare with another sweep recording", ["(none)", *labels], key="cl_compare",
                        format_func=lambda f: labels.get(f, f))
    other = next((r for r in others if r.meta.file == pick), None)
other_rows = ({r["id"]: r for r in evaluate_claims(other, recs["alloc"], recs["decoder"], overlap_lab=overlap)}
              if other else {})

citation_caption(_citations(rows))  # what ‹seed› means, before the first card that carries it
counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICT_STYLE}
c = metric_row()
for verdict, n in counts.items():
    c.metric(verdict, n, width="content")

for r in rows:
    with st.container(border=True):
        st.markdown(f"**{r['section']} · {render_text(r['claim'])}**")
        cols = st.columns([2, 4, 1])
        cols[0].caption("the lesson says")
        cols[0].markdown(render_text(r["seed_value"]))
        cols[1].caption("measured")
        cols[1].markdown(r["measured"])
        cols[2].caption("verdict")
        cols[2].markdown(VERDICT_STYLE[r["verdict"]])
        st.markdown(r["reason"])
        o = other_rows.get(r["id"])
        if o and (o["measured"], o["verdict"]) != (r["measured"], r["verdict"]):
            st.markdown(f"*On {esc(other.label())}:* {esc(o['measured'])} → {VERDICT_STYLE[o['verdict']]}")
        if r["source"] in SOURCE_LABELS:
            source_badge(r["source"], r["source_detail"])
        else:
            st.caption(":gray-badge[NO SOURCE] nothing shipped or measured here holds this number.")

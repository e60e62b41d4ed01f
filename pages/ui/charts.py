"""Showing a Plotly figure on a page: its title as page text above it, the figure below.

A title drawn inside the SVG is one line that never wraps: on a phone it runs off the chart's
right edge, under the chart's toolbar. As page text it wraps like any sentence. The chart
builders (timeline_chart, alloc_charts, lab_charts, diagnose_charts) still set a title, so a
figure shown with st.plotly_chart directly keeps it.
"""
from __future__ import annotations

import html
import re

import streamlit as st

from pages.ui.safe_text import esc


def title_lines(fig) -> list[str]:
    """The figure's title as plain text, a line per Plotly <br>: tags go, entities decode."""
    raw = fig.layout.title.text or ""
    lines = (html.unescape(re.sub(r"</?[A-Za-z][^<>]*>", "", part)).strip()  # tags only: "(< 1.2x)" stays
             for part in re.split(r"<br\s*/?>", raw, flags=re.I))
    return [line for line in lines if line]


def show(fig, key: str | None = None) -> None:
    """The title's first line (bold, wrapping), its further lines (the notes on how the chart was
    drawn) as a caption under it, then the figure without its in-SVG title, full width. Titles are
    ours, so nothing is clipped; they are escaped all the same (a lane or file name can be in one)."""
    first, *notes = title_lines(fig) or [""]
    if first:
        st.markdown(f"**{esc(first, max_chars=None)}**")
    if notes:
        st.caption(esc(" ".join(notes), max_chars=None))
    # Room above the plot area for Plotly's toolbar (on a touch screen it stays drawn over the top
    # of the chart), and more where subplot titles (annotations) sit there too.
    top = 48 if any(a.yref == "paper" and (a.y or 0) >= 1 for a in fig.layout.annotations) else 32
    # 13 px text (Plotly's default is 12): axis ticks and hover labels stay legible on a projector
    fig.update_layout(title_text="", margin_t=top, font_size=13)
    st.plotly_chart(fig, width="stretch", key=key)

"""The two-lane timeline: CPU launches above, GPU kernels below, on one µs axis.

Built with go.Bar (orientation="h", base=start): px.timeline would read the numbers as dates.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from pages.ui import palette as P
from pages.ui.safe_text import plot_text
from runtime_core.engine.timeline_limit import decimate
from runtime_core.engine.timeline_slices import bin_lanes
from runtime_core.lesson.page_text import text as prose

# kind -> (legend label, colour, hatch); drawn in this order, later kinds on top. Kinds that share a
# lane differ by hatch as well as by colour; the legend names each.
KIND_STYLE = {
    "dispatch": ("CPU framework dispatch (Python, aten)", P.YELLOW, ""),
    "launch": ("CPU launch tax", P.BLUE, ""),
    "spin": ("extra host tax", P.SKY_BLUE, "/"),
    "graph": ("one driver call (graph launch)", P.VERMILLION, ""),
    "sync": ("CPU waits (synchronize)", P.LIGHT_GREY, "."),
    "blocked": ("CPU blocked: launch queue full", P.GREY, "x"),
    "copy": ("memory copy", P.PURPLE, "\\"),
    "capture": ("capture + instantiate", P.ORANGE, "+"),
    "kernel": ("GPU kernel work", P.GREEN, ""),
}
LANES = {"cpu": "CPU (host)", "gpu": "GPU"}
MAX_BARS = 2400


def _field(s, name):
    return s[name] if isinstance(s, dict) else getattr(s, name)


def first_ops_end(spans, n: int, kind: str | None = None) -> float:
    """Where the step's n-th GPU span (of `kind`, or any) ends: a close-up window short enough to
    draw each span as it ran (1.0 for a step with none)."""
    ends = sorted(_field(s, "end_us") for s in spans
                  if _field(s, "lane") == "gpu" and (kind is None or _field(s, "kind") == kind))
    return ends[min(n, len(ends)) - 1] if ends else 1.0


def _slice(s) -> bool:
    """A bar drawn by timeline_slices.bin_lanes (a share of a crowded lane), not one span."""
    return bool(s.get("slice")) if isinstance(s, dict) else False


# The widget's chain (page 6) copies only in graph mode: the input into the captured graph's static
# buffer. Elsewhere a copy is whatever the step copies (the sync lab's .item() read, say).
STATIC_COPY = {"copy": "copy into static buffer"}
# A real network's step (page 7): its copies are its own (an eager step has no static buffer), and a
# graph step's add the inputs copied into the static buffers.
MODEL_COPY = {"copy": "memory copy (the model's,<br>or an input into a graph's static buffer)"}  # two lines: one runs off a phone


def timeline_figure(spans, title: str, max_us: float | None = None, height: int = 360,
                    labels: dict | None = None) -> go.Figure:
    """A figure of `spans` (Span objects or dicts with lane, kind, name, start_us, end_us).
    `labels`: legend labels by kind in place of KIND_STYLE's (e.g. MODEL_COPY)."""
    ordered = sorted(spans, key=lambda s: _field(s, "start_us"))
    if max_us is not None:
        ordered = [s for s in ordered if _field(s, "start_us") <= max_us]
    # a lane crowded with spans narrower than a slice (a 150th of the step) is drawn in slices, each colour
    # covering its share of the time (timeline_slices); what is left over the bar budget is thinned
    kind_labels = {k: (labels or {}).get(k, v[0]) for k, v in KIND_STYLE.items()}
    spans, binned = bin_lanes(ordered, order=tuple(KIND_STYLE), labels=kind_labels)
    spans, cut = decimate(spans, MAX_BARS)
    if binned:  # say so: a slice is a share of time, not one kernel
        lanes = " and ".join(LANES.get(ln, ln).split(" (")[0] for ln in binned["lanes"])
        plural = len(binned["lanes"]) > 1
        # the GPU lane's own count: its regular slices read as a few kernels with long gaps between
        ops = sum(1 for s in ordered if _field(s, "lane") == "gpu")
        ran = prose("charts", "sliced_ran", markdown=False, ops=f"{ops:,}") if "gpu" in binned["lanes"] else ""
        title += "<br>" + prose("charts", "sliced", markdown=False, n=binned["slices"],
                                lanes=f"{lanes} lane{'s' if plural else ''}", ran=ran)
    if cut:  # say so: a thinned step must not read as every kernel drawn
        title += (f"<br>({cut['kept']:,} of its {cut['of']:,} bars drawn, thinned evenly over the step; "
                  f"rare events kept whole)")
    fig = go.Figure()
    for kind, (label, colour, hatch) in KIND_STYLE.items():
        label = (labels or {}).get(kind, label)
        mine = [s for s in spans if _field(s, "kind") == kind]
        if not mine:
            continue
        starts = np.array([float(_field(s, "start_us")) for s in mine])
        durs = np.array([float(_field(s, "end_us")) for s in mine]) - starts
        # Arrays, not lists: Plotly checks a list element by element (a third of a 2,000-node
        # step's server time), an array in one go. The JSON is the same.
        custom = np.empty((len(mine), 2), dtype=object)
        custom[:, 0] = [plot_text(_field(s, "name")) for s in mine]  # a name from a file: no HTML
        # a slice's name already says its span and what ran in it; a span says when and how long
        custom[:, 1] = ["" if _slice(s) else f"<br>start {a:.1f} µs<br>{d:.2f} µs" for s, a, d in zip(mine, starts, durs)]
        fig.add_trace(go.Bar(
            orientation="h", name=label,
            marker=P.hatched(colour, hatch, size=6, line=dict(width=0)),
            y=np.array([LANES.get(_field(s, "lane")) or plot_text(_field(s, "lane")) for s in mine],  # a file's lane: text
                       dtype=object),
            base=starts,
            x=np.maximum(durs, 0.05),
            customdata=custom,
            hovertemplate="%{customdata[0]}%{customdata[1]}<extra></extra>"))
    fig.update_layout(title=dict(text=title, y=0.97, yanchor="top"), barmode="overlay", height=height,
                      bargap=0.35, margin=dict(l=10, r=10, t=40 + 20 * title.count("<br>"), b=10))
    P.legend_below(fig)
    fig.update_xaxes(title="time since the step started (µs)", automargin=True, rangemode="tozero")
    fig.update_yaxes(categoryorder="array", categoryarray=[LANES["gpu"], LANES["cpu"]], automargin=True)
    return fig

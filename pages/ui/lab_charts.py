"""Charts of the failure-mode labs: lanes of spans on a µs axis, and stacked wall-time bars.

Lanes are go.Bar traces with orientation="h" and base=start (px.timeline would read µs as dates).
The widget's two-lane chart is pages/ui/timeline_chart.py; this one takes any lanes and labels.
"""
from __future__ import annotations

import plotly.graph_objects as go

from pages.ui import palette as P
from pages.ui.safe_text import plot_text
from runtime_core.knobs import mode_label

OVERLAP_STYLE = {  # kind -> (legend label, colour, hatch); kinds on one lane differ by hatch too
    "launch": ("CPU launch call", P.BLUE, ""),
    "copy": ("copy (enqueue on CPU, DMA on GPU)", P.PURPLE, "/"),
    "spin": ("CPU blocked in a pageable copy", P.ORANGE, "x"),
    "kernel": ("GPU matmul", P.GREEN, ""),
    "sync": ("CPU waits (synchronize)", P.LIGHT_GREY, "."),
}
MALLOC_STYLE = {
    "driver": ("driver call (cudaMalloc / cudaFree)", P.VERMILLION, "x"),
    "launch": ("CPU launch call", P.BLUE, ""),
    "kernel": ("GPU kernel", P.GREEN, ""),
}


def lanes_figure(spans: list[dict], title: str, style: dict, lanes: list[str],
                 max_us: float | None = None, height: int = 260,
                 x_title: str = "time since the step started (µs)") -> go.Figure:
    """Spans (dicts: lane, kind, name, start_us, end_us) as horizontal bars, one row per lane.

    Args:
        style: {kind: (legend label, colour, hatch)}; spans of other kinds are left out.
        lanes: lane names, top to bottom.
        max_us: the x axis ends here (to put two charts on one scale).
    """
    fig = go.Figure()
    for kind, (label, colour, hatch) in style.items():
        mine = [s for s in spans if s["kind"] == kind and s["lane"] in lanes]
        if not mine:
            continue
        fig.add_trace(go.Bar(
            orientation="h", name=label,
            marker=P.hatched(colour, hatch, size=6, line=dict(width=0)),
            y=[s["lane"] for s in mine], base=[s["start_us"] for s in mine],
            x=[max(s["end_us"] - s["start_us"], 0.05) for s in mine],
            customdata=[[plot_text(s["name"]), s["end_us"] - s["start_us"]] for s in mine],  # names can come from a file
            hovertemplate="%{customdata[0]}<br>start %{base:,.1f} µs<br>%{customdata[1]:,.1f} µs<extra></extra>"))
    # The legend goes under the axis: above the plot it would sit on the title.
    fig.update_layout(title=title, barmode="overlay", height=height + 60, bargap=0.35,
                      margin=dict(l=10, r=10, t=50, b=10))
    P.legend_below(fig)
    fig.update_xaxes(title=x_title, automargin=True,
                     range=[0, max_us] if max_us else None, rangemode="tozero")
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(lanes)), automargin=True)
    return fig


def work_vs_overhead_bars(rows: list[dict], title: str) -> go.Figure:
    """One stacked bar per (variant, mode): kernel work below, launch overhead above, µs.

    Each bar's label is three short lines (variant, mode, N kernels), drawn level: a one-line label
    with the mode's long name was turned on its side by Plotly and took most of the chart's height,
    and "120 kernels" under four bars ran into its neighbours on a 400 px phone ("N=120" does not)."""
    labels = [f"{plot_text(r['variant'])}<br>{mode_label(r['mode']).split(' (')[0]}<br>N={plot_text(r['n'])}"
              for r in rows]  # a recorded lab's fields: Plotly reads HTML in axis labels
    fig = go.Figure()
    fig.add_trace(go.Bar(name="kernel work (µs), solid", x=labels, y=[r["kernel_time_us"] for r in rows],
                         marker=dict(color=P.GREEN)))
    fig.add_trace(go.Bar(name="launch overhead: wall − work (µs), hatched", x=labels,
                         y=[max(r["launch_overhead_us"], 0.0) for r in rows],
                         marker=P.hatched(P.BLUE, "/")))
    fig.add_trace(go.Scatter(name="model's wall (µs), diamonds", x=labels, y=[r["model_wall_us"] for r in rows],
                             mode="markers", marker=dict(symbol="diamond", size=11, color=P.INK)))
    fig.update_layout(title=title, barmode="stack", height=400, margin=dict(l=10, r=10, t=50, b=10))
    P.legend_below(fig)
    fig.update_yaxes(title="time per step (µs)", automargin=True, rangemode="tozero")
    fig.update_xaxes(automargin=True, tickangle=0)
    return fig

"""Charts of the "Will graphs help my model?" page: step time and speedup against batch size,
log axes, with the predicted and measured crossovers marked."""
from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from pages.ui import palette as P
from runtime_core.diagnose.predict import SPEEDUP_THRESHOLD

# eager and graph differ by colour and by marker; measured and predicted by dash (legend names all four)
EAGER, GRAPH = P.VERMILLION, P.BLUE
MARKERS = {EAGER: "circle", GRAPH: "square"}


def sweep_figure(points: list[dict], crossover: dict | None, title: str) -> go.Figure:
    """Two panels over batch size: µs per step (eager and graph, measured solid, predicted dashed),
    and the graph's speedup with the 1.2x line; the crossovers are vertical lines on both (measured
    solid, predicted dashed), and the title names them."""
    pts = sorted(points, key=lambda p: p["batch"])
    b = [p["batch"] for p in pts]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("µs per step", "graph speedup over eager"),
                        horizontal_spacing=0.1)
    for key, name, colour, dash in (("eager_us", "eager, measured", EAGER, "solid"),
                                    ("predicted_eager_us", "eager, predicted", EAGER, "dash"),
                                    ("graph_us", "graph, measured", GRAPH, "solid"),
                                    ("predicted_graph_us", "graph, predicted", GRAPH, "dash")):
        fig.add_trace(go.Scatter(x=b, y=[p[key] for p in pts], name=name, mode="lines+markers",
                                 line=dict(color=colour, dash=dash), marker=dict(symbol=MARKERS[colour])),
                      row=1, col=1)
    for key, name, dash in (("measured_graph_speedup", "speedup, measured", "solid"),
                            ("predicted_graph_speedup", "speedup, predicted", "dash")):
        fig.add_trace(go.Scatter(x=b, y=[p[key] for p in pts], name=name, mode="lines+markers",
                                 line=dict(color=P.PURPLE, dash=dash), marker=dict(symbol="diamond")),
                      row=1, col=2)
    fig.add_trace(go.Scatter(x=[b[0], b[-1]], y=[SPEEDUP_THRESHOLD] * 2, name=f"{SPEEDUP_THRESHOLD}x: graphs stop paying",
                             mode="lines", line=dict(color=P.GREY, dash="dot")), row=1, col=2)
    for which, dash in (("measured", "solid"), ("predicted", "dash")):
        x = (crossover or {}).get(which)
        if x is not None:  # a shape on a log axis takes the data value itself
            for col in (1, 2):
                fig.add_vline(x=x, line=dict(color=P.BLACK, dash=dash, width=1), row=1, col=col)
    fig.update_xaxes(type="log", title="batch size", dtick=0.30103)
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_layout(title=dict(text=title, y=0.98), height=420, margin=dict(l=10, r=10, t=70, b=10))
    P.legend_below(fig)
    return fig


def planner_figure(sets: dict) -> go.Figure:
    """Expected µs per request of each bucket set (bars), with its captures and pool in the hover."""
    names = list(sets)
    fig = go.Figure(go.Bar(
        x=names, y=[sets[n]["expected_step_us"] for n in names],
        text=[f"{sets[n]['expected_step_us']:,.0f} µs" for n in names], textposition="outside",
        customdata=[[sets[n]["captures"], sets[n]["pool_bytes"] / (1 << 20), sets[n]["wasted_work_pct"]]
                    for n in names],
        hovertemplate="%{x}<br>%{y:.1f} µs per request<br>%{customdata[0]} captures, "
                      "%{customdata[1]:.1f} MB pool<br>%{customdata[2]:.1f}% padded work<extra></extra>",
        marker_color=P.CYCLE[: len(names)]))  # each bar is named on its axis
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), yaxis_title="expected µs per request")
    return fig

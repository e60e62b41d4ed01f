"""Charts of the "Will graphs help my model?" page: step time and speedup against batch size,
log axes, with the predicted and measured crossovers marked."""
from __future__ import annotations

import math

import plotly.graph_objects as go

from pages.ui import palette as P
from runtime_core.diagnose.accuracy import pair_key
from runtime_core.diagnose.judged_text import band_figures, error_figure
from runtime_core.diagnose.predict import SPEEDUP_THRESHOLD

# eager and graph differ by colour and by marker; measured and predicted by dash (legend names all four)
EAGER, GRAPH = P.VERMILLION, P.BLUE
MARKERS = {EAGER: "circle", GRAPH: "square"}


def sweep_figures(points: list[dict], crossover: dict | None,
                  measured: str = "measured") -> tuple[go.Figure, go.Figure]:
    """Two charts over batch size, side by side on a wide screen and one under the other on a
    phone: µs per step (eager and graph, measured solid, predicted dashed), and the graph's speedup
    with the 1.2x line; the crossovers are vertical lines on both (measured solid, predicted dashed).
    `measured`: what the solid lines are called ("simulated" for the simulator's demo)."""
    pts = sorted(points, key=lambda p: p["batch"])
    b = [p["batch"] for p in pts]
    times, speed = go.Figure(), go.Figure()
    for key, name, colour, dash in (("eager_us", f"eager, {measured}", EAGER, "solid"),
                                    ("predicted_eager_us", "eager, predicted", EAGER, "dash"),
                                    ("graph_us", f"graph, {measured}", GRAPH, "solid"),
                                    ("predicted_graph_us", "graph, predicted", GRAPH, "dash")):
        times.add_trace(go.Scatter(x=b, y=[p[key] for p in pts], name=name, mode="lines+markers",
                                   line=dict(color=colour, dash=dash), marker=dict(symbol=MARKERS[colour])))
    for key, name, dash in (("measured_graph_speedup", f"speedup, {measured}", "solid"),
                            ("predicted_graph_speedup", "speedup, predicted", "dash")):
        speed.add_trace(go.Scatter(x=b, y=[p[key] for p in pts], name=name, mode="lines+markers",
                                   line=dict(color=P.PURPLE, dash=dash), marker=dict(symbol="diamond")))
    speed.add_trace(go.Scatter(x=[b[0], b[-1]], y=[SPEEDUP_THRESHOLD] * 2, name=f"{SPEEDUP_THRESHOLD}x: graphs stop paying",
                               mode="lines", line=dict(color=P.GREY, dash="dot")))
    for fig, title in ((times, "µs per step"), (speed, "graph speedup over eager")):
        for which, dash in (("measured", "solid"), ("predicted", "dash")):
            x = (crossover or {}).get(which)
            if x is not None:  # a shape on a log axis takes the data value itself
                fig.add_vline(x=x, line=dict(color=P.INK, dash=dash, width=1))
                # a shape has no legend entry: a line-only trace with no points names it there
                said = measured if which == "measured" else which
                fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"crossover, {said} (batch {x:g})",
                                         line=dict(color=P.INK, dash=dash, width=1)))
        fig.update_xaxes(type="log", title="batch size", dtick=0.30103)
        fig.update_layout(title=dict(text=title, y=0.98), height=380, margin=dict(l=10, r=10, t=48, b=10))
        P.legend_below(fig)
    # whole labels only, each with its unit (a log axis's own minor labels read "2 3 4 … 9" from afar)
    steps = [p[k] for p in pts for k in ("eager_us", "predicted_eager_us", "graph_us", "predicted_graph_us") if p.get(k)]
    t_ticks = _one_two_five(min(steps), max(steps)) if steps else []
    times.update_yaxes(type="log", title="µs per step", tickvals=t_ticks, ticktext=[f"{t:,g}" for t in t_ticks])
    speeds = [p[k] for p in pts for k in ("measured_graph_speedup", "predicted_graph_speedup") if p.get(k)]
    ticks = _speedup_ticks(min(speeds + [SPEEDUP_THRESHOLD]), max(speeds + [SPEEDUP_THRESHOLD]))
    speed.update_yaxes(type="log", title="× eager", tickvals=ticks, ticktext=[f"{t:g}x" for t in ticks])
    return times, speed


SPEEDUP_TICKS = (0.1, 0.2, 0.5, 1, 1.2, 2, 3, 5, 10, 20, 30, 50, 100)


def _one_two_five(lo: float, hi: float) -> list[float]:
    """1-2-5 values from just below `lo` to just above `hi` (µs): several whole labels even where
    the data spans less than a decade (a log axis's own labels would show one, or none)."""
    out, decade = [], 10.0 ** math.floor(math.log10(lo))
    while decade <= hi * 10:
        out += [m * decade for m in (1, 2, 5) if lo / 2.5 <= m * decade <= hi * 2.5]
        decade *= 10
    return out


def _speedup_ticks(lo: float, hi: float) -> list[float]:
    """The speedup axis's labels: the round values inside the data's range (and one either side)."""
    inside = [t for t in SPEEDUP_TICKS if lo / 2 <= t <= hi * 2]
    return inside or [1, SPEEDUP_THRESHOLD]


def planner_figure(sets: dict) -> go.Figure:
    """Expected µs per request of each bucket set: its step, and its share of the captures stacked
    on top (what the planner minimizes, the total, is written above each bar); captures, pool and
    padded work in the hover."""
    names = list(sets)
    custom = [[sets[n]["captures"], sets[n]["pool_bytes"] / (1 << 20), sets[n]["wasted_work_pct"]] for n in names]
    hover = ("%{x}<br>%{y:.1f} µs per request, {part}<br>%{customdata[0]} captures, "
             "%{customdata[1]:.1f} MiB pool<br>%{customdata[2]:.1f}% padded work<extra></extra>")
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=[sets[n]["expected_step_us"] for n in names], name="the step",
                         marker_color=P.BLUE, customdata=custom, hovertemplate=hover.replace("{part}", "the step")))
    fig.add_trace(go.Bar(x=names, y=[sets[n]["capture_us_per_request"] for n in names], name="its share of the captures",
                         marker=P.hatched(P.ORANGE, "/", size=6),
                         customdata=custom, hovertemplate=hover.replace("{part}", "capture share"),
                         text=[f"{sets[n]['objective_us']:,.0f} µs" for n in names], textposition="outside",
                         cliponaxis=False))
    fig.update_layout(barmode="stack", height=320, margin=dict(l=10, r=10, t=30, b=10),
                      yaxis_title="µs per request: step + capture share")
    P.legend_below(fig)
    return fig


# the six public networks of the external grid, each its own colour and marker (named in the legend)
NETWORK_SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "star"]


def external_figure(points: list[dict], repeat: list[dict] | None, tolerance: float, title: str) -> go.Figure | None:
    """Predicted speedup (y) against measured speedup (x), log axes, one marker per point, its
    band as an error bar; the cone where the prediction is within ±`tolerance`; and, where the
    grid was measured twice, a grey line from each point to what the other recording measured
    (same prediction, other measurement): how far the measurement itself moves. None where no
    point has both speedups."""
    pts = [p for p in points if _speedup(p.get("measured_graph_speedup")) and _speedup(p.get("predicted_graph_speedup"))]
    if not pts:
        return None
    fig = go.Figure()
    xs = [p["measured_graph_speedup"] for p in pts] + [p["predicted_graph_speedup"] for p in pts]
    lo, hi = min(xs + [0.9]) / 1.1, max(xs) * 1.1
    fig.add_trace(go.Scatter(x=[lo, hi, hi, lo], y=[lo * (1 - tolerance), hi * (1 - tolerance), hi * (1 + tolerance),
                                                  lo * (1 + tolerance)],
                             mode="lines", fill="toself", fillcolor="rgba(153,153,153,0.18)", line=dict(width=0),
                             hoverinfo="skip",
                             name=f"within ±{tolerance:.0%}"))
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", line=dict(color=P.GREY, width=1),
                             hoverinfo="skip", name="predicted = measured"))
    again = {pair_key(q): q for q in repeat or [] if isinstance(q, dict) and {"model", "dtype", "batch"} <= q.keys()
             and _speedup(q.get("measured_graph_speedup"))}
    seg_x, seg_y = [], []
    for p in pts:
        q = again.get(pair_key(p))
        if q:
            seg_x += [p["measured_graph_speedup"], q["measured_graph_speedup"], None]
            seg_y += [p["predicted_graph_speedup"]] * 2 + [None]
    if seg_x:
        fig.add_trace(go.Scatter(x=seg_x, y=seg_y, mode="lines", name="the same point, measured again",
                                 legendgroup="again", line=dict(color=P.GREY, width=1, dash="dot"), hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=seg_x[1::3], y=seg_y[1::3], mode="markers", legendgroup="again", showlegend=False,
                                 hoverinfo="skip", marker=dict(symbol="circle-open", size=6, color=P.GREY)))
    nets = list(dict.fromkeys(p["model"].split(":")[-1] for p in pts))
    for i, net in enumerate(nets):
        mine = [p for p in pts if p["model"].split(":")[-1] == net]
        band = [_band(p) for p in mine]
        fig.add_trace(go.Scatter(
            x=[p["measured_graph_speedup"] for p in mine], y=[p["predicted_graph_speedup"] for p in mine],
            mode="markers", name=net,
            marker=dict(symbol=NETWORK_SYMBOLS[i % len(NETWORK_SYMBOLS)], size=9, color=P.CYCLE[i % len(P.CYCLE)]),
            error_y=dict(type="data", symmetric=False, thickness=1, width=3,
                         array=[b[1] - p["predicted_graph_speedup"] for p, b in zip(mine, band)],
                         arrayminus=[p["predicted_graph_speedup"] - b[0] for p, b in zip(mine, band)]),
            customdata=[[p["dtype"], p["batch"], *_hover_figures(p, b, tolerance)] for p, b in zip(mine, band)],
            hovertemplate=(f"{net} " "%{customdata[0]}, batch %{customdata[1]}<br>predicted %{customdata[2]}x "
                           "(band %{customdata[3]}–%{customdata[4]}x)<br>measured %{customdata[5]}x "
                           "(%{customdata[6]})<extra></extra>")))
    fig.add_vline(x=SPEEDUP_THRESHOLD, line=dict(color=P.INK, dash="dot", width=1))
    ticks = [t for t in (0.5, 1, 2, 3, 5, 10, 20, 50, 100) if lo <= t <= hi]  # 1.2x is the dotted line
    axis = dict(type="log", range=[math.log10(lo), math.log10(hi)], tickvals=ticks, ticktext=[f"{t:g}x" for t in ticks])
    fig.update_xaxes(title="measured speedup", **axis)
    fig.update_yaxes(title="predicted speedup", **axis)
    fig.update_layout(title=dict(text=title, y=0.98), height=520, margin=dict(l=10, r=10, t=70, b=10))
    P.legend_below(fig)
    return fig


def _hover_figures(p: dict, band: list[float], tolerance: float) -> list[str]:
    """A point's predicted, band and measured speedups and its error as its hover prints them: with
    the decimals at which a measurement outside its band reads outside (judged_text.band_figures;
    at two decimals 2.27 sat inside 2.27-2.49) and an error that never reads inside ±15% when it is
    not (error_figure)."""
    pred, meas = p["predicted_graph_speedup"], p["measured_graph_speedup"]
    lo, hi, m = band_figures(band, meas, band[0] <= meas <= band[1])
    err = pred / meas - 1
    within = abs(err) <= tolerance if meas >= SPEEDUP_THRESHOLD else None
    return [f"{pred:.{len(lo.split('.')[-1])}f}", lo, hi, m, error_figure(err, tolerance, within)]


def _speedup(v) -> bool:
    """Whether `v` can sit on a log axis (a positive, finite number)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _band(p: dict) -> list[float]:
    """The point's band, or none (its prediction at both ends) where a recording has no usable one."""
    b, s = p.get("predicted_speedup_band"), p["predicted_graph_speedup"]
    if isinstance(b, (list, tuple)) and len(b) == 2 and all(_speedup(x) for x in b) and b[0] <= s <= b[1]:
        return list(b)
    return [s, s]

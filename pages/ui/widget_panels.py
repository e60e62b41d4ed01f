"""Panels of the launch-overhead widget: metric rows, downloads, dynamic-shape policy costs,
and the calibrated model's accuracy over a recording."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from pages.ui.common import source_badge
from runtime_core.knobs import mode_label
from runtime_core.model.accuracy import accuracy
from runtime_core.engine.trace_export import spans_to_chrome_trace, spans_to_csv


NOT_COUNTED = ("Not counted: this step was not traced, and a count is measured by the profiler or "
               "shown as absent, never guessed.")


def count_cell(x) -> str:
    """A call count for a table: the number, or "—" where it was not measured."""
    return "—" if x is None else f"{x}"


def _us(x: float) -> str:
    return f"{x:,.1f} µs" if abs(x) < 100 else f"{x:,.0f} µs"


def metric_row(title: str, d: dict, source: str, detail: str) -> None:
    """Four metrics in a row: overhead, wall, driver calls and an unmistakable TRUE/FALSE."""
    st.markdown(f"**{title}**")
    source_badge(source, detail)
    c = st.columns(4)
    ovh = d["launch_overhead_us"]
    c[0].metric("total launch overhead", _us(max(ovh, 0.0)),
                help=None if ovh >= 0 else (f"Measured wall time is {-ovh:.1f} µs below the GPU busy time, "
                                           "which is timed separately in bulk: the overhead is zero "
                                           "within the noise of the two measurements."))
    c[1].metric("wall time / step", _us(d["wall_us"]))
    calls = d["driver_calls"]
    c[2].metric("driver calls", "—" if calls is None else f"{calls}",
                help=NOT_COUNTED if calls is None else "kernel launches plus graph launches in one step")
    with c[3]:
        st.markdown("graph-capture valid?")
        st.markdown("### :green[TRUE]" if d["graph_valid"] else "### :red[FALSE]")


def copy_costs(k, sources: dict, columns: list[str]) -> list[str]:
    """Per column, what the static-input copy costs: wall on the copy path minus zero-copy (µs).
    `sources` maps a column to a function of Knobs (or None where it can't be priced)."""
    out = []
    for name in columns:
        fn = sources.get(name)
        a = fn(k.replace(graph_input="copy")) if fn else None
        b = fn(k.replace(graph_input="zero-copy")) if fn else None
        out.append("—" if not (a and b) else f"{a['wall_us'] - b['wall_us']:.1f}")
    return out


def compare_panel(recordings: list, k) -> None:
    """Every sweep recording at the current setting, side by side (your GPU vs the shipped one)."""
    from runtime_core.recordings import is_exact, nearest_point
    with st.expander(f"Compare recordings at this setting ({len(recordings)} found)", expanded=False):
        rows = []
        for rec in recordings:
            p = nearest_point(rec, k.replace(extra_tax_us=0.0))
            if p is None:
                continue
            rows.append({"recording": rec.label(),
                         "shown at": "this setting" if is_exact(p, k.replace(extra_tax_us=0.0)) else f"N={p.n}, work {p.work_us:g} µs",
                         "wall / step (µs)": f"{p.wall_us:,.1f}",
                         "launch overhead (µs)": f"{max(p.launch_overhead_us, 0):,.1f}",
                         "calibrated model (µs)": "—" if p.model_wall_us is None else f"{p.model_wall_us:,.1f}",
                         "launch tax (µs)": f"{p.tax_us:.1f}",
                         "driver calls": count_cell(p.driver_calls)})
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def downloads(spans: list, label: str, chrome: dict | None) -> None:
    """CSV of the spans, and a Chrome trace (the profiler's own when measured live)."""
    import json
    c1, c2 = st.columns(2)
    c1.download_button("timeline as CSV", spans_to_csv(spans), file_name="timeline.csv", mime="text/csv",
                       key=f"dl_csv_{label}")
    trace = json.dumps(chrome) if chrome else spans_to_chrome_trace(spans, f"launch-overhead widget ({label})")
    c2.download_button("Chrome trace (open in Perfetto)", trace, file_name="trace.json",
                       mime="application/json", key=f"dl_trace_{label}")


def policy_panel(k, sim: dict, measured: dict | None) -> None:
    """With dynamic shapes in graph mode: what the chosen miss policy costs."""
    if not (k.dynamic and k.mode == "graph"):
        return
    st.markdown(f"##### Dynamic shapes, policy **{k.policy}**")
    rows = {"simulated": sim.get("graph_stats")}
    if measured and measured.get("graph_stats"):
        rows[f"measured (N={measured['n']})"] = measured["graph_stats"]
    rows = {name: s for name, s in rows.items() if s}
    if not rows:
        st.caption("No policy counters recorded for this setting.")
        return
    keys = ["misses", "fallbacks", "captures", "capture_us", "pool_bytes", "evictions", "distinct_shapes",
            "wasted_work_pct"]
    table = {n: {key: ("—" if s.get(key) is None else s.get(key)) for key in keys} for n, s in rows.items()}
    st.dataframe(pd.DataFrame(table).astype(str), width="stretch")
    st.caption({"fallback": "Every call misses the guard and runs without the graph (asynchronously): graph-capture valid is FALSE.",
                "recapture": "Each new shape warms up and captures a graph (LRU cache of 4): a capture storm.",
                "bucket": "Inputs are padded to a power-of-two size that has a graph: replays stay valid, "
                          "padded elements are wasted work."}[k.policy])


def accuracy_panel(rec: dict) -> None:
    """The calibrated model against every recorded point: error per point and why it misses."""
    acc = accuracy(rec)
    with st.expander(f"How good is the calibrated model? {acc['within']}/{acc['total']} recorded points "
                     f"within ±{acc['tolerance']:.0%}", expanded=False):
        pts = [p.metrics() for p in rec.points if p.model_wall_us is not None]
        fig = go.Figure()
        for mode, colour in (("eager", "#d62728"), ("streams", "#1f77b4"), ("graph", "#2ca02c")):
            mine = [p for p in pts if p["mode"] == mode]
            fig.add_trace(go.Scatter(
                x=[p["wall_us"] for p in mine], y=[p["model_wall_us"] for p in mine], mode="markers",
                name=mode_label(mode), marker=dict(color=colour, size=6),
                text=[f"N={p['n']} work={p['work_us']} dyn={int(p['dynamic'])}" for p in mine],
                hovertemplate="%{text}<br>measured %{x:.1f} µs<br>model %{y:.1f} µs<extra></extra>"))
        lo, hi = min(p["wall_us"] for p in pts), max(p["wall_us"] for p in pts)
        for f, name in ((1.0, "model = measured"), (1.15, "+15%"), (0.85, "−15%")):
            fig.add_trace(go.Scatter(x=[lo, hi], y=[lo * f, hi * f], mode="lines", name=name,
                                     line=dict(color="grey", dash="solid" if f == 1.0 else "dot", width=1)))
        fig.update_layout(height=420, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h"))
        fig.update_xaxes(type="log", title="measured wall time / step (µs)")
        fig.update_yaxes(type="log", title="calibrated model (µs)")
        st.plotly_chart(fig, width="stretch")
        if acc["misses"]:
            st.markdown("**Points outside ±15%, and why**")
            st.dataframe(pd.DataFrame(acc["misses"]), width="stretch", hide_index=True)

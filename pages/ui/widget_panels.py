"""Panels of the launch-overhead widget: metric rows, downloads, dynamic-shape policy costs,
and the calibrated model's accuracy over a recording."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from pages.ui import palette as P, tables as ui_tables
from pages.ui.query_url import replace_owned
from pages.ui.safe_text import esc, md
from pages.ui.widget_view import FALLBACK_CHIP, TIMELINE_SOURCES, headline_metrics as view_metrics
from runtime_core.engine.measure import DEFAULT_CACHE_SIZE as CACHE_SIZE
from runtime_core.engine.workload import DYNAMIC_VARIANTS
from runtime_core.knobs import mode_label
from runtime_core.lesson.replay_costs import constant_rows
from runtime_core.model.accuracy import accuracy
from runtime_core.engine.trace_export import spans_to_chrome_trace, spans_to_csv
from runtime_core.lesson.page_text import text as prose
from runtime_core.words import all_of


def count_cell(x) -> str:
    """A call count for a table: the number, or "—" where it was not measured."""
    return "—" if x is None else f"{x}"


METRIC_CSS = """<style>
.block-container { padding-top: 3.75rem !important; }
h1 { font-size: 2rem !important; padding-top: 0 !important; }
[data-testid="stMetricValue"] { font-size: 1.8rem; }
</style>"""


def draw_metrics(metrics: list) -> None:
    """The headline metrics (widget_view.Metric), side by side (labels and chips wrap rather than
    cut off on every page: common.METRIC_WRAP_CSS)."""
    st.html(METRIC_CSS)
    for col, m in zip(st.columns(len(metrics)), metrics):
        col.metric(m.label, m.value, delta=m.delta, help=m.help, delta_color="off", delta_arrow="off")
    if any(m.delta.startswith(FALLBACK_CHIP) for m in metrics):  # what the chips' words mean, under them
        st.caption(prose("widget", "fallback_chips"))


TIMELINE_URL = "timeline"


def timeline_picker(choices: list[str]) -> str:
    """The timeline's source, picked from `choices` (widget_view.timeline_choices). One radio per
    set of options: a browser keeps a keyed radio whose options changed with nothing selected, so
    each set has its own key, and the reader's last pick carries over where it is offered."""
    key = "w_timeline_source" if "measured" in choices else "w_timeline_source_unmeasured"
    st.session_state.pop("w_timeline_source_unmeasured" if key == "w_timeline_source" else "w_timeline_source", None)
    asked = st.query_params.get(TIMELINE_URL)
    if "w_timeline_pick" not in st.session_state and asked is not None:  # a shared link's pick, read once
        if asked in TIMELINE_SOURCES:
            st.session_state["w_timeline_pick"] = asked
        else:
            st.warning(md("URL value {name}={raw} ignored: it is one of {ok}; showing the first offered.",
                          name=TIMELINE_URL, raw=asked, ok=", ".join(TIMELINE_SOURCES)), icon=":material/warning:")
    last = st.session_state.get("w_timeline_pick")
    picked = st.radio("timeline from", choices, horizontal=True, key=key,
                      index=choices.index(last) if last in choices and key not in st.session_state else 0,
                      format_func=lambda c: f"timeline: {c}" if c == choices[0] else c,
                      label_visibility="collapsed")
    if key == "w_timeline_source" or picked != choices[0]:  # a fallback to simulated is not a pick
        st.session_state["w_timeline_pick"] = picked
    # in the URL where it is not the first choice, so a shared link shows the timeline the sharer saw
    replace_owned({TIMELINE_URL: picked} if picked != choices[0] else {}, [TIMELINE_URL])
    return picked


def headline_metrics(numbers: dict, note: str, book: dict) -> None:
    """Draw widget_view.headline_metrics: overhead, wall, driver calls and graph valid, with the
    textbook model's value at the same setting beneath each."""
    draw_metrics(view_metrics(numbers, note, book))


def compare_panel(recordings: list, k) -> None:
    """Every sweep recording at the current setting, side by side (your GPU vs the shipped one):
    one row per recording, saying which setting each row was recorded at."""
    from runtime_core.recordings import is_exact, nearest_point
    at = k.replace(extra_tax_us=0.0)
    rows = []
    for rec in recordings:
        p = nearest_point(rec, at)
        if p is None:
            continue
        rows.append({"recording": rec.label(),
                     "recorded at": "this setting" if is_exact(p, at) else f"N={p.n}, work {p.work_us:g} µs",
                     "wall / step (µs)": f"{p.wall_us:,.1f}",
                     "launch overhead (µs)": f"{max(p.launch_overhead_us, 0):,.1f}",
                     "calibrated model (µs)": "—" if p.model_wall_us is None else f"{p.model_wall_us:,.1f}",
                     "launch tax (µs)": f"{p.tax_us:.1f}",
                     "driver calls": count_cell(p.driver_calls)})
    st.caption(f"{len(recordings)} sweep recordings found in lessons/recordings/ (no extra host tax).")
    ui_tables.show(rows)


def downloads(spans: list, label: str, chrome: dict | None) -> None:
    """CSV of the spans, and a Chrome trace (the profiler's own when measured live). Both are made
    when the button is pressed, not on every rerun (at N=2,000 that was 30 ms of server CPU per
    knob change, issue 21 item 9). A press does not rerun the page: a download changes nothing shown."""
    import json
    c1, c2 = st.columns(2)
    c1.download_button("timeline as CSV", lambda: spans_to_csv(spans), file_name="timeline.csv", mime="text/csv",
                       key=f"dl_csv_{label}", on_click="ignore")
    trace = (lambda: json.dumps(chrome)) if chrome else \
        (lambda: spans_to_chrome_trace(spans, f"launch-overhead widget ({label})"))
    c2.download_button("Chrome trace (open in Perfetto)", trace, file_name="trace.json",
                       mime="application/json", key=f"dl_trace_{label}", on_click="ignore")


POLICY_ROWS = {"misses": "guard misses", "fallbacks": "calls run without the graph", "captures": "captures",
               "capture_us": "time capturing (ms)", "pool_bytes": "graph memory pool (KiB)",
               "evictions": "graphs evicted", "distinct_shapes": "distinct shapes seen",
               "wasted_work_pct": "padded (wasted) work (%)"}


def _policy_cell(key: str, x) -> str:
    """One policy counter as a student reads it: counts as integers, time in ms, bytes in KiB."""
    if x is None:
        return "—"
    if key == "capture_us":
        return f"{x / 1000:,.1f}"
    if key == "pool_bytes":  # KiB: a chain's inputs are kilobytes, and MiB showed 0.0 on both sides
        return f"{x / 2**10:,.1f}"
    if key == "wasted_work_pct":
        return f"{x:.1f}"
    return f"{int(round(x)):,}"


def _storm_where(rows: dict) -> str:
    """Which columns stormed (captured more graphs than they saw shapes: a graph evicted, then captured
    again, the storm lab's own signal), so the caption promises no storm a column does not show: a short
    run sees fewer shapes than the cache keeps, or never comes back to one it evicted."""
    stormed = [name for name, s in rows.items() if (s.get("captures") or 0) > (s.get("distinct_shapes") or 0)]
    if not stormed:
        return prose("widget", "storm_none", cache=CACHE_SIZE)
    calm = [name for name in rows if name not in stormed]
    return prose("widget", "storm_columns", cache=CACHE_SIZE, stormed=esc(all_of(stormed)),
                 s="s" if len(stormed) > 1 else "",
                 calm=prose("widget", "storm_calm", calm=esc(all_of(calm))) if calm else ".")


def policy_panel(k, sim: dict, measured: dict | None, note: str = "", label: str = "measured") -> None:
    """With dynamic shapes in graph mode: what the chosen miss policy costs. `label` names the
    measured column's source (live, or the recorded GPU), as the side-by-side table does."""
    if not (k.dynamic and k.mode == "graph"):
        return
    st.markdown(f"##### Dynamic shapes, policy **{k.policy.value}**")
    rows = {"simulated": sim.get("graph_stats")}
    if measured and measured.get("graph_stats"):
        rows[label + (f" ({note})" if note else "")] = measured["graph_stats"]
    rows = {name: s for name, s in rows.items() if s}
    if not rows:
        st.caption("No policy counters recorded for this setting.")
        return
    if measured and not measured.get("graph_stats"):  # a column left out silently read as "nothing measured"
        st.caption(prose("widget", "policy_no_counters", label=esc(label)))
    calls = [s.get("hits", 0) + s.get("misses", 0) for s in rows.values()]
    ui_tables.compare("counter", list(rows), [("calls in the run (guard checks)", [f"{c:,}" for c in calls])]
                      + [(label_, [_policy_cell(key, s.get(key)) for s in rows.values()])
                         for key, label_ in POLICY_ROWS.items()])
    st.caption({"fallback": "The graph is captured at the first call's shape; every call with another shape misses the guard "
                             "and runs without the graph (asynchronously), so graph-capture valid reads FALSE.",
                "recapture": f"Each new shape warms up and captures a graph (LRU cache of {CACHE_SIZE}). "
                             + _storm_where(rows),
                "bucket": "Inputs are padded to a power-of-two size that has a graph: replays stay valid, "
                          "padded elements are wasted work."}[k.policy])
    pads = [s.get("wasted_work_pct") for s in rows.values()]
    if k.policy == "bucket" and len(pads) == 2 and None not in pads and abs(pads[0] - pads[1]) >= 2:
        st.caption(prose("widget", "bucket_pads_differ", sim=f"{pads[0]:.1f}", other=f"{pads[1]:.1f}",
                         label=esc(list(rows)[1])))
    if len(set(calls)) > 1:
        st.caption(prose("widget", "policy_calls_differ", shapes=DYNAMIC_VARIANTS + 1, cache=CACHE_SIZE))
    stats = list(rows.values())
    if len(stats) == 2 and stats[1].get("pool_bytes") == 0 and (stats[0].get("pool_bytes") or 0) > 0:
        st.caption(prose("widget", "pool_flat", label=esc(list(rows)[1])))


MODE_STYLE = {"eager": ("#D55E00", "circle"), "streams": ("#0072B2", "square"),
              "graph": ("#009E73", "diamond")}  # Okabe–Ito colours, and a marker shape per mode


def miss_rows(misses: list[dict]) -> list[dict]:
    """The model's misses as a student reads them: setting (in one column, so that the table fits a
    phone), measured, model, error, why."""
    return [{
        "setting": ", ".join([mode_label(m["mode"]).split(" (")[0], f"N={m['n']}", f"work {m['work_us']:g} µs"]
                             + ([f"extra tax {m['extra_tax_us']:g} µs"] if m["extra_tax_us"] else [])
                             + ([f"dynamic shapes, on a miss: {m['policy']}" if m["mode"] == "graph"
                                 else "dynamic shapes"] if m["dynamic"] else [])
                             + (["C++ launcher"] if m.get("launcher", "python") != "python" else [])),
        "measured wall (µs)": f"{m['measured_wall_us']:,.1f}", "model (µs)": f"{m['model_wall_us']:,.1f}",
        "error": f"{m['error_pct']:+.1f}%", "why": m["reason"]} for m in misses]  # one decimal: a miss at -15.2% must not read as -15%


@st.cache_resource(show_spinner=False, max_entries=8)
def _accuracy(file: str, recorded_at: str, _rec) -> tuple[dict, go.Figure, list[dict], list[dict]]:
    """accuracy(), its scatter figure and its two tables' escaped cells, once per recording (none
    of them depends on the knobs; escaping a recording's misses is most of a rerun's table work)."""
    acc = accuracy(_rec)
    return (acc, _accuracy_figure(_rec, acc["tolerance"]), ui_tables.cells(constant_rows(_rec)),
            ui_tables.cells(miss_rows(acc["misses"])))


def accuracy_panel(rec) -> None:
    """The calibrated model against every recorded point: error per point and why it misses."""
    acc, fig, constants, misses = _accuracy(rec.meta.file, rec.meta.recorded_at, rec)
    st.markdown(f"**{acc['within']} of {acc['total']}** recorded points are within ±{acc['tolerance']:.0%} "
                f"of the calibrated model (target: {acc['target_share']:.0%}).")
    st.plotly_chart(fig, width="stretch", key="w_accuracy")  # shared by every session: drawn as it is
    st.markdown("**The calibrated model's constants, each read off its own experiment**")
    ui_tables.show(constants, escaped=True)
    st.caption(prose("widget", "constants"))
    if acc["misses"]:
        st.markdown(f"**Points outside ±{acc['tolerance']:.0%}, and why**")
        ui_tables.show(misses, escaped=True)


def _accuracy_figure(rec, tol: float) -> go.Figure:
    pts = [p.metrics() for p in rec.points if p.model_wall_us is not None]
    fig = go.Figure()
    for mode, (colour, symbol) in MODE_STYLE.items():
        mine = [p for p in pts if p["mode"] == mode]
        fig.add_trace(go.Scatter(
            x=[p["wall_us"] for p in mine], y=[p["model_wall_us"] for p in mine], mode="markers",
            name=mode_label(mode).split(" (")[0], marker=dict(color=colour, size=7, symbol=symbol),
            text=[f"N={p['n']} work={p['work_us']:g} µs dynamic={'yes' if p['dynamic'] else 'no'}" for p in mine],
            hovertemplate="%{text}<br>measured %{x:,.1f} µs<br>model %{y:,.1f} µs<extra></extra>"))
    lo, hi = min(p["wall_us"] for p in pts), max(p["wall_us"] for p in pts)
    for f, name in ((1.0, "model = measured"), (1 + tol, f"+{tol:.0%}"), (1 - tol, f"−{tol:.0%}")):
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo * f, hi * f], mode="lines", name=name,
                                 line=dict(color=P.INK, dash="solid" if f == 1.0 else "dot", width=1)))
    fig.update_layout(height=420, margin=dict(l=10, r=10, t=32, b=10), font_size=13,  # t: room for the toolbar
                      legend=dict(orientation="h", yanchor="top", y=-0.18, x=0))
    fig.update_xaxes(type="log", title="measured wall time / step (µs)")
    fig.update_yaxes(type="log", title="calibrated model (µs)")
    return fig

"""Page 7's second check against external truth: public networks outside the external grid (the
held-out set, validation/heldout.py), chosen after the prediction's rules and constants were fixed
and judged by the grid's targets as they stand. Its targets, its misses in words, one point
explained, every point in a table."""
from __future__ import annotations

import streamlit as st

from pages.ui import tables
from pages.ui.common import metric_row
from pages.ui.diagnose_external import (every_point, explain_one, in_order, open_section, outcome, point_label,
                                        target_metrics)
from pages.ui.safe_text import esc
from runtime_core.diagnose.accuracy import (BAND_HALF_WIDTH, BAND_SHARE, TARGET_SHARE, TOLERANCE, VERDICT_SHARE,
                                            graph_step_accuracy, point_targets, step_errors)
from runtime_core.diagnose.predict import SPEEDUP_THRESHOLD
from runtime_core.diagnose.judged_text import band_figures
from runtime_core.diagnose.machine import node_costs_device
from runtime_core.diagnose.records import best_recording
from runtime_core.lesson.page_text import text as prose
from runtime_core.words import all_of


def miss_line(p: dict) -> str:
    """One missed point in words: what it measured against its prediction (and band), and which of
    its two steps was further from its own prediction, by how much and which way (escaped)."""
    t = point_targets(p)
    pred, meas, band = p.get("predicted_graph_speedup"), p.get("measured_graph_speedup"), p.get("predicted_speedup_band")
    off = "" if t["within"] is not False else prose("diagnose", "heldout_miss_off", tolerance=f"{TOLERANCE:.0%}",
                                                     off=f"{abs(t['error']):.0%}",
                                                     way="low" if t["error"] < 0 else "high")
    if not (tables.is_number(pred) and tables.is_number(meas)):   # e.g. a network that cannot be captured
        judged = prose("diagnose", "heldout_miss_unmeasured")
    elif band and t["band_holds"] is False:
        lo, hi, shown = band_figures(band, meas, False)
        judged = prose("diagnose", "heldout_miss_band", meas=shown, lo=lo, hi=hi, pred=f"{pred:.2f}", off=off)
    else:
        judged = prose("diagnose", "heldout_miss_plain", meas=f"{meas:.2f}", pred=f"{pred:.2f}", off=off)
    if not t["verdict_right"]:
        judged += prose("diagnose", "heldout_miss_verdict")
    errors = step_errors(p)   # predicted / measured − 1, as the speedup's error is counted
    why = ""
    if errors:
        step = max(errors, key=lambda s: abs(errors[s]))
        got, want = p[f"{step}_us"], p[f"predicted_{step}_us"]
        why = prose("diagnose", "heldout_miss_step", step=step, off=f"{abs(errors[step]):.0%}",
                    way="low" if errors[step] < 0 else "high", measured=f"{got:,.0f}", predicted=f"{want:,.0f}")
    return f"**{esc(point_label(p))}**: {judged}{why}"


def heldout_panel() -> None:
    """The held-out networks: where they came from, the targets met or missed, each miss in words,
    one point explained and every point in a table."""
    rec = open_section("heldout", "On networks no rule saw")
    if rec is None:
        return
    points = in_order(rec.doc["points"])
    names = list(dict.fromkeys(p["model"].split(":")[-1] for p in points))
    batches: dict = {}   # dtype -> its batches, as measured: "fp32 at batch 1 and bf16 at batch 16"
    for p in points:
        batches.setdefault(p["dtype"], []).append(p["batch"])
    shapes = all_of(f"{esc(d, max_chars=20)} at batch {all_of(sorted(set(b), key=str))}" for d, b in batches.items())
    st.markdown(prose("diagnose", "heldout_intro", n=len(names), networks=esc(all_of(names)), shapes=shapes,
                      device=esc(rec.meta.device_name), points=len(points)))
    grid = best_recording(grid="external")
    if grid is not None and grid.meta.device_name != rec.meta.device_name:
        node = node_costs_device(rec.meta.device_name)
        node_costs = ("" if node is None else prose("diagnose", "heldout_node_costs_own") if node == rec.meta.device_name
                      else prose("diagnose", "heldout_node_costs_other", node_device=esc(node)))
        st.caption(prose("diagnose", "heldout_other_card", device=esc(rec.meta.device_name),
                         grid_device=esc(grid.meta.device_name), node_costs=node_costs))
    acc = rec.summary().get("accuracy") or {}
    st.markdown(prose("diagnose", "heldout_targets", tolerance=f"{TOLERANCE:.0%}", threshold=f"{SPEEDUP_THRESHOLD:.1f}x",
                      share=f"{TARGET_SHARE:.0%}",
                      verdict=f"{VERDICT_SHARE:.0%}", band=f"{BAND_SHARE:.0%}", width=f"{BAND_HALF_WIDTH:.0%}",
                      outcome=outcome(acc)))
    target_metrics(metric_row(), acc)
    measured = [p["measured_graph_speedup"] for p in points if tables.is_number(p.get("measured_graph_speedup"))]
    helped = sum(m >= SPEEDUP_THRESHOLD for m in measured)
    for side, n in (("help", helped), ("no_help", len(measured) - helped)):
        if len(measured) >= 10 and len(measured) - n <= len(measured) // 10:   # one side holds 90% or more
            st.caption(prose("diagnose", "heldout_one_sided_" + side, n=n, points=len(measured),
                             threshold=f"{SPEEDUP_THRESHOLD:.1f}x"))
    g = graph_step_accuracy(points)
    if g["points"]:
        st.caption(prose("diagnose", "heldout_graph_step", tolerance=f"{g['tolerance']:.0%}", within=g["within"],
                         points=g["points"], median=f"{g['median_error']:+.1%}"))
    missed = [p for p in points if point_targets(p)["missed"]]
    if missed:
        st.markdown(prose("diagnose", "heldout_misses", n=len(missed), points=len(points)))
        st.markdown("\n".join(f"- {miss_line(p)}" for p in missed))
    else:
        st.markdown(prose("diagnose", "heldout_no_misses", points=len(points)))
    with st.expander(prose("diagnose", "heldout_explain_title", markdown=False)):
        explain_one(points, rec.meta.device_name, "which point", "dg_held_point",
                    default=point_label(missed[0]) if missed else None)
    every_point(points, "Every held-out point, predicted against measured")

"""Page 7's check against external truth: the diagnosis on public networks (the external grid's
recording), its targets met or missed, one point explained, every point in a table, and a network
that cannot be captured."""
from __future__ import annotations

import streamlit as st

from pages.ui import charts, tables
from pages.ui.common import metric_row, source_badge
from pages.ui.diagnose_charts import external_figure
from pages.ui.diagnose_timing import h_how
from pages.ui.diagnose_view import explanation, verdict
from pages.ui.kept_state import keep, restore
from pages.ui.safe_text import esc
from runtime_core.diagnose.accuracy import (BAND_HALF_WIDTH, BAND_SHARE, GRAPH_MOVED, TARGET_SHARE, TOLERANCE,
                                            VERDICT_SHARE, band_half_width, graph_step_accuracy, miss_sources,
                                            repeatability)
from runtime_core.diagnose.judged_text import band_figures, error_figure
from runtime_core.diagnose.predict import SPEEDUP_THRESHOLD
from runtime_core.diagnose.record_external import FRESH_PROTOCOLS, fresh_checks, is_fresh
from runtime_core.diagnose.records import best_recording
from runtime_core.lesson.page_text import text as prose
from runtime_core.words import all_of


def _gap(first: str | None, second: str | None) -> str:
    """When the second recording was made, against the first, in words ("about 14 hours earlier")."""
    from datetime import datetime
    try:
        s = (datetime.fromisoformat(second.replace("Z", "+00:00")) -
             datetime.fromisoformat(first.replace("Z", "+00:00"))).total_seconds()
    except (AttributeError, TypeError, ValueError):
        return "at another time"
    when = "later" if s >= 0 else "earlier"
    s = abs(s)
    if s >= 5400:
        return f"about {round(s / 3600)} hours {when}"
    return f"about {max(1, round(s / 60))} minutes {when}"


def gpu_bound_points(points: list) -> str:
    """The points whose verdict says the GPU sets the step, grouped by network and dtype, in words:
    "2 of 48 points: bert_base fp32 at batch 16 and 64; ..." (read from each verdict, never typed)."""
    by_net: dict = {}   # network -> dtype -> its GPU-bound batches, in the page's order
    for p in in_order(points):
        if (p.get("verdict") or {}).get("launch_bound") is False:
            by_net.setdefault(p["model"].split(":")[-1], {}).setdefault(p["dtype"], []).append(p["batch"])
    if not by_net:
        return f"none of these {len(points)} points"
    parts = []
    for name, dtypes in by_net.items():
        same = {}       # dtypes with the same batches read as one: "resnet18 fp32 and bf16 at batch 64"
        for dtype, batches in dtypes.items():
            same.setdefault(tuple(batches), []).append(esc(dtype, max_chars=20))
        parts += [f"{esc(name, max_chars=80)} {all_of(ds)} at batch {all_of(b)}" for b, ds in same.items()]
    n = sum(len(b) for d in by_net.values() for b in d.values())
    return f"{n} of {len(points)} points: " + "; ".join(parts)


def _how(repeat: dict) -> str:
    """How the second recording of the grid was made, in words."""
    protocol = str(repeat.get("protocol") or repeat.get("how") or "")
    if protocol in FRESH_PROTOCOLS:
        how = "each point in a fresh process of its own"
    elif protocol.startswith("one process"):
        how = "all of them in one process, one after another"
    else:
        how = "in another process"
    timing = next((p.get("timing") for p in repeat.get("points") or [] if isinstance(p, dict)), None)
    if isinstance(timing, dict) and all(tables.is_number(timing.get(k)) and timing[k] > 0
                                        for k in ("host_rounds", "host_window_s")):
        how += f" (H and the steps in {timing['host_rounds']} rounds over {timing['host_window_s']:g} s)"
    return how


def in_order(points: list) -> list:
    """The points by network (in the grid's own order), dtype (fp32 first) and batch (as a number):
    the order a point was measured in is not the order a student looks for it in."""
    first = {}
    for i, p in enumerate(points):
        first.setdefault(p["model"], i)
    dtypes = {"fp32": 0, "bf16": 1}
    return sorted(points, key=lambda p: (first[p["model"]], dtypes.get(p["dtype"], 2), str(p["dtype"]),
                                         p["batch"] if isinstance(p["batch"], (int, float)) else float("inf")))


def point_label(p: dict) -> str:
    return f"{p['model'].split(':')[-1]}, {p['dtype']}, batch {p['batch']}"


def _moved(moved: list[dict]) -> str:
    """The points whose graph step moved between two measurements (accuracy.repeatability: more
    than GRAPH_MOVED), with the second time over the first, to the decimals at which it reads on
    the right side of both lines the page draws, GRAPH_MOVED and ±TOLERANCE (×1.1514 is ×1.151,
    never ×1.15; ×1.0504 is ×1.0504, never ×1.05)."""
    return ", ".join(f"{esc(m['model'].split(':')[-1])} {esc(m['dtype'])} batch {m['batch']} (×{_ratio(m['ratio'])})"
                     for m in moved)


def _ratio(r: float) -> str:
    """A ratio with 2 decimals, or as many more as it takes to read as it is against both lines."""
    def sides(x: float) -> tuple[bool, bool]:
        return tuple(abs(x - 1) > line + 1e-12 for line in (GRAPH_MOVED, TOLERANCE))   # 0.85 is 15% off, not past
    for d in range(2, 7):
        if sides(round(r, d)) == sides(r):
            return f"{r:.{d}f}"
    return f"{r:.6f}"


TARGET_NAMES = (("meets_speedup_target", "speedup"), ("meets_verdict_target", "verdict"), ("meets_band_target", "band"))


def outcome(acc: dict) -> str:
    """The targets met and missed, in one bold sentence ("" where the recording has no summary)."""
    judged = [(name, acc[key]) for key, name in TARGET_NAMES if isinstance(acc.get(key), bool)]
    if not judged:
        return ""
    missed = [n for n, ok in judged if not ok]
    met = [n for n, ok in judged if ok]
    if not missed:
        return prose("diagnose", "outcome_met")
    if not met:
        return prose("diagnose", "outcome_all_missed")
    return prose("diagnose", "outcome_missed", missed=all_of(missed), met=all_of(met),
                 target_noun="target is" if len(missed) == 1 else "targets are",
                 met_noun="target is" if len(met) == 1 else "targets are")


def open_section(grid: str, title: str):
    """A section's heading, then its grid's recording (best_recording) under its source badge; or
    the page_text "<grid>_missing" note and None where no such recording ships."""
    rec = best_recording(grid=grid)
    st.subheader(title)
    if rec is None:
        st.info(prose("diagnose", f"{grid}_missing"))
        return None
    source_badge("recorded", rec.label())
    return rec


def external_panel() -> None:
    """The external grid: targets, one chosen point's verdict and explanation, all points, the
    capture failure."""
    rec = open_section("external", "On networks nobody here wrote")
    if rec is None:
        return
    batches = sorted({p["batch"] for p in rec.doc["points"]})
    st.markdown(prose("diagnose", "external_intro", device=esc(rec.meta.device_name),
                      batches=", ".join(map(str, batches))))
    fresh = is_fresh(rec.doc)
    st.caption(prose("diagnose", "external_fresh" if fresh else "external_in_process", h_how=h_how(rec.doc["points"])))
    acc = rec.summary().get("accuracy") or {}
    c = metric_row()
    target_metrics(c, acc)
    rechecks = fresh_checks(rec.doc)
    if rechecks and fresh:  # every point above is a fresh process: the same counts, said once
        c.metric("fresh-process re-checks", f"{len(rechecks)} processes", width="content",
                 delta="12 asked; every point above is one", delta_color="off", delta_arrow="off")
    elif rechecks:
        r = rec.doc["rechecks"].get("accuracy") or {}
        c.metric("fresh-process re-checks within ±15%", f"{r.get('within', 0)} of {r.get('eligible', 0)}",
                 width="content", delta=f"those measured ≥ {SPEEDUP_THRESHOLD:.1f}x, of {len(rechecks)} processes "
                 f"(12 asked) · verdicts {r.get('verdict_right', 0)}/"
                 f"{r.get('points', 0)} · band {r.get('band_holds', 0)}/{r.get('banded', 0)}",
                 help=f"{len(rechecks)} fresh `diagnose` processes of the 12 the target asks; the speedup is "
                 f"judged at the {r.get('eligible', 0)} of them that measured {SPEEDUP_THRESHOLD:.1f}x or more.",
                 delta_color="off", delta_arrow="off")
    g = graph_step_accuracy(rec.doc["points"])
    if g["points"]:
        m = miss_sources(rec.doc["points"])
        sources = prose("diagnose", "external_miss_sources", tolerance=f"{TOLERANCE:.0%}", missed=m["missed"],
                        eager=m["eager"], graph=m["graph"], opposite=m["opposite"],
                        tied=prose("diagnose", "external_miss_tied", tied=m["tied"]) if m["tied"] else "",
                        worst=f"{m['worst']:.1%}") if m["missed"] else ""
        st.caption(prose("diagnose", "external_graph_step", tolerance=f"{g['tolerance']:.0%}", within=g["within"],
                         points=g["points"], median=f"{g['median_error']:+.1%}", sources=sources))
    again = repeatability(rec.doc["points"], rechecks) if rechecks and not fresh else None
    regrid = (rec.doc.get("repeat") or {}).get("points")
    twice = repeatability(rec.doc["points"], regrid) if regrid else None
    if (again and again["pairs"]) or (twice and twice["pairs"]):
        with st.expander(prose("diagnose", "external_against_itself_title", markdown=False)):
            _against_itself(rec, again, twice, regrid)
    st.caption(prose("diagnose", "external_targets", tolerance=f"{TOLERANCE:.0%}", share=f"{TARGET_SHARE:.0%}",
                     threshold=f"{SPEEDUP_THRESHOLD:.1f}x", verdict=f"{VERDICT_SHARE:.0%}", band=f"{BAND_SHARE:.0%}",
                     width=f"{BAND_HALF_WIDTH:.0%}", gpu_bound=gpu_bound_points(rec.doc["points"]),
                     outcome=outcome(acc)))
    points = rec.doc["points"]
    fig = external_figure(points, regrid, TOLERANCE, prose("diagnose", "external_chart_title", markdown=False,
                                                           n=len(points), device=rec.meta.device_name))
    if fig is not None:
        charts.show(fig, key="dg_ext_chart")
        st.caption(prose("diagnose", "external_chart", tolerance=f"{TOLERANCE:.0%}",
                         threshold=f"{SPEEDUP_THRESHOLD:.1f}x",
                         again=prose("diagnose", "external_chart_again") if regrid else ""))
    points = in_order(points)
    explain_one(points, rec.meta.device_name, "explain one point", "dg_ext_point")
    every_point(points, "Every point, predicted against measured")
    example = (rec.doc.get("examples") or {}).get("cannot_capture")
    if example:
        st.markdown("##### A network that cannot be captured")
        st.caption(prose("diagnose", "cannot_capture_example"))
        verdict(example, f"Recorded: {esc(example['model'])}, {esc(example['dtype'])}, batch {example['batch']} "
                         f"on {esc(rec.meta.device_name)}.")


def explain_one(points: list, device: str, label: str, key: str, default: str | None = None) -> None:
    """A point chosen by network, dtype and batch (`default` first, else the first point), kept
    across pages under `key`: its recorded verdict and how its prediction was made."""
    labels = [point_label(p) for p in points]
    restore(key, default if default in labels else labels[0], valid=lambda v: v in labels)
    choice = st.selectbox(label, labels, key=key)
    keep(key)
    p = points[labels.index(choice)]
    verdict(p, f"Recorded: {esc(choice)} on {esc(device)}.")
    explanation(p, key=key)


def every_point(points: list, title: str) -> None:
    """Every point in a table of four columns, in an expander titled `title` with the count."""
    with st.expander(f"{title} ({len(points)})"):
        tables.show([point_row(q) for q in points])


def target_metrics(c, acc: dict) -> None:
    """The targets a recording of public networks is judged by, as metrics in the row `c`: each
    count with its share and the share asked (nothing when the recording carries no summary)."""
    if not acc:
        return
    c.metric("speedup within ±15%", f"{acc['within']} of {acc['eligible']}", width="content",
             delta=f"{acc['share']:.0%} of those measured ≥ {SPEEDUP_THRESHOLD:.1f}x; target {TARGET_SHARE:.0%}",
             delta_color="off", delta_arrow="off")
    c.metric("verdict right", f"{acc['verdict_right']} of {acc['points']}", width="content",
             delta=f"{acc['verdict_share']:.0%}; target {VERDICT_SHARE:.0%}", delta_color="off", delta_arrow="off")
    c.metric("band holds the measurement", f"{acc['band_holds']} of {acc['banded']}", width="content",
             delta=f"{acc['band_share']:.0%}; target {BAND_SHARE:.0%}", delta_color="off", delta_arrow="off")
    c.metric("band's median half-width", f"{acc['band_median_half_width']:.1%}", width="content",
             delta=f"target {BAND_HALF_WIDTH:.0%} or less", delta_color="off", delta_arrow="off")


def _against_itself(rec, again: dict | None, twice: dict | None, regrid: list | None) -> None:
    """How well the measurement agrees with itself: the grid's points against their fresh-process
    re-checks, and against a second run of the whole grid."""
    if again and again["pairs"]:
        st.caption(prose("diagnose", "external_repeat", pairs=again["pairs"], tolerance=f"{TOLERANCE:.0%}",
                         speedup=again["speedup_within"], eager=again["eager_within"], graph=again["graph_within"]))
        if again.get("graph_moved"):
            st.caption(prose("diagnose", "external_graph_moved_fresh", moved=_moved(again["graph_moved"])))
    if twice and twice["pairs"]:
        st.caption(prose("diagnose", "external_regrid", n=len(regrid), pairs=twice["pairs"],
                         gap=_gap(rec.doc["meta"].get("recorded_at"), rec.doc["repeat"].get("recorded_at")),
                         how=_how(rec.doc["repeat"]),
                         threshold=f"{SPEEDUP_THRESHOLD:.1f}x", tolerance=f"{TOLERANCE:.0%}",
                         speedup=twice["speedup_within"], eager=twice["eager_within"], graph=twice["graph_within"]))
        if twice.get("graph_moved"):
            st.caption(prose("diagnose", "external_graph_moved_regrid", moved=_moved(twice["graph_moved"])))


def point_row(p: dict) -> dict:
    """One point of the "every point" table, in four columns (narrow enough for a phone): the
    prediction with its band, the measurement with the error, and each target judged."""
    from runtime_core.diagnose.accuracy import point_targets
    band, pred, meas = p.get("predicted_speedup_band"), p.get("predicted_graph_speedup"), p.get("measured_graph_speedup")
    t, tol = point_targets(p), f"±{TOLERANCE:.0%}"
    within = {None: f"{tol} not judged", True: f"within {tol}", False: f"{tol} missed"}[t["within"]]
    judged = ["verdict right" if t["verdict_right"] else "verdict WRONG", within,
              *([] if t["band_holds"] is None else ["in band" if t["band_holds"] else "outside band"])]
    predicted, measured = tables.num(pred, unit="x"), tables.num(meas, unit="x")
    if band is not None and t["band_holds"] is not None:
        lo, hi, shown = band_figures(band, meas, t["band_holds"])
        digits = len(lo.partition(".")[2])  # the band's own decimals, as the point's metric prints it
        predicted = f"{pred:.{digits}f}x ({lo}–{hi}, ±{band_half_width(p):.0%})"
        measured = f"{shown}x"
    elif band is not None:   # nothing measured to judge it by: the band as it is
        predicted += f" ({band[0]:.2f}–{band[1]:.2f}, ±{band_half_width(p):.0%})"
    return {"network": point_label(p), "predicted (band, half-width)": predicted,
            "measured (error)": measured + ("" if t["error"] is None else
                                            f" ({error_figure(t['error'], TOLERANCE, t['within'])})"),
            "targets": "; ".join(judged)}

"""The bucket planner panel: a request-size distribution in, three bucket sets out (the planner's,
powers of two, a serving engine's defaults), priced from the recording's step curve, and the
recorded measurement of the Zipf case beside them."""
from __future__ import annotations

import math

import streamlit as st

from pages.ui import charts, tables
from pages.ui.diagnose_charts import planner_figure
from pages.ui.kept_state import keep, kept, restore
from pages.ui.safe_text import esc
from runtime_core.diagnose.planner import CostModel, compare, default_budget_bytes, powers_of_two, preset
from runtime_core.diagnose.records import DiagnoseRecording
from runtime_core.errors import UsageError
from runtime_core.lesson.page_text import text as prose
from runtime_core.words import all_of

MB = 1 << 20  # a mebibyte: labelled MiB
NEAR_PCT = 0.05  # the planner within this many percent of powers of two: "0.0%" as printed
KINDS = {"batch sizes": "batch", "sequence lengths (tokens)": "tokens"}
PRESET_NAMES = {"uniform": "uniform", "Zipf": "zipf", "my list": "list"}
SET_NAMES = {"planner": "planner", "powers_of_two": "powers of two", "serving_default": "serving defaults",
             "all_eager": "no graphs"}
DEFAULT_LIST = "1, 1, 1, 1, 2, 2, 3, 4, 6, 8, 8, 12, 16, 24, 32, 48, 64"
PLANNER_KEYS = ("dg_plan_kind", "dg_plan_preset", "dg_plan_zipf", "dg_plan_list", "dg_plan_max", "dg_plan_budget",
                "dg_plan_requests")


def _clamp(key: str, lo, hi, default) -> None:
    value = st.session_state.get(key, kept().get(key, default))
    st.session_state[key] = min(max(value, lo), hi)


def planner_panel(rec: DiagnoseRecording, model: str) -> None:
    st.subheader("Which shapes should I capture?")
    st.caption(prose("diagnose", "planner_intro"))
    kinds = ["batch sizes"] + (["sequence lengths (tokens)"] if rec.token_sweep(model) else [])
    c1, c2, c3 = st.columns([3, 3, 3])
    if len(kinds) > 1:
        restore("dg_plan_kind", kinds[0], valid=lambda v: v in kinds)
        kind = KINDS[c1.radio("request sizes are", kinds, key="dg_plan_kind", horizontal=True)]
    else:  # no token sweep recorded for this model: one choice is no choice
        c1.caption("request sizes are")
        c1.markdown(f"**{kinds[0]}** · the only kind recorded for this model")
        kind = KINDS[kinds[0]]
    curve = rec.curve(model, kind)
    restore("dg_plan_preset", "Zipf", valid=lambda v: v in PRESET_NAMES)
    restore("dg_plan_zipf", 1.1)
    restore("dg_plan_list", DEFAULT_LIST)
    restore("dg_plan_requests", 100_000)
    name = c2.radio("request sizes follow", list(PRESET_NAMES), key="dg_plan_preset", horizontal=True)
    exponent = c3.slider("Zipf exponent", 0.0, 3.0, step=0.1, key="dg_plan_zipf", disabled=name != "Zipf")
    text = st.text_input("my list of request sizes (one entry per request)", key="dg_plan_list",
                         disabled=name != "my list")
    c4, c5, c6 = st.columns(3)
    _clamp("dg_plan_max", 1, curve.max_size, min(256, curve.max_size))
    # each box's current value is also its default, so a box cleared by hand goes back to it, not to 1
    top = int(c4.number_input(f"largest request size (1 to {curve.max_size:,})", 1, curve.max_size,
                              value=st.session_state["dg_plan_max"], key="dg_plan_max",
                              help=prose("diagnose", "planner_max_help", markdown=False)))
    hi = math.ceil(2 * sum(curve.pool(b) for b in powers_of_two(top)) / MB) + 1
    default = math.ceil(default_budget_bytes(curve, top) / MB)
    # the budget follows the size's default until moved by hand; then the hand's value stands, shown
    # lowered while a smaller largest size caps the slider, and back once the cap rises again
    asked = st.session_state.get("dg_plan_budget_asked", kept().get("dg_plan_budget_asked"))
    now = st.session_state.get("dg_plan_budget")
    if now is not None and now != st.session_state.get("dg_plan_budget_set"):
        asked = now  # moved by hand (or brought back from the last visit)
    wanted = default if asked is None else asked
    st.session_state["dg_plan_budget"] = st.session_state["dg_plan_budget_set"] = min(max(wanted, 0), hi)
    st.session_state["dg_plan_budget_asked"] = kept()["dg_plan_budget_asked"] = asked
    budget_mb = c5.slider("graph memory budget (MiB)", 0, hi, key="dg_plan_budget",
                          help=prose("diagnose", "planner_budget_help", markdown=False))
    if wanted > hi:
        c5.caption(f"Lowered from {wanted:,} MiB: {hi:,} MiB is this slider's top for a largest size of {top:,}.")
    per_capture = c6.number_input("requests served per capture", 1, 10_000_000, step=1000,
                                  value=st.session_state["dg_plan_requests"], key="dg_plan_requests",
                                  help=prose("diagnose", "planner_per_capture_help", markdown=False))
    # a box refuses a value outside its range only in a hover tooltip, which a phone cannot show
    st.caption(prose("diagnose", "planner_ranges", top=f"{curve.max_size:,}", most=f"{10_000_000:,}"))
    for key in PLANNER_KEYS:  # for the next visit: Streamlit drops them with the page
        keep(key)
    try:
        sets, label = _planned(rec.meta.file, rec.meta.recorded_at, model, kind, PRESET_NAMES[name], top,
                               exponent, text, budget_mb, per_capture, rec)
    except UsageError as e:  # quotes the typed entry: text, not Markdown
        st.warning(esc(e, max_chars=400))
        return
    _predicted_table(sets, label)
    _measured_case(rec, model, kind)


@st.cache_data(max_entries=128, show_spinner=False)
def _planned(file: str, recorded_at: str, model: str, kind: str, preset_name: str, top: int, exponent: float,
             text: str, budget_mb: int, per_capture: int, _rec: DiagnoseRecording) -> tuple[dict, str]:
    """The three bucket sets for one setting of the knobs (the search takes up to a few tenths of a
    second: once per setting and recording, not on every rerun of the page)."""
    dist = preset(preset_name, top, exponent, text, measured_max=_rec.curve(model, kind).max_size)
    return compare(dist, CostModel(_rec.curve(model, kind), budget_mb * MB, float(per_capture))), dist.label


def _predicted_table(sets: dict, label: str) -> None:
    names = [SET_NAMES[k] for k in sets]
    vs = list(sets.values())
    tables.compare("bucket set", names, [
        ("buckets", [_short(v["buckets"]) for v in vs]),
        ("captures", [tables.num(v["captures"]) for v in vs]),
        ("graph pool (MiB)", [f"{v['pool_bytes'] / MB:,.1f}" for v in vs]),
        ("step µs / request", [f"{v['expected_step_us']:,.1f}" for v in vs]),
        ("capture µs / request", [tables.num(v["capture_us_per_request"]) for v in vs]),
        ("total µs / request (what the planner minimizes)", [f"{v['objective_us']:,.1f}" for v in vs]),
        ("padded work", [f"{v['wasted_work_pct']:.1f}%" for v in vs]),
        ("run eagerly", [f"{v['eager_share_pct']:.1f}%" for v in vs])])
    charts.show(planner_figure({SET_NAMES[k]: v for k, v in sets.items()}), key="dg_plan_chart")
    p2, pl = sets["powers_of_two"]["objective_us"], sets["planner"]["objective_us"]  # the planner's own measure
    gain = 100 * (1 - pl / p2)
    if sets["planner"]["buckets"] == sets["powers_of_two"]["buckets"]:  # not "0.0% less than" itself
        st.caption(prose("diagnose", "planner_gain_same", label=esc(label), planner=f"{pl:,.1f}"))
    elif abs(gain) < NEAR_PCT:  # other buckets, but "0.0% less": a difference the rounding hides
        st.caption(prose("diagnose", "planner_gain_near", label=esc(label), planner=f"{pl:,.1f}", powers=f"{p2:,.1f}",
                         near=f"{NEAR_PCT:g}%"))
    else:
        st.caption(prose("diagnose", "planner_gain", label=esc(label), planner=f"{pl:,.1f}", powers=f"{p2:,.1f}",
                         gain=f"{abs(gain):.1f}", direction="less" if gain >= 0 else "more"))
    _same_sets(sets, "predicted")


def _same_sets(sets: dict, what: str) -> None:
    """Two presets that came out as one bucket set (serving defaults are powers of two up to 8, so
    at a largest batch of 16 or less they match): say so, and that the columns differ only by noise
    where the numbers were measured."""
    groups: dict[tuple, list[str]] = {}  # one sentence per bucket set that several presets share
    for name, one in sets.items():
        groups.setdefault(tuple(one["buckets"]), []).append(SET_NAMES[name])
    for buckets, names in groups.items():
        if len(names) < 2:
            continue
        which = all_of(names)
        why = "none of them captures a graph" if not buckets else "at this largest size and budget"
        line = f"{which} are the same buckets here ({why})"
        st.caption(line[0].upper() + line[1:] + (": their measured columns differ by run-to-run variation only."
                                                 if what == "measured" else "."))


def _measured_case(rec: DiagnoseRecording, model: str, kind: str) -> None:
    case = rec.planner_case(model, "zipf")
    if case is None or kind != case.get("kind", "batch"):
        return
    st.markdown(prose("diagnose", "planner_measured", source=rec.meta.source, distribution=esc(case["distribution"]),
                      budget=f"{case['budget_bytes'] / MB:,.1f}",
                      requests=next(iter(case["measured"].values()))["requests"]))
    keys = list(case["measured"])
    ms, preds = [case["measured"][k] for k in keys], [case["predicted"][k] for k in keys]
    tables.compare("bucket set", [SET_NAMES[k] for k in keys], [
        ("buckets", [_short(m["buckets"]) for m in ms]),
        ("captures", [tables.num(m["captures"]) for m in ms]),
        ("graph pool (MiB), measured", [f"{m['pool_bytes'] / MB:,.1f}" for m in ms]),
        ("µs / request, predicted", [f"{p['expected_step_us']:,.1f}" for p in preds]),
        ("µs / request, measured", [f"{m['expected_step_us']:,.1f}" for m in ms]),
        ("padded work, measured", [f"{m['wasted_work_pct']:.1f}%" for m in ms]),
        ("capture time (ms)", [f"{m['capture_s'] * 1e3:,.1f}" for m in ms])])  # one unit across the row
    _same_sets(case["measured"], "measured")


def _short(buckets: list[int], n: int = 14) -> str:
    text = ", ".join(str(b) for b in buckets[:n])
    return (text + ", …" if len(buckets) > n else text) or "none"

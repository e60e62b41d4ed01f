"""Panels of the four torch-level labs (issue 28): partial_capture, training_step, graph_rng and
d2h_hazard. Each draws a lab result's numbers (live on a GPU, or the shipped H200 recording);
a result whose recording is owed never reaches these (lab_panels.show says it is owed). Their
prose is lessons/labs.json's "lab_texts" (runtime_core/lesson/lab_text.py). Nothing is computed here."""
from __future__ import annotations

import streamlit as st

from pages.ui import tables
from pages.ui.common import metric_row
from pages.ui.safe_text import esc
from runtime_core.knobs import PYTORCH_EAGER_LABEL
from runtime_core.lesson import lab_text


_num = tables.is_number


def _us(v) -> str:
    return f"{v:,.0f} µs" if _num(v) else tables.DASH


def _x(v) -> str:
    return f"×{v:.2f}" if _num(v) else None


def _recorded(r: dict) -> bool:
    return r.get("source") == "recorded"


def _error(label: str, err) -> None:
    if err:
        st.caption(label)
        st.code(str(err), language=None, wrap_lines=True)


def intro(name: str, title: bool = True) -> None:
    """The lab's title and what it does, above its run button (the page calls it). `title=False`:
    the page gave the lab a heading of its own (lab_title), so it is not said twice."""
    if title:
        st.markdown(f"**{lab_title(name)}**")
    st.caption(lab_text.text(name, "intro"))


def lab_title(name: str) -> str:
    """The lab's title as lessons/labs.json words it."""
    return lab_text.text(name, "title")


def partial_capture(r: dict) -> None:
    c = metric_row()
    c.metric(f"{PYTORCH_EAGER_LABEL} / step", _us(r.get("eager_us")), width="content")
    c.metric("head + tail graphed / step", _us(r.get("partial_us")), _x(r.get("partial_speedup")),
             delta_color="off", delta_arrow="off", width="content")
    wrong = r.get("fixed_branch_wrong_inputs")
    fixed_x = _x(r.get("whole_fixed_speedup"))  # fast, but a speed bought with wrong answers says so
    if fixed_x and _num(wrong) and wrong > 0:
        fixed_x += f", wrong for {wrong:g} of {r.get('inputs', 0):g} inputs"
    c.metric("one graph, branch fixed / step", _us(r.get("whole_fixed_us")), fixed_x,
             delta_color="off", delta_arrow="off", width="content")
    tables.show([{"part": p.get("part"), "captured": p.get("captured"), "why": p.get("why")}
                 for p in r.get("parts", []) if isinstance(p, dict)])
    runs = [r.get("eager_launches") or {}, r.get("partial_launches") or {}, r.get("whole_fixed_launches") or {}]
    tables.compare("per step", [PYTORCH_EAGER_LABEL, "head + tail graphed", "one graph, branch fixed"], [
        ("µs", [r.get("eager_us"), r.get("partial_us"), r.get("whole_fixed_us")]),
        ("kernel launches (host)", [v.get("kernel_launches") for v in runs]),
        ("graph launches (host)", [v.get("graph_launches") for v in runs]),
        ("wrong outputs", [0, 0 if r.get("partial_matches_eager") else None, r.get("fixed_branch_wrong_inputs")])])
    st.caption(lab_text.text("partial_capture", "saving"))
    if _recorded(r):
        st.caption(lab_text.text("partial_capture", "recorded"))


def training_step(r: dict) -> None:
    c = metric_row()
    c.metric(f"{PYTORCH_EAGER_LABEL} training step", _us(r.get("eager_step_us")), width="content")
    c.metric("replayed graph step", _us(r.get("graph_step_us")), _x(r.get("speedup")), delta_color="off", delta_arrow="off",
             width="content")
    st.caption(lab_text.text("training_step", "signal"))
    stale = r.get("stale_target") or {}
    cols = {"eager": r.get("eager_losses"), "graph, target copied in": r.get("graph_losses"),
            "graph, target rebound: reported": stale.get("reported_losses"),
            "graph, target rebound: on the real target": stale.get("true_losses")}
    steps = max((len(v) for v in cols.values() if isinstance(v, list)), default=0)
    tables.show([{"step": i + 1, **{k: (v[i] if isinstance(v, list) and i < len(v) else None)
                                    for k, v in cols.items()}} for i in range(steps)])
    _error("Adam(capturable=False), captured:", (r.get("without_capturable") or {}).get("error"))
    _error("The capture with capturable=True failed:", r.get("capture_error"))
    if _recorded(r):
        st.caption(lab_text.text("training_step", "recorded"))


def graph_rng(r: dict) -> None:
    names = [("eager", "eager"), ("in_graph", "dropout in the graph"),
             ("registered", "own generator, registered"), ("host_mask", "mask drawn on the host")]
    stats = [r.get(k) or {} for k, _ in names]
    tables.compare("over the replays", [label for _, label in names], [
        ("replays", [s.get("replays") for s in stats]),
        ("distinct masks", [s.get("distinct_masks") for s in stats]),
        ("neighbours agree on", [s.get("mean_agreement") for s in stats]),
        ("kept fraction", [s.get("kept_fraction") for s in stats])])
    steps = r.get("offset_steps") or []
    if steps:
        st.caption("Philox offset step per replay: " + esc(", ".join(str(s) for s in steps), max_chars=200))
    _error("Own generator, not registered, captured:", (r.get("unregistered") or {}).get("error"))
    st.caption(lab_text.text("graph_rng", "failures"))
    if _recorded(r):
        st.caption(lab_text.text("graph_rng", "recorded"))


_WAYS = (("early", "copy_, read at once"), ("to_cpu", "x.to(\"cpu\", non_blocking=True), read at once"),
         ("sync_before", "sync before the copy, read at once"), ("event", "event after the copy, waited on"),
         ("sync_after", "stream sync after the copy"))


def d2h_hazard(r: dict) -> None:
    stale, n = r.get("stale") or {}, r.get("trials")
    tables.show([{"read": label, "stale trials": stale.get(way), "of": n} for way, label in _WAYS])
    issue = r.get("issue_us") or {}
    c = metric_row()
    c.metric("host µs to issue, non_blocking", _us(issue.get("non_blocking")), width="content")
    c.metric("host µs to issue, blocking", _us(issue.get("blocking")), width="content")
    st.caption(lab_text.text("d2h_hazard", "fix"))
    p = r.get("priority") if isinstance(r.get("priority"), dict) else {}
    c = metric_row()
    c.metric("small result, high-priority stream", _us(p.get("high_us")), width="content")
    c.metric("small result, normal stream", _us(p.get("normal_us")), width="content")
    _error("The stream-priority measurement failed:", p.get("error"))
    if _recorded(r):
        st.caption(lab_text.text("d2h_hazard", "recorded"))
        st.caption(lab_text.text("d2h_hazard", lab_text.priority_key()))

"""The "Will graphs help my model?" page's panels: the knobs, the verdict, the variants table, the
accuracy of the predictions and the downloads."""
from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from pages.ui import tables
from pages.ui.common import metric_row, stacked_columns
from pages.ui.kept_state import keep, restore
from pages.ui.diagnose_timing import _band_help, _floor, _measured_help, _us, _window, band_odds, host_moved
from pages.ui.diagnose_url import drop_untaken, from_url, to_url, url_notices
from pages.ui.safe_text import esc
from runtime_core.diagnose.accuracy import TOLERANCE, point_targets
from runtime_core.diagnose.diagnosis import BAND_COVERAGE
from runtime_core.diagnose.judged_text import band_figures, error_figure
from runtime_core.diagnose.predict import SPEEDUP_THRESHOLD
from runtime_core.diagnose.measure_variants import LABELS, VARIANTS
from runtime_core.diagnose.records import DiagnoseRecording
from runtime_core.diagnose.verdict import because, branch_differs, headline, regime, speedup_shown
from runtime_core.engine.trace_export import spans_to_chrome_trace, spans_to_csv
from runtime_core.lesson.page_text import text as prose

MB = 1 << 20


@dataclass
class Setting:
    model: str
    dtype: str
    seq: int | None
    batch: int




def shape_words(n, shape_name: str) -> str:
    """A model's shape as it names it: "64 tokens", or "32×32 images" for an image side."""
    return f"{n}×{n} images" if shape_name == "image side" else f"{n} {shape_name}"


def shape_clause(rec: DiagnoseRecording, s: Setting) -> str:
    """", 64 tokens" (the shape in the words of the model's own knob, e.g. "KV-cache slots"), "" for
    a model without a shape knob; escaped."""
    return esc(plain_shape_clause(rec, s.model, s.seq))


def plain_shape_clause(rec: DiagnoseRecording, model: str, seq) -> str:
    """shape_clause as plain text, from a model and a shape (None: no shape knob)."""
    if seq is None:
        return ""
    name = rec.about(model).get("shape_name")
    return ", " + (shape_words(seq, name) if name else f"shape {seq}")


RESET = "_reset_from_"  # session key prefix: the value a knob held before it was reset


def _options_knob(kind, label: str, options: list, key: str, default, **kw):
    """A choice widget whose value is reset to `default` when it is no longer one of `options`,
    and restored from kept_state when the student comes back from another page."""
    first = default if default in options else options[0]
    restore(key, first, valid=lambda v: v in options)
    was = st.session_state.get(key)
    st.session_state[RESET + key] = None
    if was not in options:
        st.session_state[key] = first
        st.session_state[RESET + key] = was  # what the reader had chosen, for _knob_or_text to name
    value = kind(label, options, key=key, **kw)
    keep(key)
    return value


def _knob_or_text(container, kind: str, label: str, options: list, key: str, default, given: str,
                  **kw):
    """`_options_knob` of the widget `kind` in `container`; where the recording holds one option
    only, that option as text instead (a widget with a single choice does nothing). `given`: what
    the options depend on, for the line saying a choice is not recorded ("this model and dtype")."""
    if len(options) == 1:
        was = st.session_state.get(key)
        container.caption(label)
        container.markdown(f"**{esc(options[0])}** · the only one recorded")
        if was is not None and was != options[0]:
            container.caption(f"{label} {esc(was)} is not recorded for {given}")
        return options[0]
    value = _options_knob(getattr(container, kind), label, options, key, default, **kw)
    was = st.session_state.get(RESET + key)
    if was is not None:  # the choice moved under the reader: say so, beside the knob it moved
        container.caption(f"{label} {esc(was)} is not recorded for {given}: showing {esc(value)}")
    return value


def knobs(rec: DiagnoseRecording) -> Setting:
    """Model, dtype, shape and batch, each offering only what the recording holds for the others;
    the URL carries them (a reload or a shared link keeps the setting)."""
    asked = from_url({"dg_model": rec.models(), "dg_dtype": ("fp32", "bf16")})
    s = _knobs(rec)
    url_notices(asked, s.model, s.dtype)
    drop_untaken(asked, {"dg_seq": s.seq if rec.about(s.model).get("shape_name") else None, "dg_batch": s.batch})
    to_url(s.model, s.dtype, s.batch, s.seq)
    return s


def _knobs(rec: DiagnoseRecording) -> Setting:
    c1, c2, c3, c4 = st.columns([3, 2, 3, 4])
    models = rec.models()
    model = _options_knob(c1.selectbox, "model", models, "dg_model", models[0])
    about = rec.about(model).get("about", "")
    if about:
        c1.caption(esc(about, max_chars=160))
    pts = rec.settings(model)
    dtypes = sorted({p["dtype"] for p in pts}, key=["fp32", "bf16"].index)
    dtype = _options_knob(c2.radio, "dtype", dtypes, "dg_dtype", "fp32", horizontal=True)
    default_seq = rec.default_shape(model)
    seqs = sorted({p.get("seq") for p in pts if p["dtype"] == dtype}, key=lambda s: (s is None, s or 0))
    shape_name = rec.about(model).get("shape_name")
    if shape_name:
        seq = _knob_or_text(c3, "select_slider", esc(shape_name), seqs, "dg_seq", default_seq,
                            "this model and dtype",
                            help="the model's shape knob; shapes other than the default were recorded at batch 1")
    else:
        seq = seqs[0]
        c3.caption(f"{esc(model)} has no shape knob")
    batches = sorted({p["batch"] for p in pts if p["dtype"] == dtype and p.get("seq") == seq})
    given = f"this model, dtype and {esc(shape_words(seq, shape_name))}" if shape_name else "this model and dtype"
    batch = _knob_or_text(c4, "select_slider", "batch size", batches, "dg_batch", 1, given)
    return Setting(model, dtype, seq, batch)


def verdict(p: dict, source_caption: str) -> None:
    """The verdict first: the call, why, and the numbers that decide it (a capture that failed is
    a verdict too: torch's reason, the user's line, what to try)."""
    v = p["verdict"]
    if p.get("capturable") is False or v.get("capturable") is False:
        _cannot_capture(p, source_caption)
        return
    band = p.get("predicted_speedup_band")
    flat = bool(band) and band[1] == band[0]   # nothing varied (the simulator): no band to judge
    if band and band[1] <= band[0]:            # (lo > hi would be no band at all: not judged, not named)
        p = dict(p, predicted_speedup_band=None)
    # the code's words from the point's own numbers, so an older recording reads as a new one does
    split = (p.get("explanation") or {}).get("saving") or {}
    why = because(v["host_dispatch_us"], p["gpu_ops"], p["busy_us"], v["gpu_us"], v["graphs_help"],
                  split.get("host_dispatch_removed_us"),  # the split table's own number, where it has one
                  captured=_captured(p))
    title = headline(v["launch_bound"], p["predicted_graph_speedup"], _work_added(p))
    (st.success if v["graphs_help"] else st.warning)(f"### {esc(title)}\n{why}")
    st.caption(regime(v["launch_bound"], v["host_dispatch_us"], v["gpu_us"],  # the code's words, old points too
                      p["predicted_graph_speedup"]))
    st.caption(source_caption)
    _counts_row(p)
    c = metric_row()
    c.metric("GPU idle in eager", f"{100 * p['gpu_idle_share']:.0f}%", width="content")
    band, t = p.get("predicted_speedup_band"), point_targets(p)
    lo, hi, meas = (band_figures(band, p["measured_graph_speedup"], bool(t["band_holds"])) if band
                    else (None, None, f"{p['measured_graph_speedup']:.2f}"))
    digits = len(lo.partition(".")[2]) if band else 2  # the band's own decimals: 1.0146x inside 1.0134–1.0159x
    c.metric("predicted speedup", f"{speedup_shown(p['predicted_graph_speedup'], digits)}x", width="content",
             delta=f"band {lo}–{hi}x" if band else prose("diagnose", "no_band_flat") if flat else None,
             delta_color="off", delta_arrow="off", help=_band_help(p) if band else None)
    err = p["predicted_graph_speedup"] / p["measured_graph_speedup"] - 1
    off = error_figure(err, TOLERANCE, t["within"]).lstrip("+-")
    c.metric("measured speedup", f"{meas}x", width="content",
             delta=f"the prediction was {off} {'high' if err > 0 else 'low'}", delta_color="off", delta_arrow="off",
             help=_measured_help(p))
    st.caption(prose("diagnose", "ops_caption", ops=p["gpu_ops"], kernels=p["kernels"],
                     copies=p["gpu_ops"] - p["kernels"],
                     copies_noun="copy or memset" if p["gpu_ops"] - p["kernels"] == 1 else "copies and memsets"))
    judged = judgement(p)
    if judged:
        (st.warning if judged[0] else st.caption)(judged[1])
    moved = host_moved(p)
    if moved:
        st.info(moved)


def judgement(p: dict) -> tuple[bool, str] | None:
    """(missed, text): how this point's prediction did against the targets (accuracy.point_targets),
    in words: the verdict, the ±15% (judged only where the speedup measured 1.2x or more) and the
    band. None where nothing was measured."""
    meas = p.get("measured_graph_speedup")
    if meas is None or not p.get("predicted_graph_speedup"):
        return None
    pred, band, t = p["predicted_graph_speedup"], p.get("predicted_speedup_band"), point_targets(p)
    said = "graphs help" if p["verdict"]["graphs_help"] else "graphs won't help"
    parts = [prose("diagnose", "judge_verdict_" + ("right" if t["verdict_right"] else "wrong"), said=said,
                   pred=f"{speedup_shown(pred)}x", meas=f"{speedup_shown(meas)}x", threshold=f"{SPEEDUP_THRESHOLD:.1f}x")]
    if t["within"] is None:
        parts.append(prose("diagnose", "judge_not_eligible", threshold=f"{SPEEDUP_THRESHOLD:.1f}x",
                           tolerance=f"{TOLERANCE:.0%}"))
    else:
        parts.append(prose("diagnose", "judge_within_" + ("yes" if t["within"] else "no"),
                           err=error_figure(t["error"], TOLERANCE, t["within"]), tolerance=f"{TOLERANCE:.0%}"))
    missed = t["missed"]
    if t["band_holds"] is not None:
        lo, hi, shown = band_figures(band, meas, t["band_holds"])
        odds = band_odds(p)
        weak = odds is not None and odds < BAND_COVERAGE  # e.g. the zoo's: three passes' H, a coin toss
        kind = "" if not weak else "_one" if odds == 0 else "_weak"  # odds 0: one H, its spread unknown
        parts.append(prose("diagnose", "judge_band_" + ("holds" if t["band_holds"] else "misses") + kind,
                           meas=f"{shown}x", lo=lo, hi=f"{hi}x", odds=f"{odds:.0%}" if weak else ""))
        if weak:  # a miss such a band is expected to make half the time is no miss of a target
            missed = not t["verdict_right"] or t["within"] is False
    return missed, " ".join(parts)


def _captured(p: dict) -> tuple | None:
    """(Kc, Bc): the step as it would be captured, from the explanation's graph nodes and busy time
    (None where the point was not profiled as captured)."""
    ex = p.get("explanation") or {}
    nodes, busy = ex.get("graph_nodes"), ex.get("graph_busy_us")
    if not p.get("captured_profiled") or not tables.is_number(nodes) or not tables.is_number(busy):
        return None  # a file's junk is no captured step
    return nodes, busy


def _work_added(p: dict) -> float:
    """µs of GPU work the step runs as captured beyond what it runs eagerly (0 where not profiled)."""
    if not p.get("captured_profiled") or p.get("captured_busy_us") is None:
        return 0.0
    return float(p["captured_busy_us"]) - float(p["busy_us"])


def _counts_row(p: dict) -> None:
    """What the prediction was made from: the step's GPU operations, their busy time, H."""
    c = metric_row()
    c.metric("GPU operations per step", f"{p['gpu_ops']}", width="content",
             help=f"{p['kernels']} kernels; {p['driver_calls']} launch calls")
    c.metric("GPU busy / step", _us(p["busy_us"]), width="content",
             help=f"mean {p['kernel_mean_us']:.1f} µs per kernel, spread {p['kernel_p10_us']:.1f}–"
                  f"{p['kernel_p90_us']:.1f} µs (p10–p90)")
    rounds = p.get("host_rounds_us") or []
    passes = len(p.get("passes") or [None])
    how = "CPU time to enqueue one step, unprofiled"
    if len(rounds) > 1 and _floor(p):
        how += (f"; the lowest of {len(rounds)} rounds ({_us(min(rounds))}–{_us(max(rounds))}) spread over "
                f"{_window(p['timing']['host_window_s'])} before predicting: the host at its fastest")
    elif len(rounds) > 1:
        how += f"; the median of {len(rounds)} rounds ({_us(min(rounds))}–{_us(max(rounds))}) timed before predicting"
    if passes > 1:
        how += f"; the median of {passes} passes, each timed before that pass's steps"
    c.metric("host dispatch H / step", _us(p["host_dispatch_us"]), width="content", help=how)


def _cannot_capture(p: dict, source_caption: str) -> None:
    from runtime_core.diagnose.capture_failure import evidence_words, headline, known_advice
    v = p["verdict"]
    tries = known_advice(v.get("reason")) or v.get("what_to_try")  # today's advice for a known cause, old recordings too
    if not isinstance(tries, list):
        tries = []
    st.warning(f"### {esc(headline(v))}")  # a verdict, not an app error; the code's words (a recording's may be older)
    st.markdown(prose("diagnose", "cannot_capture", reason=esc(v.get("reason") or "", max_chars=400),
                      culprit=esc(v.get("culprit") or "not named by the error", max_chars=300),
                      evidence=esc(evidence_words(v.get("evidence")) or "nothing the profiler names", max_chars=300)))
    st.markdown(prose("diagnose", "cannot_capture_try") + "\n" +
                "\n".join(f"- {esc(t, max_chars=500)}" for t in tries))
    st.caption(regime(v["launch_bound"], v["host_dispatch_us"], v["gpu_us"], capturable=False))
    st.caption(source_caption)
    _counts_row(p)
    c = metric_row()
    c.metric("eager step (measured)", _us(p["eager_us"]), width="content")


def explanation(p: dict, simulated: bool = False, key: str = "dg_explain") -> None:
    """Why the number: the per-node graph cost used, the three biggest host consumers, the saving's
    split. `simulated`: the demo, whose device charges its parameters exactly and runs no framework.
    `key`: the container of its two tables (unique on the page; they stack up to STACK_MAX_WIDTH_PX)."""
    ex = p.get("explanation")
    if not ex:
        return
    if simulated:
        st.markdown(prose("diagnose", "explain_simulated", node_cost=f"{ex['node_cost_us']:.2f}",
                          gap=f"{_number(ex.get('stream_gap_us')):.2f}"))
        st.caption(prose("diagnose", "explain_no_host_simulated"))
        _saving_table(ex["saving"], p)
        return
    source = prose("diagnose", "explain_source_" + ("node_costs" if ex.get("node_cost_source") == "node_costs"
                                                     else "chain"))  # a recording's string is never a key
    n_sets, sets_us = _count(ex.get("memset_nodes")), _number(ex.get("memsets_us"))
    memsets = (prose("diagnose", "explain_memsets", n=n_sets, us=_us(sets_us),
                     memset_noun="memset node adds" if n_sets == 1 else "memset nodes add")
               if n_sets and sets_us >= 0.05 else "")
    st.markdown(prose("diagnose", "explain_intro", node_cost=f"{ex['node_cost_us']:.2f}", source=source,
                      spread=f"{ex['node_cost_spread_us']:.2f}", memsets=memsets))
    other = _timed_elsewhere(p.get("device_name"))
    if other:
        st.caption(other)
    gap = _number(ex.get("stream_gap_us"), -1.0)
    if gap >= 0:  # a point predicted before the eager gap was explained has none
        how = "explain_eager_" + ("closed" if ex.get("eager_op_by_op") is not True
                                  else "ops_launches" if ex.get("eager_ready_profiled") is True else "ops")
        gap_source = prose("diagnose", "explain_gap_" + ("node_costs" if ex.get("stream_gap_source") == "node_costs"
                                                          else "chain"))
        st.markdown(prose("diagnose", how, gap=f"{gap:.2f}", source=gap_source,
                          spread=f"{max(0.0, _number(ex.get('stream_gap_spread_us'))):.2f}"))
    rel = _number(ex.get("node_cost_rel_spread"))
    if rel > 0:  # a point predicted before long kernels had their share has none
        st.markdown(prose("diagnose", "explain_long", from_us=f"{_number(ex.get('node_cost_spread_us')) / rel:.1f}",
                          graph_rel=f"{rel:.1%}", stream_rel=f"{_number(ex.get('stream_gap_rel_spread')):.1%}"))
    if (cap := _captured(p)) and branch_differs(p["gpu_ops"], p["busy_us"], *cap):
        st.markdown(prose("diagnose", "explain_branch", captured_ops=ex["graph_nodes"],
                          captured_busy=_us(ex["graph_busy_us"]), ops=p["gpu_ops"], busy=_us(p["busy_us"])))
    c1, c2 = stacked_columns(2, key=f"{key}_tables")
    if not ex.get("top_host"):  # nothing to rank: the saving takes the first column, and a line says why
        c1, c2 = None, c1
        st.caption(prose("diagnose", "explain_no_host"))
    if c1 is not None:
        span = _number((p.get("profile") or {}).get("eager_span_us"))
        c1.caption(prose("diagnose", "explain_host" if span > 0 else "explain_host_no_span", h=_us(p["host_dispatch_us"])))
        with c1:
            tables.show([{"host operation": r["name"][:60], "calls": r["count"],
                          "µs as profiled": tables.num(r["total_us"]),
                          **({"share of the step": f"{r['total_us'] / span:.0%}",
                              "≈ µs of H": tables.num(r["total_us"] / span * p["host_dispatch_us"])} if span > 0 else {})}
                         for r in ex["top_host"]])
    sv = ex["saving"]
    with c2:
        _saving_table(sv, p)


def _timed_elsewhere(device) -> str:
    """Where the explanation's figures of our own kernels (the node-cost recording's and the
    launch-overhead killer's sweep) were timed, when that is not the point's own card; "" when
    they were, or the point names no card."""
    if not isinstance(device, str) or not device:
        return ""
    from runtime_core.lesson.figures import shipped_recordings
    from runtime_core.words import all_of
    recs = shipped_recordings()
    cards = list(dict.fromkeys(r.meta.device_name for r in (recs.get("node_costs"), recs.get("sweep"))
                               if r is not None and not r.meta.simulated))
    if not cards or cards == [device]:
        return ""
    return prose("diagnose", "explain_other_card", where=esc(all_of(cards)), device=esc(device))


def _saving_table(sv: dict, p: dict) -> None:
    """The predicted saving's parts (predict.saving_split): what a graph removes, what it adds.
    A recording split before the launch and the captured work were parts of their own shows its
    own three parts."""
    if "launch_added_us" not in sv:
        st.caption(prose("diagnose", "explain_saving_old", saving=_us(sv["saving_us"])))
        tables.show([{"part": "host dispatch removed", "µs": tables.num(sv["host_dispatch_removed_us"])},
                     {"part": "GPU gaps removed", "µs": tables.num(sv["gpu_gaps_removed_us"])},
                     {"part": "copy into the static input added", "µs": tables.num(-sv["copy_added_us"])},
                     {"part": "predicted saving per step", "µs": tables.num(sv["saving_us"])}])
        return
    eager = p["predicted_eager_us"]
    which = "explain_saving" if p["verdict"].get("launch_bound", True) else "explain_saving_gpu_bound"
    st.caption(prose("diagnose", which, saving=_us(sv["saving_us"]), eager=_us(eager),
                     gpu_own=_us(eager - sv["host_dispatch_removed_us"])))
    # one column of signed savings: a cost is a negative saving, and the parts add up to the last row
    tables.show([{"part": name, "µs saved per step (a cost counts as negative)": tables.num(us)}
                 for name, us in saving_rows(sv)])


def saving_rows(sv: dict) -> list:
    """(part, signed µs) rows of a split with the launch and captured work as parts of their own,
    the predicted saving last: the rows above it add up to it (a part under 0.05 µs is left out)."""
    rows = [("host time the GPU waited for, removed", sv["host_dispatch_removed_us"]),
            # a graph's node gaps can outlast the eager stream's (the simulator's stream has none)
            ("GPU gaps between kernels removed" if sv["gpu_gaps_removed_us"] >= 0 else
             "GPU gaps the graph's nodes add beyond eager's, a cost", sv["gpu_gaps_removed_us"]),
            ("the graph's launch, a cost", -sv["launch_added_us"]),
            ("copy into the static input, a cost", -sv["copy_added_us"])]
    if abs(sv.get("work_added_us", 0.0)) >= 0.05:  # any the table would show: else the rows would not add up
        rows.append(("GPU work the captured step adds, a cost" if sv["work_added_us"] > 0 else
                     "GPU work the captured step saves", -sv["work_added_us"]))
    rows.append(("predicted saving per step", sv["saving_us"]))
    return rows


RUN_A, RUN_B = "run A: µs / step (× eager A)", "run B: µs / step (× eager B)"


def variants_table(p: dict, simulated: bool = False) -> None:
    """Prediction beside measurement, for every way of running the step measured at this setting
    (`simulated`: the demo, which has only eager and our graph)."""
    pred = {"eager": p["predicted_eager_us"], "our_graph": p["predicted_graph_us"]}
    measured = {name: v for name in VARIANTS if (v := (p.get("variants") or {}).get(name)) is not None}
    # eager and our graph: the measurement the prediction is judged against (the headline's); the
    # torch variants were timed in a run of their own, beside an eager of that run
    judged = {"eager": (p["eager_us"], 1.0), "our_graph": (p["graph_us"], p["measured_graph_speedup"])}
    later = [name for name in measured if name not in judged]
    # Two narrow tables rather than one wide one: time per step, then what each way costs to set up.
    # Each measured column holds one run: run A (the diagnosis's eager and graph, the prediction's
    # judge), then run B (the later run that timed the torch variants beside eager and our graph).
    run_b = bool(later)
    eager_b = _us(measured["eager"]["us"]) if run_b and "eager" in measured else None
    # a time and its speedup share a cell, "529 (7.87x)": four columns fit a phone, six did not
    rows = []
    for name, v in measured.items():
        row = {"variant": LABELS[name], "predicted µs / step": _num(pred.get(name)),
               RUN_A: (f"{_num(judged[name][0])} ({judged[name][1]:.2f}x)" if name in judged else tables.DASH)}
        if run_b:
            row[RUN_B] = _num(v["us"]) + (f" ({v['speedup']:.2f}x)" if v.get("speedup") else "")
        rows.append(row)
    tables.show(rows)  # one eager baseline per column: the diagnosis's, and the later run's
    st.caption(prose("diagnose", "baselines", a=_us(p["eager_us"]), b=eager_b) if eager_b else
               prose("diagnose", "baseline", a=_us(p["eager_us"])))
    if eager_b:
        rows_label = "The last row was" if len(later) == 1 else f"The last {len(later)} rows were"
        st.caption(prose("diagnose", "later_rows", rows=rows_label, eager=eager_b))
    setup = [{"variant": LABELS[name],
              "capture or compile": tables.DASH if not v.get("setup_s") else tables.num(v["setup_s"], unit="s"),
              "reserved memory grew by": (tables.DASH if v.get("pool_bytes") is None
                                          else tables.num(v["pool_bytes"] / MB, unit="MiB"))}
             for name, v in measured.items() if v.get("setup_s") or v.get("pool_bytes")]
    if setup:
        st.caption(prose("diagnose", "setup_caption"))
        tables.show(setup)
    missing = [LABELS[n] for n in VARIANTS if n not in (p.get("variants") or {})]
    if missing:
        st.caption(prose("diagnose", "not_measured_simulated" if simulated else "not_measured",
                         missing="; ".join(missing)))


def note_figures(p: dict) -> None:
    """Note the figures of the zoo decoder at batch 1 (fp32) that other pages show too, under the
    diagnosis's harness (pages/ui/figure_log.py: the cross-page check compares them)."""
    from pages.ui import figure_log as log
    if (p["model"], p["batch"], p["dtype"]) != ("decoder", 1, "fp32"):
        return
    log.note(log.DIAGNOSIS.at(log.BENCH_QUANTITY["eager"]), p["eager_us"] / 1000, "page 7 verdict")
    log.note(log.DIAGNOSIS.at("GPU operations per step"), p["gpu_ops"], "page 7 verdict")
    for name, quantity in (("compile", "torch.compile speedup over eager (×)"),
                           ("reduce_overhead", "reduce-overhead speedup over eager (×)")):
        v = (p.get("variants") or {}).get(name)
        if v:
            log.note(log.DIAGNOSIS.at(quantity), v["speedup"], "page 7 variants table")


def accuracy_panel(rec: DiagnoseRecording, simulated: bool = False) -> None:
    """Prediction against measurement over the whole recording, and every miss with its reason.
    `simulated`: the simulator's demo, whose device charges the model's own parameters: its score
    is said to be no test of the prediction."""
    acc = rec.summary().get("accuracy")
    if not acc:
        return
    if simulated:
        st.caption(prose("diagnose", "accuracy_simulated"))
    cross = acc["crossovers"]
    share = "—" if acc["share"] is None else f"{acc['share']:.0%}"
    # the recording's summary is not typed by its schema: its counts are shown as text
    st.markdown(prose("diagnose", "accuracy", tolerance=f"{TOLERANCE:.0%}", within=esc(acc["within"]),
                     eligible=esc(acc["eligible"]), share=share, target=f"{acc['target_share']:.0%}",
                     cross_within=sum(c["within_one_step"] for c in cross.values()), cross_all=len(cross)))
    if acc["misses"]:
        with st.expander(f"Misses, and why ({len(acc['misses'])})"):
            for m in acc["misses"]:
                setting = f"{m['model']}, {m['dtype']}, batch {m['batch']}" + plain_shape_clause(rec, m["model"], m.get("seq"))
                st.markdown(f"- **{esc(setting)}**: predicted {m['predicted_speedup']:.2f}x, measured "
                            f"{m['measured_speedup']:.2f}x ({error_figure(m['predicted_speedup'] / m['measured_speedup'] - 1, TOLERANCE, False).lstrip('+-')} off). {esc(m['reason'], max_chars=400)}")
    else:
        st.caption(f"No setting missed by more than ±{TOLERANCE:.0%}.")


SWEEP_COLUMNS = ["model", "dtype", "batch", "seq", "kernels", "gpu_ops", "busy_us", "host_dispatch_us",
                 "predicted_eager_us", "eager_us", "predicted_graph_us", "graph_us", "predicted_graph_speedup",
                 "measured_graph_speedup", "graph_pool_bytes", "graph_capture_s"]


def sweep_csv(points: list[dict]) -> str:
    """The model's sweep, one row a point, in SWEEP_COLUMNS (a missing field is an empty cell)."""
    buf = io.StringIO()
    pd.DataFrame([{c: p.get(c) for c in SWEEP_COLUMNS} for p in points], columns=SWEEP_COLUMNS).to_csv(buf, index=False)
    return buf.getvalue()


def downloads(points: list[dict], spans: list, label: str) -> None:
    """The model's sweep as CSV, and the shown step as a Chrome trace (open it in Perfetto). Each
    file is made when its button is pressed, and a press does not rerun the page."""
    row = st.container(horizontal=True)
    row.download_button("sweep as CSV", lambda: sweep_csv(points), file_name="diagnose_sweep.csv", mime="text/csv",
                       key="dg_dl_csv", on_click="ignore")
    row.download_button("timeline as CSV", lambda: spans_to_csv(spans), file_name="diagnose_timeline.csv",
                       mime="text/csv", key="dg_dl_tl", on_click="ignore")
    row.download_button("Perfetto trace of this step", lambda: spans_to_chrome_trace(spans, label),
                       file_name="diagnose_trace.json", mime="application/json", key="dg_dl_trace",
                       on_click="ignore")


def _number(x, default: float = 0.0) -> float:
    """A recording's number, or `default` where it holds anything else (a page never formats a string)."""
    return float(x) if tables.is_number(x) else default


def _count(x) -> int:
    return int(x) if isinstance(x, int) and not isinstance(x, bool) and x >= 0 else 0


def _num(x) -> str:
    return tables.num(x)

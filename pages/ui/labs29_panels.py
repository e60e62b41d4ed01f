"""The panels of issue 29's labs (trees_lifecycle on page 4; compile_cache on page 5;
alloc_snapshot, alloc_conf and malloc_async on page 3): each draws a lab result as the lab
returned it (live on a GPU, else from the shipped recording). A lab whose recording is owed shows
that, and the commands that record it (lab_panels.owed_notice): never a number. Nothing is
computed here but the charts' geometry."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from pages.ui import alloc_charts, charts, lab_panels, palette as P, tables
from pages.ui.common import source_badge
from pages.ui.safe_text import esc, log_text
from runtime_core.allocator import fmt_bytes
from runtime_core.allocator.torch_expandable import per_order
from runtime_core.labs import discover
from runtime_core.lesson.page_text import text as prose

OURS = ("trees_lifecycle", "compile_cache", "alloc_snapshot", "alloc_conf", "malloc_async")


def page_panels(page: str, live: bool, key: str) -> None:
    """Every lab of OURS that declares `page`: a title, what it shows, then its result (from the
    recording at once without a GPU; a run button on a GPU)."""
    for name in OURS:
        info = discover().get(name)
        if info is None or info.page != page:
            continue
        st.divider()
        st.subheader(prose("labs29", f"{name}_title", markdown=False))
        st.caption(prose("labs29", f"{name}_intro"))
        with st.container(border=True):
            if live:
                lab_panels.lab_section(name, live, key)
            else:
                lab_panels.show(lab_panels.run(name, False))


def _p(key: str, **fields) -> str:
    """A text of lessons/page_text.json's labs29 section with its fields filled, each escaped: a
    field comes from a recording (a number, or whatever a file holds instead), never Markdown."""
    return prose("labs29", key, **{k: esc(str(v), max_chars=400) for k, v in fields.items()})


def _code(text: str | None) -> None:
    if text:
        st.code(log_text(text), language=None, wrap_lines=True)


def _errors(r: dict) -> None:
    for line in r.get("errors") or []:
        st.error(esc(line, max_chars=500))


def _ms(v) -> str:
    return tables.num(v, unit="ms")


def _s(v) -> str:
    return tables.num(v, unit="s")


# ---- trees_lifecycle -------------------------------------------------------------------------
BEHAVIOUR = {"raised": "raised an error", "changed": "changed, no error", "kept": "kept its values"}


CALL_EVENTS = (("warmup", "warm-up"), ("record", "recorded"), ("replay", "replayed"), ("skips", "skipped"))


def what_ran(c: dict) -> str:
    """What cudagraph trees did on one call, from its counters: "recorded", "warm-up + replayed",
    "replayed ×2"; "eager" when none moved (a call past a limit, or one that ran no graph)."""
    done = [label + (f" ×{c[key]}" if isinstance(c.get(key), int) and c[key] > 1 else "")
            for key, label in CALL_EVENTS if c.get(key)]
    return " + ".join(done) or "eager"


def _call_table(rows: list[dict]) -> None:
    """One row per call: what it did (one column, not one per counter: the panel sits in the
    page's narrow live column), whether Dynamo compiled, and its wall time."""
    tables.show([{"call": c["call"], "cudagraph trees": what_ran(c), "Dynamo compiled": "yes" if c.get("compiles") else "no",
                  "wall": _ms(c["ms"])} for c in rows])


def trees_lifecycle(r: dict) -> None:
    pc = r.get("per_call") or {}
    if pc.get("rows"):
        st.markdown(f"**{prose('labs29', 'trees_per_call', markdown=False)}**")
        _call_table(pc["rows"])
    ow = {k: v for k, v in (r.get("overwritten") or {}).items() if isinstance(v, dict)}
    if ow:
        st.markdown(f"**{prose('labs29', 'trees_overwritten', markdown=False)}**")
        labels = {"kept_across_calls": "keep call 1's output, call again, read it",
                  "clone": "clone it before the next call",
                  "mark_once_two_calls": "mark_step_begin() once, two calls, read the first",
                  "mark_before_each_call": "mark_step_begin() before each call; read call 1's output right after the next call"}
        tables.show([{"what": labels.get(k, k),
                      "the kept output": BEHAVIOUR.get(v.get("behaviour"), v.get("error", "—"))} for k, v in ow.items()])
        _code(next((v.get("error") for v in ow.values() if v.get("behaviour") == "raised"), None))
        if (ow.get("mark_before_each_call") or {}).get("behaviour") == "kept":
            st.caption(prose("labs29", "trees_overwritten_marked"))
    rr = r.get("rerecord") or {}
    if rr.get("rows"):
        st.markdown(f"**{prose('labs29', 'trees_rerecord', markdown=False)}**")
        _call_table(rr["rows"])
        st.caption(_p("trees_rerecord_caption", limit=rr["limit"], default=rr["torch_default_limit"],
                         records=rr["records_for_new_weights"], graphless=rr["graphless_calls_for_new_weights"],
                         fresh=rr["records_for_fresh_inputs"], static=tables.num(rr.get("records_for_static_inputs")),
                         compiles=tables.num(rr.get("compiles_for_new_weights"))))
        moved = sum(row["call"].startswith("new weight") for row in rr["rows"])
        if moved > 1 and rr["records_for_new_weights"] == 1 and not rr["graphless_calls_for_new_weights"]:
            st.caption(_p("trees_rerecord_turns"))
        marked = [row for row in rr["rows"] if row["call"].startswith("new static input")]
        # a marked input at a new address that replayed with eager's answer and no compile was copied in
        if (marked and rr.get("records_for_static_inputs") == 0 and all(row["replay"] for row in marked)
                and (rr.get("max_abs_err") is not None and rr["max_abs_err"] < 1e-3)):
            st.caption(_p("trees_marked_late", compiles=sum(row["compiles"] for row in marked),
                          err=f"{rr['max_abs_err']:.1g}"))
        for line in rr.get("logged") or []:
            _code(line)
    sd = r.get("skip_dynamic") or {}
    if sd.get("default") and sd.get("skip"):
        st.markdown(f"**{prose('labs29', 'trees_skip_dynamic', markdown=False)}**")
        both = (sd["default"], sd["skip"])
        st.caption(prose("labs29", "trees_skip_dynamic_caption"))
        tables.compare("dynamic=True, five sizes", ["setting off", "setting on"],
                       [("graphs recorded", [b["records"] for b in both]), ("replays", [b["replays"] for b in both]),
                        ("skips counted", [b["skips"] for b in both])])
        if sd["skip"]["records"] == sd["skip"]["replays"] == sd["skip"]["skips"] == 0:
            st.caption(_p("trees_skip_uncounted"))
        for line in sd["skip"].get("logged") or []:
            _code(line)
    ma = r.get("max_autotune") or {}
    if ma.get("mode_options"):
        st.markdown(f"**{prose('labs29', 'trees_max_autotune', markdown=False)}**")
        tables.show([{"mode": m, "triton.cudagraphs": o.get("triton.cudagraphs", False),
                      "max_autotune": o.get("max_autotune", False)} for m, o in ma["mode_options"].items()])
        if ma.get("rows"):
            st.caption(_p("trees_max_autotune_caption", records=ma["records"], replays=ma["replays"],
                             calls=len(ma["rows"])))
    for point in ("per_call", "overwritten", "rerecord", "skip_dynamic", "max_autotune"):
        if isinstance(r.get(point), dict) and r[point].get("error") and not r.get("errors"):
            st.error(esc(f"{point}: {r[point]['error']}", max_chars=500))
    _errors(r)


# ---- compile_cache ---------------------------------------------------------------------------
def _counter(run: dict, name: str):
    return (run.get("counters") or {}).get(name)


def compile_cache(r: dict, folded: bool = False) -> None:
    """`folded`: drawn inside an expander already (the GPU's run under the CPU's), so nothing in it
    folds again (Streamlit refuses an expander in an expander)."""
    a, b = r.get("without_artifacts") or {}, r.get("with_artifacts") or {}
    st.markdown(f"**{prose('labs29', 'cc_cold_start', markdown=False)}**")
    rows = [("import torch", "import_torch_s", _s), ("load_cache_artifacts()", "load_artifacts_s", _s),
            ("first compiled call", "first_call_s", _s), ("second call", "second_call_s", _s),
            ("save_cache_artifacts()", "save_artifacts_s", _s),
            ("artifacts blob", "artifacts_bytes", lambda v: fmt_bytes(v) if v else tables.DASH),
            ("whole child process", "child_wall_s", _s)]
    q = [(label, [fmt(x.get(key)) for x in (a, b)]) for label, key, fmt in rows if key in a or key in b]
    q += [(f"counter {n}", [_counter(x, n) for x in (a, b)])
          for n in ("fxgraph_cache_hit", "fxgraph_cache_miss", "autograd_cache_hit", "autograd_cache_miss")]
    tables.compare("fresh process, empty cache dir", ["without artifacts", "artifacts loaded first"], q)
    stages = sorted(set(a.get("stages") or {}) | set(b.get("stages") or {}),
                    key=lambda n: -((a.get("stages") or {}).get(n) or 0))[:10]
    if stages:
        title = "Each compile stage's seconds (torch's own timers, inclusive)"
        with st.container() if folded else st.expander(title):
            if folded:
                st.caption(title)
            tables.show([{"timer": n, "without artifacts": _s((a.get("stages") or {}).get(n)),
                          "artifacts loaded": _s((b.get("stages") or {}).get(n))} for n in stages])
    loaded = ", ".join(f"{k} {v}" for k, v in (b.get("loaded_artifacts") or {}).items())
    st.caption(_p("cc_cold_caption", loaded=loaded or "none"))
    x, y = a.get("second_call_s"), b.get("second_call_s")
    if x and y and max(x, y) / min(x, y) >= 2:  # a gap a student reads as the artifacts' doing
        st.caption(_p("cc_second_call_gap", ratio=f"{max(x, y) / min(x, y):.0f}",
                      slower="without artifacts" if x > y else "with the artifacts loaded"))
    rc = r.get("recompile") or {}
    if rc.get("calls"):
        st.markdown(f"**{prose('labs29', 'cc_recompile', markdown=False)}**")
        tables.show([{"k": c["k"], "compiled": c["compiled"], "right answer": c["correct"],
                      "torch logged": "the limit warning (below)" if c["logged"] else tables.DASH}
                     for c in rc["calls"]])
        _code(next((c["logged"] for c in rc["calls"] if c["logged"]), None))
        fail = rc.get("fail_on_limit") or {}
        st.caption(_p("cc_recompile_caption", setting=rc["setting"], limit=rc["limit"],
                         default=rc["torch_default"], compiled=rc["compiled_calls"], eager=rc["eager_after_limit"],
                         fail=f"{fail.get('error_type')}: {fail.get('error')}" if fail.get("raised")
                         else "no error"))
    pk = r.get("package") or {}
    if pk.get("metadata") is not None and "error" not in pk:
        st.markdown(f"**{prose('labs29', 'cc_package', markdown=False)}**")
        _package_table(pk)
    cv = r.get("cross_version")
    if cv:
        st.markdown(f"**{prose('labs29', 'cc_cross', markdown=False)}**")
        built = cv.get("built_with") or {}
        facts = {"package": cv.get("package"), "built by torch": built.get("torch_version"),
                 "loaded by torch": r.get("torch_version"), "loaded": cv.get("loaded"),
                 "output matches": cv.get("output_matches"),
                 "error": cv.get("runner_error") or cv.get("error") or tables.DASH}
        tables.show([{"": k, "this run": v} for k, v in facts.items()])   # one row per fact: it fits a phone
    _errors(r)
    gpu = r.get("gpu")
    if gpu:  # folded, so that the verdict drawn under this panel reads as this run's, not the GPU's
        with st.expander(prose("labs29", "cc_gpu", markdown=False)):
            if gpu.get("owed_recording"):
                lab_panels.owed_notice(gpu)
            else:
                source_badge("recorded", gpu["device_name"])
                compile_cache({k: v for k, v in gpu.items() if k != "gpu"}, folded=True)


def _package_table(pk: dict) -> None:
    meta = pk.get("metadata") or {}
    so = pk.get("so") or {}
    rows = [{"what ties it": k, "value": v if v != "" else "(empty)"} for k, v in meta.items()]
    rows += [{"what ties it": "archive_version / .data/version",
              "value": f"{pk.get('archive_version')} / {pk.get('data_version')}"},
             {"what ties it": "the .so needs", "value": ", ".join(so.get("needed") or []) or tables.DASH},
             {"what ties it": "aoti_torch_* shim functions it calls in libtorch", "value": so.get("aoti_shim_symbols")}]
    tables.show(rows)
    st.caption(_p("cc_package_caption", torch=pk.get("torch_version", "?"),
                     size=fmt_bytes(pk.get("package_bytes") or 0)))


# ---- alloc_snapshot --------------------------------------------------------------------------
def lifetimes_figure(r: dict, title: str) -> go.Figure:
    """Each allocation as a bar from the event that made it to the event that freed it, at its
    address (segments laid end to end, in address order), as memory_viz draws a snapshot."""
    segs = sorted(r.get("segments") or [], key=lambda s: s["address"])
    starts, base = [], 0
    for s in segs:
        starts.append((s["address"], s["bytes"], base))
        base += s["bytes"]

    def where(addr: int):
        for a, n, b in starts:
            if a <= addr < a + n:
                return b + addr - a
        return None
    last = len(r.get("events") or [])
    unit, scale = alloc_charts.byte_unit(max(base, 1))
    bars = [(iv, where(iv["addr"])) for iv in r.get("intervals") or []]
    bars = [(iv, y) for iv, y in bars if y is not None]
    fig = go.Figure()
    for live, (colour, hatch), name in ((False, (P.BLUE, ""), "freed during the step"),
                                        (True, (P.VERMILLION, "/"), "still allocated at the end")):
        mine = [(iv, y) for iv, y in bars if (iv["end"] is None) == live]
        fig.add_trace(go.Bar(
            orientation="h", name=name, y=[(y + iv["bytes"] / 2) / scale for iv, y in mine],
            width=[iv["bytes"] / scale for iv, _ in mine], base=[iv["start"] for iv, _ in mine],
            x=[(last if iv["end"] is None else iv["end"]) - iv["start"] for iv, _ in mine],
            marker=P.hatched(colour, hatch, line=dict(color="white", width=0.5)),
            customdata=[[iv["bytes"]] for iv, _ in mine], hovertemplate="%{customdata[0]:,} B<extra></extra>"))
    for _, _, b in starts[1:]:
        fig.add_hline(y=b / scale, line=dict(color=P.GREY, dash="dot", width=1))
    fig.update_layout(title=title, height=360, barmode="overlay", margin=dict(l=10, r=10, t=50, b=10))
    P.legend_below(fig)
    fig.update_xaxes(title="allocator event #", automargin=True)
    # the whole address range and a little room above it: the top block drawn whole, not against the edge
    fig.update_yaxes(title=f"address within the segments ({unit})", automargin=True, range=[0, 1.04 * base / scale])
    return fig


def alloc_snapshot(r: dict) -> None:
    sfx = f"_{r['source']}"
    st.caption(_p("snap_caption", model=r.get("model", ""),
                     counts=", ".join(f"{k} {v}" for k, v in (r.get("counts") or {}).items() if v)))
    if r.get("intervals"):
        charts.show(lifetimes_figure(r, "PyTorch's snapshot: each block's lifetime at its address"),
                    key=f"snap_lifetimes{sfx}")
    if r.get("over_time"):
        charts.show(alloc_charts.memory_over_time(r["over_time"], "PyTorch's snapshot: allocated vs reserved",
                                                  time_axis="allocator event #"), key=f"snap_mem{sfx}")
    if r.get("block_rows"):
        charts.show(alloc_charts.block_map(r["block_rows"], "PyTorch's segments at the end of the step"),
                    key=f"snap_torch_map{sfx}")
        for note in alloc_charts.scale_notes(r["block_rows"], []):  # blocks drawn wider than they are
            st.caption(note)
    ours = r.get("our_pool") or {}
    if ours.get("block_rows_end"):
        charts.show(alloc_charts.block_map(ours["block_rows_end"], "Our pool, the same allocations replayed: "
                                           "its segments at the end"), key=f"snap_our_map{sfx}")
        for note in alloc_charts.scale_notes(ours["block_rows_end"], []):
            st.caption(note)
        st.caption(_p("snap_ours", reserved=fmt_bytes(ours.get("reserved_peak_bytes") or 0),
                         segments=ours.get("segments"),
                         torch_reserved=fmt_bytes(max((s[2] for s in r.get("over_time") or []), default=0)),
                         torch_segments=len(r.get("segments") or [])))


# ---- alloc_conf ------------------------------------------------------------------------------
CONF_SHORT = {"max_split_size_mb": "max split", "garbage_collection_threshold": "gc threshold",
              "expandable_segments": "expandable"}


def conf_label(conf: str | None) -> str:
    """A column's short name for a PYTORCH_CUDA_ALLOC_CONF value (the full values go in the
    caption: five columns of them do not fit a phone's width)."""
    if not conf:
        return "default"
    key = conf.split(":", 1)[0].strip()
    return CONF_SHORT.get(key, key)


def alloc_conf(r: dict) -> None:
    settings = r.get("settings") or {}
    names = list(settings)
    for order, label in (("fragmenting", "fill 4 x 2 GiB, free all, then 4 x 1.5 GiB, then ask for 1 GiB"),
                         ("growing", "a batch that grows, each freed before the next")):
        runs = [per_order(settings[n]).get(order) or {} for n in names]  # each order's own cudaMallocs
        st.markdown(f"**{esc(label)}**")
        q = [("peak reserved", [fmt_bytes(x.get("reserved_peak_bytes", 0)) for x in runs]),
             ("free (cached)", [fmt_bytes(x.get("free_bytes", 0)) for x in runs]),
             ("largest free", [fmt_bytes(x.get("largest_free_block_bytes", 0)) for x in runs]),
             ("fragmen­tation", [tables.num(x.get("fragmentation"), digits=2) for x in runs]),  # soft hyphen: fits a phone
             ("segments", [x.get("num_driver_mallocs") for x in runs])]
        if order == "fragmenting":
            q.append(("1 GiB ask", ["OOM" if x.get("request_oom") else ("fits" if x else tables.DASH)
                                            for x in runs]))
        tables.compare("setting", [conf_label(settings[n].get("alloc_conf")) for n in names], q)
    st.caption(prose("labs29", "alloc_conf_columns", markdown=False) + " "
               + ", ".join(esc(settings[n].get("alloc_conf") or "(unset)") for n in names) + ".")
    oom = next((settings[n]["fragmenting"].get("oom_message") for n in names
                if (settings[n].get("fragmenting") or {}).get("oom_message")), None)
    if oom:
        st.caption(prose("labs29", "alloc_conf_oom"))
    _code(oom)
    _errors(r)


# ---- malloc_async ----------------------------------------------------------------------------
def malloc_async(r: dict) -> None:
    b = r.get("backends") or {}
    names = list(b)
    runs = [b[n] for n in names]
    sizes = sorted({k for x in runs for k in (x.get("alloc_free_us") or {})}, key=lambda k: ("KiB" not in k, k))
    q = [("allocator backend", [x.get("allocator_backend") for x in runs])]
    q += [(f"µs per {k} empty + del", [(x.get("alloc_free_us") or {}).get(k) for x in runs]) for k in sizes]
    mem = [x.get("memory") or {} for x in runs]
    q += [("memory_reserved() after", [fmt_bytes(m["reserved_bytes"]) if "reserved_bytes" in m else tables.DASH
                                        for m in mem]),
          ("driver: used at peak", [fmt_bytes(m.get("driver_used_peak_bytes", 0)) for m in mem]),
          ("driver: used after the steps", [fmt_bytes(m.get("driver_used_after_bytes", 0)) for m in mem])]
    g = [x.get("graph") or {} for x in runs]
    q += [("graph capture of the step", ["captured" if y.get("captured") else ("failed" if y else tables.DASH)
                                          for y in g]),
          ("replay matches eager", [y.get("matches_eager") for y in g]),
          ("µs per replay", [y.get("replay_us") for y in g])]
    tables.compare("per backend (fresh process each)", names, q)
    for n, y in zip(names, g):
        if y.get("error"):
            st.caption(f"{esc(n)}: the capture raised")
            _code(y["error"])
    st.caption(prose("labs29", "async_caption"))
    _errors(r)

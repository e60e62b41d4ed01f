"""The AOT page's live panels: cold/warm/AOT-load table with its compile stages, the serving loop
(its guards are the packages'), the loop over the real packages, and the decoder numbers."""
from __future__ import annotations

import streamlit as st

from pages.ui import figure_log, tables as ui_tables
from pages.ui.common import citation_caption, metric_row, recordings_of, source_badge
from pages.ui.kept_state import keep, restore
from pages.ui.safe_text import esc, esc_typed, md
from runtime_core.aot import coldwarm, prebuild, serving_measure, serving_plan, tables
from runtime_core.aot.paths import cache_root, clear_cache, shown_root
from runtime_core.aot.serving import MISS_POLICIES, RequestRejected, ServingLoop, jit_compile_fn
from runtime_core.engine.fair_lock import ordinal
from runtime_core.errors import UsageError
from runtime_core.lesson.page_text import text as prose
from runtime_core.lesson.prediction import read_typed
from runtime_core.recordings import store


def coldwarm_panel(device: str) -> None:
    """The cold vs warm vs AOT-load table, a measure button (child processes) and clear cache.

    Measurements and cache clears from every session queue up, first come first served
    (runtime_core/aot/queue.py): a student who presses while another measures sees their place
    in line until their turn comes, and "clear the AOT cache" waits for the measurement in progress."""
    st.subheader("Cold start, warm start, AOT load")
    if _cache_refused():
        if device != "cuda":
            recorded_gpu_panel("aot", "aot", "The same steps, recorded on a GPU", _coldwarm_tables, AOT_RECORD_COMMAND)
        return
    left, right = st.columns(2)
    if left.button("measure the three starts", key="aot_measure", help=prose("aot", "measure_help", markdown=False)):
        _measure(device)
    # a popover asks first: the cache is the server's, so one press rebuilds it for the whole class
    with right.popover("clear the AOT cache"):
        st.caption(prose("aot", "clear_confirm", root=shown_root()))
        confirmed = st.button("clear it for everyone", key="aot_clear", type="primary",
                              help=prose("aot", "clear_help", markdown=False, root=shown_root()))
    if confirmed:
        _clear()
    res = coldwarm.cached_results(device)
    if res is None:
        st.info(prose("aot", "not_measured"))
    else:
        where = _where(res)
        # CPU numbers are real measurements, but not the GPU that "live" promises
        source_badge("live" if device == "cuda" else "cpu", where, saved=True)
        _coldwarm_tables(res)
    if device != "cuda":
        recorded_gpu_panel("aot", "aot", "The same steps, recorded on a GPU", _coldwarm_tables, AOT_RECORD_COMMAND)


AOT_RECORD_COMMAND = "python -m runtime_core aot --device cuda --json --record lessons/recordings/aot_h200.json"
SERVING_RECORD_COMMAND = ("python -m runtime_core aot serving --device cuda --json "
                          "--record lessons/recordings/serving_h200.json")


def _cache_refused() -> bool:
    """True, after a one-line notice, when the AOT cache folder cannot be used (a bad
    RUNTIME_CORE_AOT_CACHE): nothing is measured, built or cleared then."""
    try:
        cache_root()
        return False
    except UsageError as e:
        st.warning("Live AOT measuring is off: " + esc(e, max_chars=400), icon=":material/block:")
        return True


def _where(res: dict) -> str:
    """Where and when a saved result was measured, for its source badge."""
    return f"{res['device_name']} · torch {res['torch_version']} · measured {res['measured_at'][:16].replace('T', ' ')} UTC"


def recorded_gpu_panel(kind: str, key: str, title: str, draw, command: str) -> None:
    """On a machine without a GPU: the shipped GPU recording of this panel (`kind` recording,
    its `key` dict) drawn by `draw`, or the command that records one."""
    found, _ = store.scan(kind)
    measured_on_gpu = [r for r in found if isinstance(r.data.get(key), dict) and r.data[key].get("device") == "cuda"]
    rec = max(measured_on_gpu, key=store.rank, default=None)
    res = rec.data[key] if rec is not None else None
    with st.expander(title, expanded=False):
        if not isinstance(res, dict):
            st.caption("No GPU recording of this panel ships yet. On a machine with CUDA: `" + command + "`.")
            return
        source_badge("recorded", rec.label())
        draw(res)


def _coldwarm_tables(res: dict) -> None:
    ui_tables.show(tables.coldwarm_rows(res))
    st.markdown(md("**Outputs against eager.** {line}", line=tables.outputs_line(res)))
    for problem in _loader_note_then_problems(res, tables.coldwarm_problems(res)):  # a child's error line
        st.error(esc(problem, max_chars=600))
    compile_stages_panel(res)


def compile_stages_panel(res: dict) -> None:
    """Where the cold and the warm first call spent their time, and what the caches counted."""
    st.markdown("**Cold vs warm, stage by stage**")
    ui_tables.show(tables.compile_stage_rows(res))
    st.caption(prose("aot", "stage_tree"))
    for line in tables.compile_stage_problems(res):  # measured seconds that contradict the nesting
        st.warning(esc(line, max_chars=400))
    ui_tables.show(tables.cache_counter_rows(res))
    st.caption(prose("aot", "cold_warm"))


def _waiting_line(box):
    """An on_wait callback that keeps one line of `box` (a placeholder) saying where we are."""
    seen = {}

    def on_wait(w) -> None:
        seen["first"] = seen.get("first") or w
        box.info(w.describe(), icon=":material/hourglass_top:")
    return on_wait, seen


def _measure(device: str) -> None:
    _queued_run("Measuring in child processes…", lambda **kw: coldwarm.measure(device, **kw))


def _queued_run(title: str, run) -> None:
    """Run `run(progress=..., on_wait=...)` (a measurement that queues for the AOT cache) inside
    a status box: where we stand in line, then each step as it starts."""
    with st.status(title, expanded=True) as status:
        line = st.empty()
        on_wait, seen = _waiting_line(line)

        def progress(_name: str, label: str) -> None:
            w = seen.get("first")
            if w and not seen.get("said"):
                seen["said"] = True
                line.caption("Your turn came: you waited " + (
                    "for another process" if w.other_process else f"as {ordinal(w.position)} in line") + ".")
            status.update(label=label)
            st.write(f"… {label}")
        try:
            run(progress=progress, on_wait=on_wait)
        except UsageError as e:
            status.update(label="Not measured", state="error")
            st.error(esc(e, max_chars=400))
            return
        status.update(label=f"Measured (saved under {shown_root()})", state="complete", expanded=False)


def _clear() -> None:
    with st.status(f"Clearing {shown_root()}…", expanded=True) as status:
        line = st.empty()
        on_wait, _ = _waiting_line(line)
        line.caption("Clearing waits for a measurement in progress (anyone's) to finish first.")
        try:
            freed = clear_cache(on_wait=on_wait)
        except UsageError as e:
            line.empty()
            status.update(label="Nothing cleared", state="error")
            st.warning(esc(e, max_chars=400))
            return
        line.empty()
        status.update(label=f"Cleared {shown_root()} ({freed / 1e6:.1f} MB).", state="complete", expanded=False)


def _loop() -> ServingLoop:
    if "aot_serving_loop" not in st.session_state:
        from runtime_core.aot.models import make_mlp
        model = make_mlp()
        stand_ins = {b: model for b in serving_plan.SERVING_PLAN.packages()}
        st.session_state.aot_serving_loop = ServingLoop(
            serving_plan.loop_artifacts(serving_plan.SERVING_PLAN, stand_ins), "pad", jit_compile_fn(model, "eager"))
        st.session_state.aot_last = None
    return st.session_state.aot_serving_loop


BATCH_MAX = 256  # the serving loop's largest request (its ranged package and the pad target cover it)


def _batch_ok(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= BATCH_MAX


def _take_batch() -> None:
    """The typed batch becomes the one the button sends when it is a whole number from 1 to
    BATCH_MAX, read as the checkpoint reads a prediction (prediction.read_typed: digits, 1e2, never
    a comma, which a decimal comma would make "2,0" mean 2); anything else is refused with a line
    saying so, and the box goes back to the batch it held."""
    typed = str(st.session_state.get("aot_batch") or "").strip()
    value = read_typed(typed)[0]
    if value is not None and value == int(value) and _batch_ok(int(value)):
        st.session_state.aot_batch_ok = int(value)
        st.session_state.aot_batch = str(int(value))
        st.session_state.pop("aot_batch_msg", None)
        return
    kept = st.session_state.get("aot_batch_ok", 5)
    st.session_state.aot_batch_msg = prose("aot", "batch_refused", typed=f"“{esc_typed(typed, max_chars=40)}”" if typed
                                           else "an empty box", most=BATCH_MAX, kept=kept)
    st.session_state.aot_batch = str(kept)
    st.session_state.aot_batch_just_refused = True  # this run's send (a click that left the box) sends nothing


def _drop_refusal() -> None:
    """on_click of the send button: the box's refusal line goes (it named a batch not sent). A
    click that left a box it refused in the same run (typed, never Entered) sends nothing: the
    refusal stays, and says so."""
    if st.session_state.pop("aot_batch_just_refused", False):
        st.session_state.aot_skip_send = True
        st.session_state.aot_batch_msg += " " + prose("aot", "batch_refused_not_sent", kept=st.session_state.aot_batch)
        return
    st.session_state.pop("aot_batch_msg", None)


def serving_panel(device: str = "cpu") -> None:
    """Send requests through the guard-check -> dispatch loop and watch the counters; then the
    same loop over the real packages, measured in a child process."""
    import torch
    from runtime_core.aot.models import mlp_input
    st.subheader("Lab: the serving loop")
    plan = serving_plan.SERVING_PLAN
    st.caption(prose("aot", "serving_plan", ranged=esc(serving_plan.ranged_name()),
                    exact=esc(", ".join(map(str, plan.loop_exact)))))
    loop = _loop()
    a, b = st.columns(2)
    # kept across pages (Streamlit drops a widget's state with its page): the last batch taken
    restore("aot_batch_ok", 5, valid=_batch_ok)
    restore("aot_policy", MISS_POLICIES[1], valid=lambda v: v in MISS_POLICIES)
    if "aot_batch" not in st.session_state:
        st.session_state.aot_batch = str(st.session_state.aot_batch_ok)
    # a text box, read here: a number box's browser side turns "1e2" or a cleared box into 1 unseen
    a.text_input(f"request batch size (1 to {BATCH_MAX})", key="aot_batch", on_change=_take_batch)
    policy = b.selectbox("on a guard miss", MISS_POLICIES, key="aot_policy")
    keep("aot_batch_ok")
    keep("aot_policy")
    if st.session_state.get("aot_batch_msg"):
        st.warning(st.session_state.aot_batch_msg)
    batch = st.session_state.aot_batch_ok
    # the label says which batch goes out: what the box last took
    # a send answers the box's refusal: the batch that went out is the one the box went back to
    clicked = st.button(f"send a request of batch {int(batch)}", key="aot_send", on_click=_drop_refusal,
                        help=f"sends the batch the box last took (1 to {BATCH_MAX})")
    st.session_state.pop("aot_batch_just_refused", None)
    if clicked and not st.session_state.pop("aot_skip_send", False):
        loop.set_policy(policy)
        try:
            with torch.no_grad():
                r = loop.serve(mlp_input(int(batch)))
            st.session_state.aot_last = ("ok", f"Batch {int(batch)}: " + _describe(r))
        except RequestRejected as e:  # quotes the request's shape: text, not Markdown
            st.session_state.aot_last = ("rejected", f"Batch {int(batch)} rejected: " + esc(e, max_chars=600))
    if st.session_state.get("aot_last"):
        kind, msg = st.session_state.aot_last
        (st.error if kind == "rejected" else st.success)(msg)
    c = loop.counters
    with metric_row():  # wraps on a phone: five full-width rows took half its screen
        for label, v in (("hits", c.hits), ("misses", c.misses), ("recompiles", c.recompiles), ("pads", c.pads),
                         ("rejects", c.rejects)):
            st.metric(label, v, width="content")
    jit = [a.name for a in loop.artifacts if a.kind == "jit"]
    if jit:
        st.caption(prose("aot", "jit_kept", arts=esc(", ".join(jit), max_chars=400)))
    if st.button("reset serving loop", key="aot_reset"):
        del st.session_state["aot_serving_loop"]
        st.rerun()
    packages_panel(device)


def packages_panel(device: str) -> None:
    """The loop over the real packages: verdicts, each package's own check, ms per size."""
    st.markdown("**The same loop over the real packages: one ranged .pt2 against exact-shape ones**")
    if not _cache_refused():
        pre = prebuild.current(device)
        if pre is not None:
            prebuild_status(pre, pre.status().state in ("waiting", "building"))
        if st.button("serve through the packages", key="aot_serve_measure",
                     help=prose("aot", "serve_help", markdown=False)):
            _measure_serving(device)
        res = serving_measure.cached_serving(device)
        if res is None:
            st.info(prose("aot", "serve_not_measured"))
        else:
            source_badge("live" if device == "cuda" else "cpu", _where(res), saved=True)
            _serving_tables(res)
    if device != "cuda":
        recorded_gpu_panel("serving", "serving", "The same loop, recorded on a GPU", _serving_tables,
                           SERVING_RECORD_COMMAND)


def prebuild_status(pre, running: bool) -> None:
    """The server's prebuild of the packages (RUNTIME_PREBUILD_AOT=1): redrawn every 2 s while
    it runs, then once more as the whole page (so nothing keeps redrawing after it)."""
    def draw() -> None:
        s = pre.status()
        if s.state in ("waiting", "building"):
            st.info(esc(s.describe(), max_chars=400), icon=":material/hourglass_top:")
            done = len(s.done)
            st.progress(done / s.total if s.total else 0.0,
                        text=esc(f"{done} of {s.total} steps done", max_chars=80))
        elif running:  # it finished since the page was drawn: draw the page again, without the timer
            st.rerun()
        elif s.state == "failed":
            st.warning(esc(s.describe(), max_chars=600))
        else:
            st.caption(esc(s.describe(), max_chars=400) + " " + prose("aot", "prebuild_done"))
    (st.fragment(run_every=2)(draw) if running else draw)()


def _loader_note_then_problems(res: dict, problems: list[str]) -> list[str]:
    """Show why a crashed Python loader's rows are missing, its crash report inside that note;
    returns the problems left to show as errors."""
    note = tables.python_loader_note(res)
    if not note:
        return problems
    crashes, others = tables.split_crashes(problems)
    st.info(esc(note + (" The child's report: " + "; ".join(crashes) if crashes else ""), max_chars=800))
    return others


def _serving_tables(res: dict) -> None:
    problems = _loader_note_then_problems(res, list(res.get("errors", [])))
    if res.get("rows"):
        ui_tables.show(tables.serving_rows(res))
    times = tables.serving_time_rows(res)
    if times:
        ui_tables.show(times)
    # the loop and one-call rows come from the Python serving child: where it crashed, say what is left
    st.caption(prose("aot", "serving_times" if res.get("rows") else "serving_times_cpp_only"))
    if res.get("threads") == 1:
        st.caption(prose("aot", "serving_threads"))
        citation_caption(prose("aot", "serving_threads"))  # its ‹dev-machine› marker, named
    for line in tables.timing_contradictions(res):  # a measurement whose rows disagree says so
        st.warning(esc(line + ". " + prose("aot", "serving_contradiction", markdown=False), max_chars=600))
    line = tables.unchecked_line(res)
    if line:
        st.warning(esc(line, max_chars=600))
    cpp = tables.serving_cpp_rows(res)
    if cpp:
        every = len({r["package"] for r in res.get("cpp", [])}) > 1
        st.markdown(prose("aot", "cpp_serves", what="every package" if every else "the ranged package"))
        ui_tables.show(cpp)
        for line in tables.serving_cpp_errors(res):
            st.caption(esc(line, max_chars=600))
    for problem in problems:
        st.error(esc(problem, max_chars=600))


def _measure_serving(device: str) -> None:
    _queued_run("Serving through the packages in child processes…",
                lambda **kw: serving_measure.measure_serving(device, **kw))


def _describe(r) -> str:
    """One line of Markdown about a served request (the page names its batch first, so a box left
    invalid cannot hide which batch was sent); its shape and artifact names are escaped."""
    if r.path == "hit":
        return md("guard hit → dispatched to '{art}'.", art=r.artifact)
    if r.path == "miss -> pad":
        return md("guard miss ({why}) → padded batch {b} up to '{art}'; the padded rows were computed "
                  "and thrown away.", why=r.miss_reason, b=r.padded_from, art=r.artifact)
    return md("guard miss ({why}) → recompiled: new artifact '{art}'.", why=r.miss_reason, art=r.artifact)


def decoder_panel(live: bool) -> None:
    """The decoder worked example: the recorded GPU numbers (or what is still owed)."""
    st.subheader("Decoder step: PyTorch eager (async) vs graphs vs reduce-overhead")
    rec, _ = recordings_of("decoder")
    if rec is None:
        st.warning(prose("aot", "decoder_owed"))
        return
    source_badge(rec.meta.source, rec.label())
    if live:
        st.caption("This machine has a GPU: run the command above to measure it live.")
    ui_tables.show(tables.decoder_rows(rec))
    st.caption(figure_log.bench_caption(rec))
    figure_log.note_decoder_bench(rec, "decoder table")
    stale = rec.labs.get("stale_input")
    if stale:
        st.markdown(f"**Stale input:** replaying after putting the new token in a fresh tensor gave logits "
                    f"off by up to **{stale['fresh_tensor_max_abs_err']:.3g}**; copying it into the captured "
                    f"buffer: max error {stale['copied_in_max_abs_err']:.3g} "
                    f"({'exact' if stale['copied_in_exact'] else 'not exact'}).")
    ro = rec.labs.get("reduce_overhead")
    if ro:
        st.markdown("**reduce-overhead: CUDA-graph recordings made by cudagraph trees**")
        ui_tables.show(tables.reduce_overhead_rows(ro))
        st.caption(prose("aot", "ro_rows_timing"))
        for msg in ro.get("cpu_island", {}).get("skip_messages", [])[:2]:
            st.caption(md("skip reason logged: {msg}", msg=msg))

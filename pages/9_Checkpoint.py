"""Checkpoint ("Try it"): the seed's six steps, ticked only on results the student recorded.

The knobs are the widget's own. "Record this result" puts the current setting's numbers into the
student's notebook; each step shows its instruction and inputs, asks for a prediction where it
has one (the numbers stay hidden until it is entered), then shows the runs it used, both sides of
every relation it checks, and the verdict. Progress lives in the URL (pages/ui/progress.py)."""
from pages.ui.common import lesson_data, render_text, setup_page, source_badge

import streamlit as st

from pages.ui import knobs, progress, tables as ui_tables, widget_sources as src
from pages.ui.safe_text import esc
from pages.ui.widget_panels import count_cell, headline_metrics
from runtime_core.knobs import Knobs
from runtime_core.lesson.checkpoint import MAX_RUNS, ORDER, STEP_NEEDS, Run, check_step
from runtime_core.lesson.figures import field_text
from runtime_core.lesson.page_text import text as prose

ctx = setup_page("Checkpoint")
notices = knobs.init_from_url()
data = lesson_data("checkpoint")
steps = {s["id"]: s for s in data["steps"]}
rec = ctx.recording if not ctx.live else None


def knobs_of(run: Run) -> Knobs:
    return Knobs(run.mode, run.n, run.work_us, tax_us=run.tax_us, dynamic=run.dynamic, policy=run.policy)


def numbers(run: Run) -> dict:
    """The textbook model and the measured column (live, recorded or simulated) for one run,
    fetched once per session and source: a rerun (a typed prediction) must not measure the
    notebook's runs again, nor change the numbers a step was checked on."""
    memo = st.session_state.setdefault("ck_numbers", {})
    key = (run, ctx.live, rec.meta.file if rec else None)
    if key not in memo:
        while len(memo) >= 2 * MAX_RUNS:  # bounded: the oldest settings go first
            memo.pop(next(iter(memo)))
        shown = src.shown(ctx.live, rec, knobs_of(run))
        memo[key] = {"model": src.textbook(knobs_of(run)), "measured": shown.numbers, "label": shown.label,
                     "note": shown.note}
    return memo[key]


st.title("Checkpoint: try it")
st.markdown(prose("checkpoint", "intro"))
for note in notices:
    st.warning(note)  # Markdown with the URL's values escaped (knobs.init_from_url, progress.init)

knob_col, now_col = st.columns([1, 1.6], gap="medium")
with knob_col:
    k = knobs.render(None)
with now_col:
    cur = Run(k.mode.value, k.n, k.tax_us, k.work_us, k.dynamic, k.policy.value)
    now = numbers(cur)
    label = ctx.recording_label() if rec else ("this machine's GPU" if ctx.live else "the simulator")
    source_badge("live" if ctx.live else (rec.meta.source if rec else "simulated"), label)
    headline_metrics(now["measured"], now["note"], now["model"] if not now["note"] else
                     src.textbook(knobs_of(cur).replace(n=now["measured"]["n"], work_us=now["measured"]["work_us"])))
    if st.button("Record this result", type="primary", key="ck_record", width="stretch"):
        progress.record(cur)
    mine = progress.runs()
    st.caption(f"Your notebook: {len(mine)} result{'s' if len(mine) != 1 else ''} recorded"
               + (f" (the latest {len(mine)} are kept)" if len(mine) >= MAX_RUNS else "") + ".")
    if mine:
        with st.expander("Your recorded results", expanded=False):
            rows = []
            for i, run in enumerate(mine, 1):
                x = numbers(run)
                m = x["measured"]
                rows.append({"#": i, "setting": run.describe(), "wall (µs)": f"{m['wall_us']:,.1f}",
                             "overhead (µs)": f"{max(m['launch_overhead_us'], 0):,.1f}",
                             "driver calls": count_cell(m["driver_calls"]),
                             "graph valid?": "TRUE" if m["graph_valid"] else "FALSE",
                             "from": x["label"] + (f" ({x['note']})" if x["note"] else "")})
            ui_tables.show(rows)
knobs.write_url(k)  # after a record: the URL carries the notebook

checks = {}
for step in ORDER:
    asks = "predict" in steps[step]
    checks[step] = check_step(step, progress.runs(), numbers, predicted=not asks or step in progress.predictions())
done = [s for s in ORDER if checks[s].done]
st.progress(len(done) / len(ORDER), text=f"{len(done)} of {len(ORDER)} steps done")


def inputs_line(step: str) -> str:
    needs = STEP_NEEDS[step]
    first = needs[0]
    line = (f"N = {first.run().n} · tax {first.run().tax_us:g} µs · work {first.work_us:g} µs · "
            f"mode {first.mode}" + (" · dynamic shapes on (fallback)" if first.dynamic else ""))
    others = [n.label() for n in needs[1:]]
    return line + (f"; and for comparison: {', '.join(others)}" if others else "")


def on_predict(step: str) -> None:
    progress.predict(step, st.session_state[f"ck_pred_{step}"])


def evidence_table(res) -> list[dict]:
    rows = []
    for need, run, x in res.evidence:
        for source, m in (("textbook model", x["model"]), (x["label"] + (f" ({x['note']})" if x["note"] else ""),
                                                            x["measured"])):
            rows.append({"result": need.label(), "from": source, "wall (µs)": f"{m['wall_us']:,.1f}",
                         "overhead (µs)": f"{max(m['launch_overhead_us'], 0):,.1f}",
                         "driver calls": count_cell(m["driver_calls"]),
                         "graph valid?": "TRUE" if m["graph_valid"] else "FALSE"})
    return rows


first_open = next((s for s in ORDER if s not in done), None)
for i, step in enumerate(ORDER, 1):
    info, res = steps[step], checks[step]
    badge = ":green-badge[done]" if res.done else ":gray-badge[to do]"
    have_runs = all(run is not None for _, run, _ in res.evidence)
    with st.expander(f"Step {i}: {info['title']} {badge}", expanded=step == first_open or have_runs):
        st.markdown(f"{badge} **Do:** {render_text(info['instruction'])}")
        st.caption(f"Inputs: {inputs_line(step)}")
        ask = info.get("predict")
        if ask:
            key = f"ck_pred_{step}"
            if key not in st.session_state:
                st.session_state[key] = progress.predictions().get(step)
            st.number_input(ask["question"], min_value=0.0, max_value=1e9, value=None, step=1.0,
                            key=key, on_change=on_predict, args=(step,), placeholder="your prediction")
        guess = progress.predictions().get(step) if ask else None
        if ask and guess is None:
            st.info("Type your prediction to see the numbers for this step.")
            if res.todo[1:]:
                st.caption("Still to record: " + "; ".join(res.todo[1:]) + ".")
            continue
        if not have_runs:
            st.info("To do: " + "; ".join(t for t in res.todo if t != "enter your prediction") + ".")
            continue
        if ask:
            metric = ask["metric"]
            _, _, x = res.evidence[0]
            book, meas = x["model"][metric], x["measured"][metric]
            show = (lambda v: "not counted" if v is None else f"{v:,.0f}") if metric == "driver_calls" else \
                (lambda v: f"{v:,.1f} µs")
            st.markdown(f"**Your prediction:** {show(guess)} · **textbook model:** {show(book)} · "
                        f"**{esc(x['label'])}:** {show(meas)}")
        ui_tables.show(evidence_table(res))
        st.markdown("**What this step checks**")
        for r in res.relations:
            verdict = ":green-badge[holds]" if r.holds else ":red-badge[does not hold]"
            st.markdown(f"{verdict} {r.source}: {r.claim}: {r.values()}")
        if res.done:
            st.success("Done: every check holds on the results you recorded.")
        else:
            st.warning("Not yet. " + render_text(info["why"]))
        with st.popover("What to expect"):
            st.markdown(f"**Textbook model:** {render_text(info['expect_model'])}")
            st.markdown(f"**Measured:** {render_text(info['expect_measured'])}")
            st.markdown(f"**Why:** {render_text(info['why'])}")

with st.expander(f"Why is the measured eager overhead not {field_text('textbook.eager_overhead_us')}?"):
    st.markdown(render_text(data["note"]))
if st.button("Reset my progress", key="ckpt_reset"):
    progress.reset()
    for step in ORDER:
        st.session_state.pop(f"ck_pred_{step}", None)
    st.rerun()

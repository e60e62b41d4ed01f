"""Checkpoint ("Try it"): the seed's six steps, taken in order, each ticked on results the student
recorded after predicting.

The steps sit beside the knobs, under the setting's numbers; each holds its own prompt, the
prediction box beside the step's "Record this result" button (which records the knobs' setting only
when it is one the step needs). Until the open step's prediction is typed, no setting shows its
numbers; once it is typed, and until the step is recorded (the prediction stays open to change until
then), only the settings of steps already done show theirs, so nothing on the page gives it away.
Once the evidence is recorded the prediction is judged (runtime_core/lesson/prediction.py) against
the textbook within the step's tolerance, with the measurement beside it, and the step is complete;
the summary counts the predictions that were close. Progress lives in the URL (pages/ui/progress.py).
"""
import json

from pages.ui.common import (citation_caption, lesson_data, phone_anchor, phone_link, render_text, setup_page,
                             source_badge)

import streamlit as st

from pages.ui import knobs, progress, tables as ui_tables, widget_sources as src
from pages.ui.nav import app_link
from pages.ui.safe_text import esc, esc_typed
from pages.ui.widget_panels import METRIC_CSS, count_cell, headline_metrics
from pages.ui.widget_view import at_point, own_tax, tax_line
from runtime_core.knobs import Knobs
from runtime_core.lesson.checkpoint import (MAX_RUNS, ORDER, PREDICTION_MAX, STEP_NEEDS, Run, check_step, complete,
                                            hidden_by, hides, nearest_change, open_step, prediction_in_range)
from runtime_core.lesson.figures import field_text
from runtime_core.lesson.page_text import text as prose
from runtime_core.lesson.prediction import box_text, judge, per_us, read_typed, summary

ctx = setup_page("Checkpoint", own_url=True)
notices = knobs.init_from_url()
data = lesson_data("checkpoint")
steps = {s["id"]: s for s in data["steps"]}
asks = {s: steps[s].get("predict") for s in ORDER}
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
        k = knobs_of(run)
        shown = src.shown(ctx.live, rec, k)
        own, gpu = own_tax(shown.source == "live", rec, src)  # as page 6 names it
        at = at_point(k, shown, own)  # off the grid: the shown point's N, work and asked tax, as page 6's chips
        memo[key] = {"model": src.textbook(k), "chips": src.textbook(at), "measured": shown.numbers,
                     "label": shown.label, "note": shown.note,
                     "tax_line": tax_line(shown, k, own, gpu, at.tax_us)}  # the tax the measurement ran at
    return memo[key]


def knob_run() -> Run:
    """The knobs' current setting as a run (read from the session: a button's callback runs before
    the knobs are drawn)."""
    s = st.session_state
    return Run(s["w_mode"], int(s["w_n"]), float(s["w_tax"]), float(s["w_work"]), bool(s["w_dynamic"]),
               s["w_policy"] if s["w_dynamic"] else "fallback")


def unit_of(step: str) -> str:
    """The unit a step's prediction is in: "" for a count of driver calls, else µs."""
    return "" if asks[step]["metric"] == "driver_calls" else "µs"


def on_record(step: str) -> None:
    """The step's own record button: the knobs' setting goes into the notebook when the step needs it.
    The button is pressable before a prediction is in (a click that only took the focus out of the
    prediction box used to land on a disabled button and be lost): the box's value is taken if typed,
    else the student is asked for one."""
    cur, needs = knob_run(), STEP_NEEDS[step]
    if st.session_state.get(f"ck_msg_{step}"):  # the box's refusal, said this very round (a typed "246,5"
        return                                  # then Record): it says why, and nothing is recorded
    if asks[step] and step not in progress.predictions():
        typed = read_typed(st.session_state.get(f"ck_pred_{step}"), unit_of(step))[0]
        if typed is None or not prediction_in_range(typed):
            st.session_state[f"ck_msg_{step}"] = prose("checkpoint", "predict_before_record")
            return
        progress.predict(step, typed)
    if any(n.matches(cur) for n in needs):
        progress.record(cur)
        st.session_state.pop(f"ck_msg_{step}", None)
    else:
        change = nearest_change(step, progress.runs(), cur)  # toward a result the step still lacks
        st.session_state[f"ck_msg_{step}"] = prose("checkpoint", "wrong_setting", setting=cur.describe(),
                                                   needs=" or ".join(n.label() for n in needs),
                                                   change=", ".join(change) or "the knobs to that")


def plain_label(text: str) -> str:
    """A question without its Markdown emphasis, for a widget's accessible name."""
    return text.replace("**", "").replace("__", "").replace("`", "")


def on_predict(step: str) -> None:
    """A typed prediction goes into the notebook. The box is text read here (prediction.read_typed:
    the browser's number box read "246,5" as 2465): a box left empty once a prediction is kept, or
    holding a comma, letters or a number out of range, is refused with a message that quotes it and
    that the student can read on a phone (no hover), and the box goes back to the prediction it held."""
    key = f"ck_pred_{step}"
    text = st.session_state.get(key)
    if text is None:  # a sidebar link clicked while the box held typing: the next page's run, the box gone
        return
    kept = progress.predictions().get(step)
    value, why = read_typed(text, unit_of(step))
    if why == "empty" and kept is None:
        return  # nothing typed, nothing kept: the step's own line asks for a prediction
    if not why and prediction_in_range(value):
        progress.predict(step, value)
        st.session_state[key] = box_text(value)
        return
    # the kept number and the range quoted as the box takes them (no thousands separators)
    unchanged = (prose("checkpoint", "kept_unchanged", kept=box_text(kept)) if kept is not None
                 else prose("checkpoint", "none_kept"))
    typed = f"“{esc_typed(text.strip(), 40)}”"
    name = {"empty": "left_empty", "comma": "comma", "not_a_number": "not_a_number",
            "unit_ms": "wrong_unit", "unit_ns": "wrong_unit", "unit_s": "wrong_unit"}.get(why, "out_of_range")
    digits = prose("checkpoint", "digits_us" if unit_of(step) else "digits_count")
    said = why.removeprefix("unit_")  # the unit typed, where name is wrong_unit
    st.session_state[f"ck_msg_{step}"] = prose("checkpoint", name, typed=typed, most=box_text(PREDICTION_MAX),
                                               unit=said, digits=digits, unchanged=unchanged,
                                               per=per_us(said) if name == "wrong_unit" else "")
    st.session_state[key] = box_text(kept)


pred = progress.predictions()
checks = {s: check_step(s, progress.runs(), numbers, predicted=not asks[s] or s in pred) for s in ORDER}
is_done = {s: complete(checks[s], bool(asks[s]), s in pred) for s in ORDER}
now_open = open_step(is_done)
unlocked = ORDER if now_open is None else ORDER[:ORDER.index(now_open) + 1]
# steps whose prediction is still open to change: their settings' numbers stay hidden until the step is
# recorded (shown as soon as the prediction was typed, they let a student copy the answer into the box)
waiting = [s for s in ORDER if asks[s] and not is_done[s]]
title_of = {s: f"{i}" for i, s in enumerate(ORDER, 1)}
KNOBS_ANCHOR, OPEN_STEP_ANCHOR = "ck-knobs", "ck-open-step"  # phone-only links between the two

st.html(METRIC_CSS)  # the widget's compact header: the open step's prompt fits on a projector's first screen
st.title("Checkpoint: try it")
st.caption(prose("checkpoint", "intro", steps=len(ORDER), asked=sum(1 for s in ORDER if asks[s])))
for note in notices:
    st.warning(note)  # Markdown with the URL's values escaped (knobs.init_from_url, progress.init)
came = progress.came_from_url()
if came:  # a shared link carries the sharer's notebook: say where this one came from, once
    st.info(prose("checkpoint", "from_url", runs=f"{came[0]} recorded result{'s' if came[0] != 1 else ''}",
                  preds=f"{came[1]} prediction{'s' if came[1] != 1 else ''}"), icon=":material/link:")
done = [s for s in unlocked if is_done[s]]
st.progress(len(done) / len(ORDER), text=f"{len(done)} of {len(ORDER)} steps done")


def inputs_line(step: str) -> str:
    needs = STEP_NEEDS[step]
    first = needs[0]
    line = (f"N = {first.run().n} · tax {first.run().tax_us:g} µs · work {first.work_us:g} µs · "
            f"mode {first.mode}" + (" · dynamic shapes on (fallback)" if first.dynamic else ""))
    others = [n.label() for n in needs[1:]]
    return line + (f"; and for comparison: {', '.join(others)}" if others else "")


def evidence_tables(res) -> None:
    """One narrow table per result the step used (it fits a phone): a row per quantity, the
    textbook model's column beside the measured one."""
    for need, run, x in res.evidence:
        measured = x["label"] + (f" ({x['note']})" if x["note"] else "")
        cols = [x["model"], x["measured"]]
        ui_tables.compare(need.label(), ["textbook model", measured], [
            ("wall (µs)", [f"{m['wall_us']:,.1f}" for m in cols]),
            ("overhead (µs)", [f"{max(m['launch_overhead_us'], 0):,.1f}" for m in cols]),
            ("driver calls", [count_cell(m["driver_calls"]) for m in cols]),
            ("graph valid?", [graph_valid_cell(need.mode, m) for m in cols])])


def graph_valid_cell(mode: str, m: dict) -> str:
    """"yes"/"no" for a graph-mode result; a dash where no graph was captured (eager, streams)."""
    if mode != "graph":
        return ui_tables.DASH + " (no graph)"
    return "yes" if m["graph_valid"] else "no"


def judged(step: str):
    """The step's prediction judged against the textbook (and the measurement) of its first run."""
    ask, (_, _, x) = asks[step], checks[step].evidence[0]
    metric = ask["metric"]
    label = esc(f"the {x['label']} run" + (f" ({x['note']})" if x["note"] else ""))
    return judge(pred[step], x["model"][metric], x["measured"][metric], tolerance=ask["tolerance"],
                 unit=unit_of(step), measured_label=label,
                 hint=render_text(ask.get("hint", "")))


DIFFERS = 1.5  # a measurement this many times the textbook's (or less than its inverse) is explained


def measured_differs(step: str, note: bool = True) -> str | None:
    """Where the step's measurement is far from the textbook number the prediction was judged
    against: why, in words, beside the verdict (a "Close" beside a number 3x larger needs it).
    `note`: with step 2's worked arithmetic (else a pointer to it), for the step's own box."""
    metric, (_, _, x) = asks[step]["metric"], checks[step].evidence[0]
    book, got = x["model"][metric], (x["measured"] or {}).get(metric)
    if got is None or not book or not got:
        return None
    guess, tol = pred.get(step), asks[step].get("tolerance", 0.1)
    # a guess judged far off that the measurement would have judged close: say why the two differ
    nearer = (guess is not None and not judged(step).close
              and abs(guess - got) <= tol * abs(got) + 1e-12 and abs(guess - got) < abs(guess - book))
    if 1 / DIFFERS < got / book < DIFFERS and not nearer:
        return None
    label = esc(f"{x['label']} run" + (f" ({x['note']})" if x["note"] else ""))
    where = ("the relations below" if note else  # in the next step's box, step `step`'s checks are above it
             f"the checks under step {esc(title_of[step])} (above)")
    text = prose("checkpoint", "measured_differs", label=label, ratio=f"{got / book:.1f}x", where=where)
    if nearer:
        text = prose("checkpoint", "guess_nearer_measured") + " " + text
    if step != "eager":
        return text
    return text + " " + (render_text(data["note"]) if note else prose("checkpoint", "differs_see_step", step=title_of[step]))


def steps_panel() -> dict:
    """The six steps, in order, beside the knobs: the open one expanded with its prompt and its
    record button, the one before it showing its verdict; then the summary."""
    judgements = {}
    for i, step in enumerate(ORDER, 1):
        info, res, ask = steps[step], checks[step], asks[step]
        locked = step not in unlocked
        state = "locked" if locked else ("done" if is_done[step] else "to do")
        badge = {"done": ":green-badge[done]", "to do": ":gray-badge[to do]", "locked": ":gray-badge[locked]"}[state]
        # done means the step's result is in, not that the prediction was right: the title says which
        missed = state == "done" and ask and res.recorded and step in pred and not judged(step).close
        with st.expander(f"Step {i}: {info['title']} ({'done, prediction missed' if missed else state})",
                         expanded=step == now_open):
            if locked:
                st.caption(prose("checkpoint", "locked", prev=title_of[ORDER[i - 2]]))
                continue
            before = ORDER[i - 2] if i > 1 else None
            if step == now_open and before in judgements:  # the verdict just given, where the eyes are
                j = judgements[before]
                (st.success if j.close else st.warning)(f"Step {title_of[before]}: {j.message}")
                differs = measured_differs(before, note=False)
                if differs:
                    st.info(differs)
            if step == now_open:   # a phone stacks the knobs a screen below the steps: a link down, and back
                phone_anchor(st, OPEN_STEP_ANCHOR)
            st.markdown(f"{badge} **Do:** {render_text(info['instruction'])}")
            if step == now_open:
                phone_link(st, KNOBS_ANCHOR, prose("checkpoint", "phone_to_knobs"))
            st.caption(f"Inputs: {inputs_line(step)}")
            guess = pred.get(step)
            question = render_text(ask["question"]) if ask else ""
            if ask:  # the question across the step's width, above the box and the button: fewer lines on a projector
                st.markdown(question)
            ask_col, rec_col = st.columns([3, 1.3], vertical_alignment="bottom")
            with ask_col:
                if ask:
                    key = f"ck_pred_{step}"
                    if key not in st.session_state:
                        st.session_state[key] = box_text(guess)
                    # the question in bold above, the box's own label plain: a screen reader reads a
                    # widget label's Markdown as typed ("star star wall time")
                    st.text_input(plain_label(question), key=key, on_change=on_predict, args=(step,),
                                  placeholder="your prediction (a number)", disabled=is_done[step],
                                  label_visibility="collapsed")
                else:
                    st.caption(prose("checkpoint", "no_prediction"))
            with rec_col:
                st.button("Record this result", key=f"ck_record_{step}", type="primary", width="stretch",
                          on_click=on_record, args=(step,), disabled=is_done[step])
            msg = st.session_state.pop(f"ck_msg_{step}", None)
            if msg:
                st.warning(msg)
            if ask and guess is None:
                if not msg:  # the warning above already asks for the prediction
                    st.info(prose("checkpoint", "type_first"))
                continue
            if not res.recorded:
                st.info("To do: " + "; ".join(t for t in res.todo if t != "enter your prediction") + ".")
                continue
            if ask:
                judgements[step] = j = judged(step)
                (st.success if j.close else st.warning)(j.message)
                differs = measured_differs(step)
                if differs:
                    st.info(differs)
            evidence_tables(res)
            st.markdown("**What this step checks**")
            for r in res.relations:
                verdict = ":green-badge[holds]" if r.holds else ":red-badge[does not hold]"
                st.markdown(f"{verdict} {r.source}: {r.claim}: {r.values()}")
            total, failed = len(res.relations), len(res.failed)
            if failed:
                st.warning(prose("checkpoint", "step_fails", failed=failed, total=total, why=render_text(info["why"])))
            else:
                st.caption(prose("checkpoint", "step_holds", held=total, total=total))
            with st.popover("What to expect"):
                st.markdown(f"**Textbook model:** {render_text(info['expect_model'])}")
                st.markdown(f"**Measured:** {render_text(info['expect_measured'])}")
                st.markdown(f"**Why:** {render_text(info['why'])}")

    last = next((s for s in reversed(ORDER) if s in judgements), None)
    if now_open is None and last is not None:  # no next step to show it at the top of: the last verdict here
        j = judgements[last]
        (st.success if j.close else st.warning)(f"Step {title_of[last]}: {j.message}")
    bad = [title_of[s] for s in done if checks[s].failed]
    line = summary(judgements, asked=sum(1 for s in ORDER if asks[s]),
                   entered=[title_of[s] for s in ORDER if s in pred and s not in judgements])
    if bad:
        line += " " + prose("checkpoint", "relations_failed", failed=sum(len(checks[s].failed) for s in done),
                            steps=", ".join(bad))
    if now_open is None and not bad and all(j.close for j in judgements.values()):
        st.success(prose("checkpoint", "all_close"))
    else:
        st.markdown(f"**{len(done)} of {len(ORDER)} steps done.** {line}")
    if now_open is None:  # every step done: where to go from here
        st.markdown(prose("checkpoint", "next_steps"))
        links = st.container(horizontal=True)
        app_link("pages/10_Interview.py", label="Interview cards", icon=":material/arrow_forward:", container=links)
        app_link("pages/11_Claims.py", label="Claims against measurements", icon=":material/arrow_forward:", container=links)
    return judgements


now_col, knob_col = st.columns([1.6, 1], gap="medium")  # the steps first: a phone stacks them above the knobs
with knob_col:
    phone_anchor(st, KNOBS_ANCHOR)
    k = knobs.render(None, graph_input=False)  # a run here always copies (Run has no input choice)
    if now_open is not None:
        phone_link(st, OPEN_STEP_ANCHOR, prose("checkpoint", "phone_to_step", step=title_of[now_open]))
knobs.write_url(k)  # the knobs and the notebook (a record or a prediction ran in its callback)
cur = Run(k.mode.value, k.n, k.tax_us, k.work_us, k.dynamic, k.policy.value if k.dynamic else "fallback")
# Before the open step's prediction is typed every setting's numbers wait. Once it is typed, and until the
# step is recorded, only the settings of steps already done show theirs: the prediction can still change,
# and a rule that hid only settings near the answer would tell the answer by where it starts hiding. With
# no prediction open (a step that asks none), a later step's own settings wait with it (checkpoint.tells).
public = {n.run() for s in ORDER if is_done[s] for n in STEP_NEEDS[s]}
hold = hidden_by(cur, waiting)           # a step's own setting, named as that step's
reason = "setting" if hold else None
if now_open in waiting and (now_open not in pred or cur not in public) and hold is None:
    hold, reason = now_open, "open"
with now_col:
    label = ctx.recording_label() if rec else ("this machine's GPU" if ctx.live else "the simulator")
    source_badge("live" if ctx.live else (rec.meta.source if rec else "simulated"), label)
    if hold:
        if reason == "open":
            text = prose("checkpoint", "numbers_hidden_pending" if hold in pred else "numbers_hidden_first",
                         step=title_of[hold])
        elif hold != now_open:
            text = prose("checkpoint", "numbers_hidden_later", step=title_of[hold], open=title_of[now_open])
        else:
            text = prose("checkpoint", "numbers_hidden_rest" if hold in pred else "numbers_hidden", step=title_of[hold])
        st.caption(":blue-badge[numbers hidden] " + text)
    else:
        now = numbers(cur)
        if now.get("tax_line"):  # the textbook chips run at the knob's tax; say what the measurement ran at
            st.caption(now["tax_line"])
        headline_metrics(now["measured"], now["note"], now["chips"])
    judged_now = steps_panel()

mine = progress.runs()
shown_runs = [r for r in mine if not hides(r, waiting)]
st.caption(f"Your notebook: {len(mine)} result{'s' if len(mine) != 1 else ''} recorded"
           + (f" (at most {MAX_RUNS} are kept: the results your steps rest on, then the latest)"
              if len(mine) >= MAX_RUNS else "") + ".")
if shown_runs:
    with st.expander("Your recorded results", expanded=False):
        rows, sources = [], []
        for run in shown_runs:
            x = numbers(run)
            m = x["measured"]
            sources.append(x["label"] + (f" ({x['note']})" if x["note"] else ""))
            rows.append({"setting": run.describe(), "wall (µs)": f"{m['wall_us']:,.1f}",
                         "overhead (µs)": f"{max(m['launch_overhead_us'], 0):,.1f}",
                         "driver calls": count_cell(m["driver_calls"]),
                         "graph valid?": graph_valid_cell(run.mode, m)})
        if len(set(sources)) == 1:  # one source for all: named once, so the table fits a phone
            st.caption(f"Measured numbers, from {esc(sources[0])}.")
        else:
            rows = [dict(r, **{"from": f}) for r, f in zip(rows, sources)]
        ui_tables.show(rows)

if "eager" not in waiting and not (judged_now.get("eager") and measured_differs("eager")):  # its title gives
    # step 2's textbook answer; once step 2 is judged on a measurement far from it, the note sits beside the verdict
    with st.expander(f"Why is the measured eager overhead not {field_text('textbook.eager_overhead_us')}?"):
        st.markdown(render_text(data["note"]))
citation_caption(json.dumps(data))  # what a ‹seed› marker in the steps means
if mine or pred:
    with st.popover("Reset my progress"):
        n_runs, n_pred = len(mine), len(pred)
        st.markdown(prose("checkpoint", "reset_confirm", runs=f"{n_runs} recorded result{'s' if n_runs != 1 else ''}",
                          preds=f"{n_pred} prediction{'s' if n_pred != 1 else ''}"))
        if st.button("Yes, erase my progress", key="ckpt_reset", type="primary"):
            progress.reset()
            for step in ORDER:
                st.session_state.pop(f"ck_pred_{step}", None)
            st.rerun()

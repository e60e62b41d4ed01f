"""Checkpoint ("Try it"): the seed's six steps, ticked from the student's own widget setting."""
from pages.ui.common import lesson_data, render_text, setup_page, source_badge

import streamlit as st

from pages.ui import knobs, widget_sources as src
from runtime_core.lesson.checkpoint import ORDER, check_step
from runtime_core.lesson.figures import field_text

ctx = setup_page("Checkpoint")
notices = knobs.init_from_url()
data = lesson_data("checkpoint")
steps = {s["id"]: s for s in data["steps"]}
done: set = st.session_state.setdefault("ckpt_done", set())

st.title("✅ Checkpoint: try it")
st.markdown("Work through the six steps with the knobs below (they are the widget's own knobs, "
            "so you can also do this on the **Launch-overhead killer** page and come back). "
            "A step ticks when your setting is right *and* the numbers show what the step predicts.")
st.page_link("pages/6_Launch_overhead_killer.py", label="Open the full widget", icon="⚡")
for note in notices:
    st.warning(note)  # Markdown with the URL's values escaped (knobs.init_from_url)

k = knobs.render(None)
setting = {"n": k.n, "tax_us": k.tax_us, "work_us": k.work_us, "mode": k.mode.value, "dynamic": k.dynamic,
           "policy": k.policy.value}
rec = ctx.recording if not ctx.live else None


def view(mode: str, work_us: float, dynamic: bool) -> dict:
    """Model and measured (recorded, or simulated when no recording ships) for the current N and tax."""
    at = k.replace(mode=mode, work_us=work_us, dynamic=dynamic, policy="fallback")
    model = src.textbook(at)
    if rec:
        extra = max(0.0, k.tax_us - rec.meta.intrinsic_tax_us)
        measured = src.recorded(rec, at.replace(extra_tax_us=extra))
    else:
        measured = src.simulated(at)
    return {"model": model, "measured": measured}


label = f"recorded: {ctx.recording_label()}" if rec else "simulated (no recording shipped)"
source_badge("recorded" if rec else "simulated", f"measured relations are checked on {label}")

for step in ORDER:
    res = check_step(step, setting, view, done)
    if res.done:
        done.add(step)
st.progress(len(done) / len(ORDER), text=f"{len(done)} of {len(ORDER)} steps done")

for i, step in enumerate(ORDER, 1):
    info = steps[step]
    res = check_step(step, setting, view, done)
    tick = "✅" if step in done else "⬜"
    with st.expander(f"{tick} {i}. {info['title']}", expanded=step not in done and not res.todo):
        st.markdown(f"**Do:** {render_text(info['instruction'])}")
        st.markdown(f"**Textbook model:** {render_text(info['expect_model'])}")
        st.markdown(f"**Measured:** {render_text(info['expect_measured'])}")
        if step in done:
            st.success("Done. " + " · ".join(res.seen) if res.seen else "Done.")
        elif res.todo:
            st.info("To try this step: " + "; ".join(res.todo) + ".")
        else:
            st.warning("Not yet: " + "; ".join(res.failed) + ". " + render_text(info["why"]))

with st.expander(f"Why is the measured eager overhead not {field_text('textbook.eager_overhead_us')}?"):
    st.markdown(render_text(data["note"]))
if st.button("reset my progress", key="ckpt_reset"):
    st.session_state["ckpt_done"] = set()
    st.rerun()

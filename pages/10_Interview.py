"""Interview flashcards: a question, its answer on request, the page that shows it live, and a
self-graded tally for this session (each card counted once, at its latest grade)."""
from pages.ui.common import citation_caption, lesson_data, metric_row, render_text, setup_page

import streamlit as st

from pages.ui import lab_panels
from pages.ui.nav import app_link, page_for, page_title
from runtime_core.labs import LABS
from runtime_core.lesson.page_text import text as prose
from runtime_core.words import count

ctx = setup_page("Interview prompts", icon=":material/record_voice_over:")
cards = lesson_data("interview")["cards"]
state = st.session_state
state.setdefault("iv_index", 0)
state.setdefault("iv_revealed", False)
graded = state.setdefault("iv_graded", {})  # card id -> "got it" / "missed" (the latest grade)


def go_to(index: int) -> None:
    state["iv_index"] = index % len(cards)
    state["iv_revealed"] = False


def grade(card_id: str, mark: str) -> None:
    """Grade the card, then move to the next card not graded yet (wrapping); once every card is
    graded, to the next card, and the summary above the deck says so."""
    graded[card_id] = mark  # a card graded again replaces its grade: the tally counts cards, not clicks
    here = state["iv_index"]
    later = [(here + k) % len(cards) for k in range(1, len(cards) + 1)]
    go_to(next((i for i in later if cards[i]["id"] not in graded), here + 1))


st.title("Interview prompts")
st.caption(prose("interview", "intro"))
c = metric_row()
tally = {mark: sum(1 for g in graded.values() if g == mark) for mark in ("got it", "missed")}
c.metric("got it", tally["got it"], width="content")
c.metric("missed", tally["missed"], width="content")
c.metric("cards graded", f"{len(graded)} of {len(cards)}", width="content")
if len(graded) == len(cards):   # the whole deck graded: where it ends, and what to go over again
    missed = [i + 1 for i, cd in enumerate(cards) if graded.get(cd["id"]) == "missed"]
    # green only for a clean deck: a score of 0 of 7 in a success box reads as praise
    (st.info if missed else st.success)(prose("interview", "deck_done_missed" if missed else "deck_done", n=len(cards),
                                              got=tally["got it"],
                                              missed=("card " if len(missed) == 1 else "cards ") + ", ".join(map(str, missed))))

card = cards[state["iv_index"]]
with st.container(border=True):
    st.caption(f"Card {state['iv_index'] + 1} of {len(cards)} · {card['section']}"
               + (f" · last graded: {graded[card['id']]}" if card["id"] in graded else ""))
    st.markdown(f"### {render_text(card['question'])}")
    if not state["iv_revealed"]:
        st.button("reveal answer", key="iv_reveal", on_click=lambda: state.update(iv_revealed=True))
    else:
        st.markdown(render_text(card["answer"]))
        citation_caption(card["answer"])  # what a ‹seed› marker in the answer means
        if card.get("detail"):  # what a follow-up question would probe: there when wanted, not in the way
            with st.expander(prose("interview", "detail_label")):
                st.markdown(render_text(card["detail"]))
                citation_caption(card["detail"])
        # the grade sits right under the answer: a card's labs can run thousands of pixels long
        g = st.container(horizontal=True)
        g.button("got it", key="iv_got", on_click=grade, args=(card["id"], "got it"), icon=":material/check:")
        g.button("missed", key="iv_missed", on_click=grade, args=(card["id"], "missed"), icon=":material/close:")
        page = page_for(card["live_page"])
        if page:
            app_link(page, label=f"See it: {page_title(page)}", icon=":material/arrow_forward:")
            st.caption(render_text(card["live_hint"]))
        else:
            st.caption(f"(no page named {card['live_page']!r} in pages/ yet)")
        for lab in card.get("live_labs", []):
            if lab in LABS:
                lab_panels.lab_section(lab, ctx.live, f"iv_{card['id']}")
            else:
                st.caption(f"The `{lab}` lab is not built yet: until it is, the page above shows it.")

nav = st.container(horizontal=True)
nav.button("previous", key="iv_prev", on_click=go_to, args=(state["iv_index"] - 1,), icon=":material/arrow_back:")
nav.button("next", key="iv_next", on_click=go_to, args=(state["iv_index"] + 1,), icon=":material/arrow_forward:",
           icon_position="right")
if graded:
    with nav.popover("reset tally", icon=":material/restart_alt:"):
        st.markdown(prose("interview", "reset_confirm", cards=count(len(graded), "card", "cards")))
        st.button("Yes, clear my grades", key="iv_reset", type="primary", on_click=graded.clear)

"""The checkpoint's progress: the student's recorded results and predictions, kept in the session
and mirrored into the URL (`ck`, `ckp`), so it survives a page switch and a reload.

Streamlit drops query parameters when the student moves to another page, so every page carries
these along: common.setup_page loads them (`init`) and mirrors them with the knobs' setting
(`url_params`, written by knobs.carry_url) on every page but the two that write their own URL
(the widget and the checkpoint, through knobs.write_url). A reload
of any page of the app therefore keeps the progress, not only a reload of the checkpoint's.
"""
from __future__ import annotations

import streamlit as st

from pages.ui.safe_text import md
from runtime_core.lesson.checkpoint import (Run, add_run, decode_predictions, decode_runs, encode_predictions,
                                            encode_runs)

RUNS, PRED = "ck_runs", "ck_pred"
URL_RUNS, URL_PRED = "ck", "ckp"
URL_NAMES = (URL_RUNS, URL_PRED)


MAX_NOTICES = 3  # junk entries quoted one by one per URL key; the rest are counted in one line


NOTICES = "ck_url_notices"  # junk found in the URL, not yet shown on the checkpoint's or the widget's page
FROM_URL = "ck_from_url"    # (results, predictions) a session's first URL brought, until the checkpoint says so


def _load() -> None:
    """Load progress from the URL on a session's first run, keeping notices for entries that were
    junk (each skipped alone: the rest of the progress is kept), at most MAX_NOTICES + 1 per key."""
    if RUNS not in st.session_state:
        # a key given twice (?ck=…&ck=…) is read whole, every value, not only its last
        runs, bad = decode_runs(".".join(st.query_params.get_all(URL_RUNS)))
        pred, bad_pred = decode_predictions(",".join(st.query_params.get_all(URL_PRED)))
        st.session_state[RUNS], st.session_state[PRED] = runs, pred
        st.session_state[NOTICES] = junk_notices(URL_RUNS, bad) + junk_notices(URL_PRED, bad_pred)
        if runs or pred:  # the checkpoint says once where this notebook came from (came_from_url)
            st.session_state[FROM_URL] = (len(runs), len(pred))


def init() -> list[str]:
    """Load the progress (first run) and hand over the junk notices, once: the pages that own the
    progress (the checkpoint, the widget) show them in their main column."""
    _load()
    return st.session_state.pop(NOTICES, [])


def came_from_url() -> tuple[int, int] | None:
    """(results, predictions) the session's first URL brought, once (a reload, a bookmark, or a
    link someone shared, which carries their notebook); None after, or when it brought none."""
    return st.session_state.pop(FROM_URL, None)


def pending() -> list[str]:
    """Load the progress (first run) and the junk notices not handed over yet: every other page
    shows them in its sidebar, until the checkpoint or the widget takes them."""
    _load()
    return list(st.session_state.get(NOTICES, []))


def junk_notices(key: str, whys: list[str]) -> list[str]:
    """A notice (Markdown, the junk escaped) for each of the first MAX_NOTICES junk entries of URL
    key `key`, then one line counting them all: a link with 20,000 junk tokens gives four
    notices, not 20,000 (each one an element the browser has to draw)."""
    out = [md("Checkpoint progress in the URL: {why}; skipped.", why=why) for why in whys[:MAX_NOTICES]]
    if len(whys) > MAX_NOTICES:
        out.append(f"{len(whys):,} junk values in `{key}` ignored (the first {MAX_NOTICES} are quoted above).")
    return out


def runs() -> list[Run]:
    return st.session_state.get(RUNS, [])


def predictions() -> dict[str, float]:
    return st.session_state.get(PRED, {})


def record(run: Run) -> None:
    st.session_state[RUNS] = add_run(runs(), run)


def predict(step: str, value: float | None) -> None:
    pred = dict(predictions())
    if value is None:
        pred.pop(step, None)
    else:
        pred[step] = float(value)
    st.session_state[PRED] = pred


def reset() -> None:
    st.session_state[RUNS], st.session_state[PRED] = [], {}


def url_params() -> dict[str, str]:
    """The progress as query parameters (empty when there is none)."""
    out = {}
    if runs():
        out[URL_RUNS] = encode_runs(runs())
    if predictions():
        out[URL_PRED] = encode_predictions(predictions())
    return out

"""Widget values that outlive a visit to another page.

Streamlit drops a widget's state when a run of the app does not draw the widget, so a student who
opens another page and comes back finds page 7's knobs at their defaults. `restore` puts the last
value (or the default) into session state before the widget is drawn, and `keep` copies it into a
plain key afterwards. The widget's value comes from session state. A number box is also drawn with
that value as its default (value=), because a box a student clears goes back to its default, and
without one that is its min_value; Streamlit's warning about a default beside a session-state value
is turned off for the app (.streamlit/config.toml), as page 6's knobs need too.
"""
from __future__ import annotations

import streamlit as st

KEPT = "dg_kept"  # a plain key: the knobs' last values, which Streamlit drops with the widgets on another page


def kept() -> dict:
    return st.session_state.setdefault(KEPT, {})


def restore(key: str, default, valid=None) -> None:
    """Before the widget `key` is drawn: its value from the last visit, else `default` (either
    only where `valid(value)`, when given)."""
    if key in st.session_state:
        return
    for value in (kept().get(key), default):
        if value is not None and (valid is None or valid(value)):
            st.session_state[key] = value
            return


def keep(key: str) -> None:
    """After the widget `key` is drawn: remember its value for the next visit."""
    if key in st.session_state:
        kept()[key] = st.session_state[key]

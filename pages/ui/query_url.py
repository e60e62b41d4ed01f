"""Writing a page's setting into its URL as one change.

Each change Streamlit makes to the query string is an entry in the browser's history (a push, not a
replace), so a page that wrote its defaults into a bare URL on arrival, then dropped a key, left
two or three entries per visit, and the browser's Back seemed to do nothing. Writers here change
only the keys they own, all at once, and only when the URL does not already say it.
"""
from __future__ import annotations

from collections.abc import Iterable

import streamlit as st


def replace_owned(want: dict[str, str], owned: Iterable[str]) -> None:
    """Make the URL's `owned` query parameters exactly `want` (those not in it dropped), every
    other parameter as it is, in one change; none when the URL already says so."""
    owned = set(owned) | set(want)
    current = st.query_params.to_dict()
    new = {k: v for k, v in current.items() if k not in owned} | want
    if new != current:
        st.query_params.from_dict(new)

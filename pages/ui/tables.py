"""Small tables a student reads at a glance, on a laptop or a phone.

Every cell is text formatted here (counts as "3", not "3.0"; measurements to a few significant
figures, with their unit in the column or row name), shown with st.table: its cells wrap, so a
table fits the width it is given, where a data grid would hide columns off its right edge.
Tables that compare a few alternatives put one alternative per column and one quantity per
row (`compare`), which keeps them narrow.

st.table reads each cell and each column name as Markdown, so both are escaped (`safe_text.esc`: a value from a
recording shows as typed), and a long word gets break points after its dots, brackets and
underscores (a zero-width space), so `torch.compile(mode="reduce-overhead")` can wrap on a phone.
`plain(cell)` undoes both, for tests.
"""
from __future__ import annotations

import math
import re

import pandas as pd
import streamlit as st

from pages.ui.safe_text import esc, unescape

DASH = "—"
ZWSP = "\u200b"
LONG_WORD = 14  # characters: a word longer than this gets break points
_BREAK_AFTER = re.compile(r"([._(/=,:])(?=\S)")


def is_number(x) -> bool:
    """Whether a recording's value is a number a page may format (a bool or a string is not)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def num(x, digits: int = 3, unit: str = "") -> str:
    """`x` for a table cell: about `digits` significant figures, thousands separated.

    None or NaN -> "—"; True/False -> "yes"/"no"; whole numbers -> "3", "48,429";
    48429.07 -> "48,429"; 12.345 -> "12.3"; 0.012345 -> "0.0123"; 0.074 -> "0.074" (no trailing
    zeros); 0.0005 -> "0.0005"; 7.4506e-08 -> "7.45e-08". With unit "s", a time under 0.1 s is shown in ms (or µs):
    0.0157 s -> "15.7 ms", 2.86e-04 s -> "0.286 ms".
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return DASH
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, str):
        return x
    if unit == "s" and 0 < abs(x) < 0.1:  # a short time reads in ms or µs, not as 2.86e-04 s
        x, unit = x * 1e3, "ms"
        if abs(x) < 0.1:
            x, unit = x * 1e3, "µs"
    if isinstance(x, int) or (float(x).is_integer() and abs(x) < 1e15):
        text = f"{int(x):,}"
    else:
        a = abs(x)
        if a >= 10 ** (digits - 1):
            text = f"{x:,.0f}"
        elif a >= 1e-4:  # 0.0005 s in a seconds column reads as 0.0005, not 5.00e-04
            decimals = digits - 1 - math.floor(math.log10(a))
            text = f"{x:,.{decimals}f}".rstrip("0").rstrip(".")  # 0.0740 -> 0.074, 2.50 -> 2.5
        else:
            text = f"{x:.{digits - 1}e}"
    return f"{text}{unit}" if unit == "x" else f"{text} {unit}" if unit else text  # a factor: 3.27x, as in prose


def cell(value) -> str:
    """A table cell: `num(value)`, escaped for Markdown, long words made breakable."""
    words = esc(num(value), max_chars=None).split(" ")
    return " ".join(_BREAK_AFTER.sub(r"\1" + ZWSP, w) if len(unescape(w)) > LONG_WORD else w for w in words)


def plain(text: str) -> str:
    """What a reader sees of a `cell`: no escapes, no break points."""
    return unescape(text.replace(ZWSP, ""))


def cells(rows: list[dict]) -> list[dict]:
    """`rows` (dicts with the same keys, the column names) with each value and each column name
    through `cell`: what `show` draws, for a caller that keeps it across reruns."""
    return [{cell(k): cell(v) for k, v in r.items()} for r in rows]


def show(rows: list[dict], escaped: bool = False) -> None:
    """A table of `rows` (dicts with the same keys, the column names): each value and each column
    name through `cell` (st.table renders both as Markdown; a column can be named after a
    recording's device). `escaped`: the rows are `cells`' output already."""
    if not rows:
        return
    st.table(pd.DataFrame(rows if escaped else cells(rows)), hide_index=True)


def compare(corner: str, names: list[str], quantities: list[tuple[str, list]]) -> None:
    """One column per alternative (`names`), one row per quantity: [(row label, [value per name])].

    `corner` heads the column of row labels (e.g. "per step")."""
    show([{corner: label, **{n: v for n, v in zip(names, values)}} for label, values in quantities])

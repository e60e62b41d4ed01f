"""The widget's knobs: defaults, URL query parameters, and the sidebar-free control panel.

Knob values live in st.session_state under `w_*` keys and are mirrored into the URL, so a
setting can be shared as a link. Junk in the URL falls back to the defaults with a notice.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from runtime_core.model.formulas import SEED_N, SEED_TAX_US, SEED_WORK_US

MODES = ("eager", "streams", "graph")
POLICIES = ("fallback", "recapture", "bucket")
N_RANGE = (1, 2000)
TAX_RANGE = (0.5, 100.0)
WORK_RANGE = (0.0, 200.0)
DEFAULTS = {"w_n": SEED_N, "w_tax": SEED_TAX_US, "w_work": SEED_WORK_US, "w_mode": "graph",
            "w_dynamic": False, "w_policy": "fallback"}
URL_NAMES = {"w_n": "n", "w_tax": "tax", "w_work": "work", "w_mode": "mode", "w_dynamic": "dynamic",
             "w_policy": "policy"}


@dataclass(frozen=True)
class Knobs:
    """One widget setting. tax_us is what the student asked for (it may be below a GPU's floor)."""

    n: int
    tax_us: float
    work_us: float
    mode: str
    dynamic: bool
    policy: str


def _parse(key: str, text: str):
    """Parse one URL value; raise ValueError with the reason if it's junk."""
    if key == "w_n":
        v = float(text)
        if not v.is_integer() or not N_RANGE[0] <= v <= N_RANGE[1]:
            raise ValueError(f"n must be a whole number in {N_RANGE[0]}–{N_RANGE[1]}")
        return int(v)
    if key in ("w_tax", "w_work"):
        lo, hi = TAX_RANGE if key == "w_tax" else WORK_RANGE
        v = float(text)
        if not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(f"{URL_NAMES[key]} must be a number in {lo:g}–{hi:g} µs")
        return v
    if key == "w_mode":
        if text not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        return text
    if key == "w_dynamic":
        if text.lower() not in ("0", "1", "true", "false"):
            raise ValueError("dynamic must be 0 or 1")
        return text.lower() in ("1", "true")
    if text not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}")
    return text


STORE = "wk_setting"  # a plain (non-widget) key: survives pages where the knobs aren't drawn


def init_from_url() -> list[str]:
    """Make sure the knob widgets have values; return notices for junk URL values.

    The first run of a session reads the URL. Later runs restore the knobs from STORE, because
    Streamlit forgets a widget's state on a page that doesn't draw it.
    """
    notices = []
    if STORE not in st.session_state:
        setting = {}
        for key, default in DEFAULTS.items():
            raw = st.query_params.get(URL_NAMES[key])
            setting[key] = default
            if raw is not None:
                try:
                    setting[key] = _parse(key, raw)
                except ValueError as e:
                    notices.append(f"URL `{URL_NAMES[key]}={raw}` ignored: {e}; using the default {default}.")
        st.session_state[STORE] = setting
    for key in DEFAULTS:
        if key not in st.session_state:
            st.session_state[key] = st.session_state[STORE][key]
    return notices


def remember(k: "Knobs") -> None:
    """Keep the current setting in STORE (called after the knobs are drawn)."""
    st.session_state[STORE] = {"w_n": k.n, "w_tax": k.tax_us, "w_work": k.work_us, "w_mode": k.mode,
                               "w_dynamic": k.dynamic, "w_policy": k.policy}


def write_url(k: Knobs) -> None:
    """Mirror the knobs into the URL (only when they changed, to avoid extra reruns)."""
    want = {"n": str(k.n), "tax": f"{k.tax_us:g}", "work": f"{k.work_us:g}", "mode": k.mode,
            "dynamic": "1" if k.dynamic else "0", "policy": k.policy}
    if {q: st.query_params.get(q) for q in want} != want:
        st.query_params.update(want)


def render(tax_floor_us: float | None, floor_of: str = "this GPU") -> Knobs:
    """Draw the knobs and return the setting. `tax_floor_us` is the measured GPU's intrinsic
    tax (`floor_of` names that GPU); the textbook model and the simulator have no floor."""
    c1, c2, c3 = st.columns(3)
    c1.slider("kernels in chain, N", *N_RANGE, key="w_n")
    help_tax = ("Host cost of one launch. The textbook model and the simulator take it as given.")
    if tax_floor_us is not None:
        help_tax += (f" On {floor_of} a launch costs {tax_floor_us:.1f} µs: that is the floor for the "
                     "measured numbers, and anything above it is added as real host work.")
    c2.number_input("per-launch CPU tax (µs)", min_value=TAX_RANGE[0], max_value=TAX_RANGE[1],
                    step=0.5, key="w_tax", help=help_tax)
    c3.number_input("per-kernel GPU work (µs)", min_value=WORK_RANGE[0], max_value=WORK_RANGE[1],
                    step=1.0, key="w_work", help="How long each kernel keeps the GPU busy.")
    c4, c5, c6 = st.columns([4, 3, 3])
    c4.radio("dispatch mode", MODES, key="w_mode", horizontal=True,
             help="eager = blocking (sync after every launch); streams = async, PyTorch's own "
                  "eager; graph = capture once, replay with one call")
    c5.checkbox("dynamic shapes", key="w_dynamic", help="the input shape changes on every call")
    c6.selectbox("on a shape miss", POLICIES, key="w_policy",
                 disabled=not (st.session_state["w_dynamic"] and st.session_state["w_mode"] == "graph"),
                 help="fallback: run eagerly; recapture: capture per shape (LRU cache of 4); "
                      "bucket: pad to a power-of-two size that has a graph")
    if tax_floor_us is not None and st.session_state["w_tax"] < tax_floor_us:
        st.caption(f"Measured numbers can't go below {floor_of}'s own launch tax of {tax_floor_us:.1f} µs, "
                   "so they use that floor; the textbook model and the simulator use your value.")
    s = st.session_state
    k = Knobs(int(s["w_n"]), float(s["w_tax"]), float(s["w_work"]), s["w_mode"], bool(s["w_dynamic"]),
              s["w_policy"])
    remember(k)
    return k

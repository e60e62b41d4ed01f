"""The widget's knobs: defaults, URL query parameters, and the sidebar-free control panel.

Knob values live in st.session_state under `w_*` keys and are mirrored into the URL, so a
setting can be shared as a link. Junk in the URL falls back to the defaults with a notice.
"""
from __future__ import annotations

import math

import streamlit as st

from pages.ui import progress
from pages.ui.query_url import replace_owned
from pages.ui.safe_text import md
from runtime_core.errors import UsageError
from runtime_core.lesson.page_text import text as prose
from runtime_core.knobs import (LIMITS, SEED_N, SEED_TAX_US, SEED_WORK_US, GraphInput, Knobs, Mode, Policy,
                                choices, mode_label, parse_enum)

MODES = choices(Mode)
POLICIES = choices(Policy)
GRAPH_INPUTS = choices(GraphInput)
WIDGET = LIMITS["widget"]
N_RANGE = (int(WIDGET["n"].lo), int(WIDGET["n"].hi))
TAX_RANGE = (WIDGET["tax_us"].lo, WIDGET["tax_us"].hi)
WORK_RANGE = (WIDGET["work_us"].lo, WIDGET["work_us"].hi)
DEFAULTS = {"w_n": SEED_N, "w_tax": SEED_TAX_US, "w_work": SEED_WORK_US, "w_mode": "graph",
            "w_dynamic": False, "w_policy": "fallback", "w_input": "copy"}
URL_NAMES = {"w_n": "n", "w_tax": "tax", "w_work": "work", "w_mode": "mode", "w_dynamic": "dynamic",
             "w_policy": "policy", "w_input": "input"}
KNOB_NAMES = {"w_n": "n", "w_tax": "tax_us", "w_work": "work_us"}


def _parse(key: str, text: str):
    """Parse one URL value; raise UsageError with the reason if it's junk."""
    if key in KNOB_NAMES:
        return WIDGET[KNOB_NAMES[key]].parse(URL_NAMES[key], text)
    if key == "w_mode":
        return parse_enum(Mode, "mode", text).value
    if key == "w_dynamic":
        if text.lower() not in ("0", "1", "true", "false"):
            raise UsageError("dynamic must be 0 or 1")
        return text.lower() in ("1", "true")
    if key == "w_input":
        return parse_enum(GraphInput, "input", text).value
    return parse_enum(Policy, "policy", text).value


def _url_form(value) -> str:
    """A default as the URL would write it: dynamic=0, tax=6 (not False, 6.0)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return f"{value:g}" if isinstance(value, float) else str(value)


STORE = "wk_setting"  # a plain (non-widget) key: survives pages where the knobs aren't drawn
KNOB_NOTICES = "wk_url_notices"  # plain key: the URL's junk knob values, until page 6 or 9 names them


def init_from_url() -> list[str]:
    """Make sure the knob widgets have values; return notices for junk URL values.

    The first run of a session reads the URL. Later runs restore the knobs from STORE, because
    Streamlit forgets a widget's state on a page that doesn't draw it. A notice is Markdown
    with the URL value (and the error quoting it) escaped: a link is anyone's to craft.
    """
    notices = progress.init()  # the checkpoint's progress rides along in the same URL
    if STORE not in st.session_state:
        _store_from_url()
    notices += st.session_state.pop(KNOB_NOTICES, [])  # named here, in the knobs' own page, once
    for key in DEFAULTS:
        if key not in st.session_state:
            st.session_state[key] = st.session_state[STORE][key]
    return notices


def _store_from_url() -> None:
    """The setting the URL names (the defaults for what it leaves out) into STORE, and a notice
    for each junk value into KNOB_NOTICES."""
    setting, notices = {}, []
    for key, default in DEFAULTS.items():
        raw = st.query_params.get(URL_NAMES[key])
        setting[key] = default
        if raw is not None:
            try:
                setting[key] = _parse(key, raw)
            except UsageError as e:
                notices.append(md("URL value {name}={raw} ignored: {why}; using the default {name}={default}.",
                                  name=URL_NAMES[key], raw=raw, why=e, default=_url_form(default)))
    st.session_state[STORE] = setting
    st.session_state[KNOB_NOTICES] = notices


def carry_url() -> list[str]:
    """On a page without the knobs, the widget's setting rides in its URL as the checkpoint's
    progress does, so a reload there (or its link, shared) keeps it for page 6 and the checkpoint:
    a session's first run reads it when the URL names a knob, and every run writes back a setting
    other than the defaults (and drops the knobs' keys for the defaults), with the progress, in one
    URL change (query_url.replace_owned). Returns notices for junk
    URL values not yet handed to page 6 or the checkpoint (they show them in their main column, as
    the progress's are: progress.pending)."""
    if STORE not in st.session_state and any(q in st.query_params for q in URL_NAMES.values()):
        _store_from_url()
    replace_owned(_url_params(st.session_state.get(STORE, DEFAULTS)) | progress.url_params(), URL_OWNED)
    return list(st.session_state.get(KNOB_NOTICES, []))


URL_OWNED = (*URL_NAMES.values(), *progress.URL_NAMES)  # the knobs' keys and the checkpoint's progress


def _url_params(setting: dict) -> dict[str, str]:
    """The knobs' query parameters for `setting`: all of them where any knob is off its default,
    none at the defaults (a bare link opens on them, and a visit at them writes nothing)."""
    if all(setting[key] == DEFAULTS[key] for key in DEFAULTS):
        return {}
    return {URL_NAMES[key]: _url_form(value) for key, value in setting.items()}


def _setting(k: Knobs) -> dict:
    """`k` as the session keeps it: knob key -> value."""
    return {"w_n": k.n, "w_tax": k.tax_us, "w_work": k.work_us, "w_mode": k.mode.value, "w_dynamic": k.dynamic,
            "w_policy": k.policy.value, "w_input": k.graph_input.value}


def remember(k: Knobs) -> None:
    """Keep the current setting in STORE (called after the knobs are drawn)."""
    st.session_state[STORE] = _setting(k)


def link_params() -> dict[str, str]:
    """What a link to another page of the app carries in its URL: the knobs' setting as the session
    holds it now (the knobs' own keys, which a change has already set when the sidebar is drawn,
    else STORE) and the progress. The page it opens then finds its URL written: one browser
    history entry per page visited, not two."""
    if STORE not in st.session_state and any(q in st.query_params for q in URL_NAMES.values()):
        _store_from_url()  # a session's first run: the sidebar is drawn before the knobs read the URL
    progress.pending()  # the progress too (loaded from the URL once, on the session's first run)
    stored = st.session_state.get(STORE, DEFAULTS)
    return _url_params({key: st.session_state.get(key, stored[key]) for key in DEFAULTS}) | progress.url_params()


def write_url(k: Knobs) -> None:
    """Mirror the knobs (none at the defaults), and the checkpoint's progress, into the URL, in one
    change and only when it differs (each change is a rerun and a browser history entry)."""
    replace_owned(_url_params(_setting(k)) | progress.url_params(), URL_OWNED)


N_STOPS = [n for n in (1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200, 300, 400, 500,
                        700, 1000, 1500, 2000) if N_RANGE[0] <= n <= N_RANGE[1]]


def nearest_stop(n: int) -> int:
    """The slider stop nearest to `n` on a log scale (the slider's stops are log-spaced)."""
    return min(N_STOPS, key=lambda s: abs(math.log(s) - math.log(max(n, 1))))


def slider_stops(n: int) -> list[int]:
    """The slider's stops, with a typed N between two stops added as a stop of its own, so the
    slider shows the N the numbers are for (130 typed shows 130, not the nearest stop, 120)."""
    return N_STOPS if n in N_STOPS else sorted(N_STOPS + [n])


N_GEN = "wk_n_gen"  # plain key: the generation of the N slider's and the N box's widget keys


def _n_key(which: str) -> str:
    """The current key of the N slider ("pick") or the N box ("box")."""
    gen = st.session_state.setdefault(N_GEN, {"pick": 0, "box": 0})
    return f"w_n_{which}_{gen[which]}"


def _n_from(key: str, which: str) -> None:
    """on_change of the slider or the box: its value is the new N (the plain key w_n). A widget
    the page no longer draws (an older key: the browser had not seen the run that replaced it)
    changes nothing; Streamlit still holds its callback, and its state reads as new. Nor does one
    whose state Streamlit has already dropped: a sidebar link clicked while the box still held
    typing calls the callback at the start of the next page's run, and there the key is gone."""
    value = st.session_state.get(key)
    if key == _n_key(which) and value is not None:
        st.session_state["w_n"] = int(value)


# The knobs' rows (N's slider beside its box; the tax beside the work) stack when their column is
# narrower than KNOB_ROW_MIN_PX, whatever the screen: beside page 6's result column at 1024 px the
# N box was 36 px wide and showed "12" of 120, and at 800 px the slider was 90 px long.
KNOB_ROW_MIN_PX = 220
KNOB_ROWS_CSS = ("<style>.st-key-knob_rows { container-type: inline-size; } @container (max-width: %dpx) {"
                 " .st-key-knob_rows [data-testid=\"stHorizontalBlock\"] { flex-wrap: wrap !important; }"
                 " .st-key-knob_rows [data-testid=\"stHorizontalBlock\"] > [data-testid=\"stColumn\"]"
                 " { min-width: 100%% !important; width: 100%% !important; flex: 1 1 100%% !important; } }</style>"
                 % KNOB_ROW_MIN_PX)


def render_n() -> None:
    """N as a log-spaced slider (a mouse can hit 10 and 120) beside a box that takes any value;
    the two stay in step. N itself lives in the plain key w_n; the slider shows it (slider_stops).

    The server never sets either widget's value. When N changed by other means than a widget (the
    other widget, the URL, another page), that widget is drawn anew under a fresh key, with N as
    its default. A browser that has not yet seen that run (the student's next change came first,
    or interrupted the run and Streamlit dropped its messages) still sends the old widget's value:
    its on_change is ignored (_n_from), so it cannot put the old N back, as the slider and the box
    did to each other under load."""
    n = int(st.session_state["w_n"])
    gen = st.session_state.setdefault(N_GEN, {"pick": 0, "box": 0})
    for which in ("pick", "box"):
        key = f"w_n_{which}_{gen[which]}"
        if key in st.session_state and int(st.session_state[key]) != n:
            gen[which] += 1
    pick, box = _n_key("pick"), _n_key("box")
    a, b = st.columns([5, 2], vertical_alignment="bottom")
    a.select_slider("kernels in the chain, N", slider_stops(n), value=n, key=pick, on_change=_n_from,
                    args=(pick, "pick"), help="Log-spaced stops. Type any N from "
                         f"{N_RANGE[0]} to {N_RANGE[1]:,} in the box beside it.")
    b.number_input("N", min_value=N_RANGE[0], max_value=N_RANGE[1], value=n, step=1, key=box,
                   on_change=_n_from, args=(box, "box"), label_visibility="hidden")


def render(tax_floor_us: float | None, floor_of: str = "this GPU", graph_input: bool = True) -> Knobs:
    """Draw the knobs (laid out for a narrow column) and return the setting. `tax_floor_us` is
    the measured GPU's intrinsic tax (`floor_of` names that GPU); the textbook model and the
    simulator have no floor. `graph_input`: False on a page whose runs always copy into the
    captured input (the checkpoint's): the knob is not drawn, a line says so, and the setting
    keeps the session's choice for the pages that use it."""
    # Every knob is drawn with its current value as the element's default, not only as a one-shot
    # set_value: Streamlit drops a run's unsent messages when a rerun interrupts it, and a browser
    # that missed the one-shot mounts the widget from its default and sends that back with its next
    # change (under load, N became the box's min_value, 1: tests/test_knob_defaults.py).
    s = st.session_state
    rows = st.container(key="knob_rows")
    rows.html(KNOB_ROWS_CSS)
    with rows:
        render_n()
        c2, c3 = st.columns(2)
    help_tax = ("Host cost of one launch. The textbook model and the simulator take it as given.")
    if tax_floor_us is not None:
        help_tax += (f" On {floor_of} a launch costs about {tax_floor_us:.1f} µs on average: that is the floor "
                     "for the measured numbers, and anything above it is added as real host work.")
    c2.number_input("CPU tax / launch (µs)", min_value=TAX_RANGE[0], max_value=TAX_RANGE[1],
                    value=float(s["w_tax"]), step=0.5, key="w_tax", help=help_tax, format="%g")
    c3.number_input("GPU work / kernel (µs)", min_value=WORK_RANGE[0], max_value=WORK_RANGE[1],
                    value=float(s["w_work"]), step=1.0, key="w_work", format="%g",
                    help="How long each kernel keeps the GPU busy.")
    # the boxes refuse a value outside these only in a hover tooltip, which a phone cannot show
    st.caption(prose("widget", "knob_ranges", n=f"{N_RANGE[0]}–{N_RANGE[1]:,}",
                     tax=f"{TAX_RANGE[0]:g}–{TAX_RANGE[1]:g}", work=f"{WORK_RANGE[0]:g}–{WORK_RANGE[1]:g}"))
    st.radio("dispatch mode", MODES, index=MODES.index(s["w_mode"]), key="w_mode", horizontal=True,
             format_func=mode_label,
             help="eager = blocking (sync after every launch); streams = async, PyTorch's own "
                  "eager; graph = capture once, replay with one call")
    st.checkbox("dynamic shapes", value=bool(s["w_dynamic"]), key="w_dynamic",
                help="the input shape changes on every call")
    st.selectbox("on a shape miss", POLICIES, index=POLICIES.index(s["w_policy"]), key="w_policy",
                 disabled=not (st.session_state["w_dynamic"] and st.session_state["w_mode"] == "graph"),
                 help="fallback: dispatch without the graph (asynchronously, as PyTorch does; the "
                      "seed's textbook snaps back to eager); recapture: capture per shape (LRU cache "
                      "of 4); bucket: pad to a power-of-two size that has a graph")
    if graph_input:
        st.radio("graph input", GRAPH_INPUTS, index=GRAPH_INPUTS.index(s["w_input"]), key="w_input",
                 horizontal=True, disabled=st.session_state["w_mode"] != "graph" or st.session_state["w_dynamic"],
                 help="copy: each request arrives in a fresh buffer and is copied into the captured one "
                      "before the replay; zero-copy: the producer writes it straight into the captured "
                      "buffer (as serving engines do with token ids), so the step has no copy; off with "
                      "dynamic shapes")
    else:
        st.caption(prose("checkpoint", "graph_input_copy"))
    if tax_floor_us is not None and st.session_state["w_tax"] < tax_floor_us:
        st.caption(f"Measured numbers can't go below {floor_of}'s own launch tax (about {tax_floor_us:.1f} µs "
                   "on average; one point can land a little under or over it, as the host's pace drifts), so "
                   "they keep it; the textbook model and the simulator use your value (the simulator for each kernel "
                   "launch: a graph replay's one launch has a cost of its own there).")
    k = Knobs(s["w_mode"], int(s["w_n"]), float(s["w_work"]), tax_us=float(s["w_tax"]),
              dynamic=bool(s["w_dynamic"]), policy=s["w_policy"], graph_input=s["w_input"]).validate("widget")
    remember(k)
    return k

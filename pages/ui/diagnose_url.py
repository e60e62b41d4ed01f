"""Page 7's setting in the URL: read on a session's first run (a reload, a shared link), written
back after every run, and what a link asks for that the recording does not hold, said once."""
from __future__ import annotations

import streamlit as st

from pages.ui.query_url import replace_owned
from pages.ui.safe_text import md

URL_NAMES = {"dg_model": "model", "dg_dtype": "dtype", "dg_seq": "shape", "dg_batch": "batch"}
ALIASES = {"shape": "seq"}  # the CLI's --seq: read as shape, then written back as shape alone
URL_READ = "dg_url_asked"  # plain key: the setting the URL asked for, read on a session's first run
URL_FIX = "dg_url_fix"     # plain key: knob keys to set (None: drop) before the next run draws them
URL_BASE = "dg_url_base"   # plain key: the setting a bare URL opens on (None until to_url first sees it)
URL_OWNED = (*URL_NAMES.values(), *ALIASES.values())


def from_url(names: dict) -> dict:
    """On a session's first run of this page, the setting its URL names (a reload, a shared link)
    goes into the knobs' keys; the knobs then keep only what the recording holds. `names`: knob
    key -> its recorded options, matched without regard to case (a link typed by hand: "Encoder").
    Returns what the URL asked for on this run ({} on every later one), for url_notices."""
    for key, value in st.session_state.pop(URL_FIX, {}).items():  # the last run's URL values not taken
        if value is None:
            st.session_state.pop(key, None)
        else:
            st.session_state[key] = value
    if URL_READ in st.session_state:
        return {}
    if not any(q in st.query_params for q in URL_OWNED):
        st.session_state[URL_BASE] = None  # a bare URL: the first setting to_url sees is the defaults
    asked = {}
    for key, name in URL_NAMES.items():
        alias = ALIASES.get(name)   # never the empty key: "?=7" names nothing
        raw = (st.query_params.get(name) or (st.query_params.get(alias) if alias else None) or "").strip()
        if raw and key not in st.session_state:  # an empty value asks for nothing
            # ASCII digits only: "²".isdigit() is True, and int("²") raises
            number = key in ("dg_seq", "dg_batch") and raw.isascii() and raw.isdigit()
            match = next((o for o in names.get(key, ()) if o.lower() == raw.lower()), None)
            st.session_state[key] = asked[name] = int(raw) if number else match or raw
    st.session_state[URL_READ] = True
    return asked


def url_notices(asked: dict, model: str, dtype: str) -> None:
    """A line for a model or dtype in the URL that the recording does not hold, naming what is
    shown instead (a shape or batch it lacks is said beside its own knob)."""
    got = {"model": model, "dtype": dtype}
    for name, raw in asked.items():
        if name in got and got[name] != raw:
            st.warning(md("The link asks for {name}={raw}, which is not recorded here: showing {name}={got}.",
                          name=name, raw=raw, got=got[name]))


def to_url(model: str, dtype: str, batch: int, seq: int | None) -> None:
    """Mirror the setting into the URL, so a reload or a shared link opens on it: in one change,
    only when it differs (each change is a rerun and a browser history entry), and nothing at the
    defaults a bare URL opens on (a visit that changes nothing adds no history entry)."""
    want = {"model": model, "dtype": dtype, "batch": str(batch)}
    if seq is not None:
        want["shape"] = str(seq)
    if st.session_state.get(URL_BASE, "") is None:  # this session opened on a bare URL: these are its defaults
        st.session_state[URL_BASE] = want
    replace_owned({} if want == st.session_state.get(URL_BASE) else want, URL_OWNED)  # an alias, read once, goes


def drop_untaken(asked: dict, taken: dict) -> None:
    """A URL value the page did not take is said once (in a warning, or beside its knob), then
    dropped before the next run: it was never the reader's choice, so it must not come back when
    another model offers it. `taken`: knob key -> the value shown (None: no such knob here)."""
    fix = {key: taken[key] for key, name in URL_NAMES.items()
           if name in asked and key in taken and st.session_state.get(key) != taken[key]}
    if fix:
        st.session_state[URL_FIX] = fix


# The evidence timeline's view: the step drawn and the close-up, in the URL where they are not the
# defaults, so a shared link shows the timeline the sharer saw.
VIEW_URL = {"dg_tl_variant": ("step", {"graph": "our_graph", "eager": "eager"}),
            "dg_tl_close": ("closeup", {"1": True, "0": False})}
VIEW_READ = "dg_view_url_read"  # plain key: the view's URL values were read (a session's first run)


def view_from_url() -> None:
    """On a session's first run of the page, the view its URL names goes into the widgets' keys
    (before kept_state.restore, which then keeps it); a value that is none of them is said once."""
    if VIEW_READ in st.session_state:
        return
    st.session_state[VIEW_READ] = True
    for key, (name, values) in VIEW_URL.items():
        raw = st.query_params.get(name)
        if raw is None:
            continue
        if raw in values:
            st.session_state[key] = values[raw]
        else:
            st.warning(md("URL value {name}={raw} ignored: it is one of {ok}.", name=name, raw=raw,
                          ok=" or ".join(values)), icon=":material/warning:")


def view_to_url(variant: str, close: bool | None) -> None:
    """The view into the URL: nothing at the defaults (eager, drawn whole). `close` None: the
    close-up is not offered here, and the URL's word on it stays as it is."""
    want = {"step": "graph"} if variant == "our_graph" else {}
    if close:
        want["closeup"] = "1"
    replace_owned(want, ["step"] + (["closeup"] if close is not None else []))

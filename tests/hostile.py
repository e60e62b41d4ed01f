"""Hostile input for the inert-text tests: a folder of recordings whose every free-text field
carries a payload, URL values and typed-list entries that are links, images and autolinks.

A recording is data from another machine: its device name, model names, labels, verdicts,
messages and file names reach the page. `hostile_recordings(folder)` copies every shipped
recording of lessons/recordings/ into `folder` with the payload appended to each free-text
string (so the value still reads as itself, then the payload), model names renamed the same way
everywhere they are keys or values, and file names that carry a payload too. Each copy still
passes its JSON schema (checked here), so the app shows it rather than skipping it.

Used by tests/test_inert_text.py (AppTest, every page) and tests/browser/test_no_foreign_links.py
(Chromium, every page).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from pages.ui.safe_text import live_constructs, live_markup
from pages.ui.tables import plain

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "lessons" / "recordings"
MARKER = "evil"  # every payload carries it: its traces can be found on the page
DOMAIN = "evil.example"

# One of everything Streamlit's Markdown would make live: a link, an image, the three autolink
# literals (https://, www., an e-mail), mailto:, an HTML image, bold and a Streamlit colour; and the
# HTML link Plotly reads in a chart's labels and hover text.
PAYLOAD = (f"[click](https://{DOMAIN}/c) ![i](https://{DOMAIN}/i.png) https://{DOMAIN}/x www.{DOMAIN} "
           f"a@{DOMAIN} mailto:m@{DOMAIN} <img src=https://{DOMAIN}/h.png> **evil** :red[evil] "
           f"<a href=\"https://{DOMAIN}/p\">p</a>")
# Before the value, so a place that shows only its first characters shows it too (a column header
# cut to 16 characters, an option cut to 60): an image, then bold.
SHORT = f"![](//{DOMAIN}/s)**evil**"
# A file name cannot hold a "/": the same without slashes.
FILE_PAYLOAD = f"![i](https:{DOMAIN}) www.{DOMAIN} a@{DOMAIN} [x](http:{DOMAIN})"

# Strings the app reads as a value from a fixed set (a schema enum, a lookup key, a date, a badge
# name): left as they are, since a recording holding anything else is skipped or is not shown.
STRUCTURAL = {
    "kind", "backend", "recorded_at", "measured_at", "lab", "source", "mode", "dtype", "lane",
    "preset", "variant", "graph_input", "dynamic_policy", "launcher", "miss_runs", "behaviour",
    "device", "signal", "input_check", "error_type", "block_state_at_free", "set", "statistic",
}
BADGES = {"live", "recorded", "simulated", "model", "cpu"}  # "source" is a badge there, free text elsewhere
# Keys under which a string names a model of a diagnose recording (renamed consistently).
MODEL_KEYS = {"model"}


def hostile_text(text: str) -> str:
    """`text` between the short payload and the long one (empty stays empty: it means "none")."""
    return f"{SHORT} {text} {PAYLOAD}" if text else text


def _models(doc: dict) -> dict[str, str]:
    """A diagnose recording's model names -> their hostile names (no "|": timeline keys use it)."""
    names = list((doc.get("meta") or {}).get("models") or {})
    return {m: hostile_text(m) for m in names}


def _timeline_key(key: str, models: dict[str, str]) -> str:
    head, sep, rest = key.partition("|")
    return models.get(head, head) + sep + rest


def _walk(value, key: str, models: dict[str, str]):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if key == "models":  # meta.models: keyed by model name
                nk = models.get(k, k)
            elif key == "timelines":  # "model|fp32|b=1|seq=128|eager" (diagnose) or a sweep's grid key
                nk = _timeline_key(k, models)
            else:
                nk = k
            out[nk] = _walk(v, k if key not in ("models", "timelines") else key + ".item", models)
        return out
    if isinstance(value, list):
        return [_walk(v, key, models) for v in value]
    if isinstance(value, str):
        if key in MODEL_KEYS:
            return models.get(value, value)
        if (key in STRUCTURAL and (key != "source" or value in BADGES)) or key.endswith(".item"):
            return value
        return hostile_text(value)
    return value


def hostile_doc(doc: dict) -> dict:
    """A copy of the recording `doc` with the payload in every free-text string."""
    return _walk(doc, "", _models(doc))


def hostile_recordings(folder: Path) -> list[Path]:
    """Hostile copies of every shipped recording in `folder` (each under a hostile file name that
    keeps its kind's prefix), plus a second sweep, so the sidebar's picker and the comparison of
    recordings show one too. Returns the files written. Each copy is checked against its schema."""
    from runtime_core.recordings import store
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(SHIPPED.glob("*.json")):
        doc = hostile_doc(json.loads(path.read_text(encoding="utf-8")))
        names = [f"{path.stem}_{FILE_PAYLOAD}.json"]
        if doc["meta"]["kind"] == "sweep":
            names.append(f"{path.stem}_second {FILE_PAYLOAD}.json")
        for name in names:
            out = folder / name
            out.write_text(json.dumps(doc), encoding="utf-8")
            store.load(out)  # still a valid recording: the app shows it, it does not skip it
            written.append(out)
    return written


def hostile_aot_cache(folder: Path) -> None:
    """An AOT cache folder (RUNTIME_CORE_AOT_CACHE) holding this machine's "measured" results, cold
    vs warm and serving, taken from the shipped GPU recordings with the payload in every text
    field: what child processes wrote (device names, paths, compiler and crash lines)."""
    from runtime_core.cache_paths import MARKER, torch_tag
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_text("runtime_core AOT cache: clear-cache may empty this folder\n")
    for kind, prefix in (("aot", "results"), ("serving", "serving")):
        docs = (json.loads(f.read_text(encoding="utf-8")) for f in sorted(SHIPPED.glob(f"{kind}_*.json")))
        shipped = next(doc for doc in docs if doc["meta"]["kind"] == kind)  # aot_timing_*.json is another kind
        res = dict(hostile_doc(shipped)[kind], device="cpu")
        (folder / f"{prefix}-cpu-{torch_tag()}.json").write_text(json.dumps(res), encoding="utf-8")


# ---- URL values and typed text -------------------------------------------------------------------
URL_VALUES = {  # the widget's and the checkpoint's URL keys, each a payload
    "n": f"https://{DOMAIN}/n", "tax": f"www.{DOMAIN}", "work": f"![i](https://{DOMAIN}/w.png)",
    "mode": f"https://{DOMAIN}/x", "dynamic": f"[log in again](https://{DOMAIN}/)", "policy": f"a@{DOMAIN}",
    "input": f"mailto:b@{DOMAIN}", "ck": f"g120t6w2.https://{DOMAIN}/ck", "ckp": f"eager:www.{DOMAIN}",
}
# The bucket planner's typed list of request sizes (page 7): entries a student could paste.
PLANNER_LISTS = {
    "link": f"1, 2, [click](http://e.vl), 4 [log in](https://{DOMAIN}/)",
    "image": f"1, ![i](http://e.vl/i), 8 ![j](https://{DOMAIN}/j.png)",
    "markup": "1, **bold**:red[RED], 2",
    "autolinks": f"1, https://{DOMAIN}/x, www.{DOMAIN}, a@{DOMAIN}",
    "html": "1, <b>evil</b>, <img/src=x>, 3",
}


def copy_shipped(folder: Path) -> None:
    """The shipped recordings, unchanged (for tests that add one hostile file beside them)."""
    for path in SHIPPED.glob("*.json"):
        shutil.copy(path, folder / path.name)


# ---- what a page renders, and what of it is live -------------------------------------------------
# Streamlit's own constructs (links, images, tags and autolinks: live_constructs): a colour, an icon,
# and maths or bold right at the marker.
LIVE = (":red[", ":material/")
# In a Plotly figure's JSON (field "spec") no Markdown runs, but Plotly reads <a href>, <b>, <img>.
SPEC_LIVE = ("<img", "<script", "<a ", "<b>")
# Elements that show their text verbatim (no Markdown), and proto fields that are not shown.
# st.table is not here: Streamlit renders its cells and its column names as Markdown (below).
VERBATIM = {"code", "text", "json", "dataframe", "arrow_data_frame"}
NOT_SHOWN = {"id", "url", "arrow_data", "raw_value", "form_id"}
# A selectbox's and a multiselect's options are plain text in the browser (checked in Chromium:
# a link there shows as typed); their label, help and placeholder are Markdown.
PLAIN_FIELDS = {("selectbox", "options"), ("multiselect", "options"), ("selectbox", "default"),
                ("multiselect", "default")}


def live_in(text: str, marker: str = MARKER) -> list[str]:
    """What of `text` still renders as more than its characters: links, images, tags and
    autolinks (checked against what GFM's autolink finder sees, escapes resolved), and
    Streamlit's directives, maths or bold at the marker."""
    live = live_markup(text).lower()
    marker = marker.lower()
    return live_constructs(text) + [c for c in (*LIVE, "$" + marker, "**" + marker) if c in live]


def _elements(node):
    kids = getattr(node, "children", None)
    if kids is not None:
        for k in (kids.values() if isinstance(kids, dict) else kids):
            yield from _elements(k)
    yield node


def _strings(msg):
    """Every string a protobuf message holds (recursively), but fields in NOT_SHOWN."""
    for field, value in msg.ListFields():
        if field.name in NOT_SHOWN:
            continue
        values = value if isinstance(value, (list, tuple)) or _repeated(value) else [value]
        for v in values:
            if isinstance(v, str):
                yield field.name, v
            elif hasattr(v, "ListFields"):
                yield from _strings(v)


def _repeated(value) -> bool:
    return hasattr(value, "__len__") and not isinstance(value, (str, bytes)) and not hasattr(value, "ListFields")


def _table_strings(el):
    """An st.table's column names and cells (Markdown in the browser)."""
    df = el.value
    for c in df.columns:
        yield "column", str(c)
    for row in df.itertuples(index=False):
        for v in row:
            if isinstance(v, str):
                yield "cell", v


def rendered_texts(at):
    """(element type, field, text) for every string the page renders as Markdown or in a chart."""
    out = []
    for el in _elements(at._tree):
        proto = getattr(el, "proto", None)
        kind = getattr(el, "type", "")
        if kind == "table":
            out += [(kind, field, text) for field, text in _table_strings(el)]
            continue
        if proto is None or not hasattr(proto, "ListFields") or kind in VERBATIM:
            continue
        out += [(kind, field, text) for field, text in _strings(proto) if (kind, field) not in PLAIN_FIELDS]
    return out


# Knobs whose widget key changes while the page runs (page 6's N: a slider and a box, redrawn under a
# fresh key when N changes elsewhere; its value lives in the plain key w_n): found by their label.
BY_LABEL = {"w_n": ("number_input", "N")}


def widget(at, key: str):
    """The widget with `key` anywhere on the page (main area or sidebar)."""
    if key in BY_LABEL:
        kind, label = BY_LABEL[key]
        found = [el for el in getattr(at, kind) if el.label == label]
        assert found, f"no {kind} labelled {label!r} on the page"
        return found[0]
    found = [el for el in _elements(at._tree) if getattr(el, "key", None) == key]
    assert found, f"no widget with key {key!r} on the page"
    return found[0]


def live_findings(at, marker: str = MARKER) -> tuple[list[str], list[str]]:
    """(every rendered string carrying `marker` (any case), one line per such string that is
    still live)."""
    found, live = [], []
    for kind, field, text in rendered_texts(at):
        if marker.lower() not in plain(text).lower():  # as a reader sees it: "e.vl" is "e\\.vl" escaped
            continue
        found.append(text)
        bad = [c for c in SPEC_LIVE if c in text] if field == "spec" else live_in(text, marker)
        if bad:
            live.append(f"{kind}.{field} renders {bad[:4]}: {text[:240]!r}")
    return found, live

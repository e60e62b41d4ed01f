"""Outside text never renders as Markdown or HTML: the escape helper, and every page fed crafted
URL query values (links, images, HTML tags, autolinks, very long values)."""
from pathlib import Path

import pytest

from pages.ui.safe_text import MARKDOWN_SPECIAL, esc, live_markup, md, plot_text, unescape

ROOT = Path(__file__).resolve().parents[1]
PAGES = [None] + sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py")
                        if p.name != "__init__.py")
URL_KEYS = ("n", "tax", "work", "mode", "dynamic", "policy")  # pages/ui/knobs.py URL_NAMES
MARKER = "evil"  # every payload carries it, so its traces can be found on the page

PAYLOADS = {
    "link": "[log in again](https://evil.example/login)",
    "image": "![x](https://evil.example/a.png)",
    "html_img": "<img src=x onerror=alert('evil')>",
    "script": "<script>alert('evil')</script>",
    "autolinks": "https://evil.example www.evil.example me@evil.example",
    "streamlit": ":red[evil] $evil$ :material/warning: **evil**",
    "lines": "5\n# evil heading\n- [evil](https://evil.example)",
    "long": "evil" + "A" * 20_000,
}
LIVE = ("](", "![", "<img", "<script", "<a ", "http://", "https://", "www.", "@evil", ":red[", "$evil", "**evil")


# ---- the helper ------------------------------------------------------------------------------
def test_every_special_character_is_escaped_and_reads_back_as_typed():
    text = "".join(sorted(MARKDOWN_SPECIAL)) + " plain words 12 µs ✅"
    out = esc(text, max_chars=None)
    assert unescape(out) == text
    assert live_markup(out).strip() == "plain words 12 µs ✅"  # only the words stay live


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_payloads_lose_their_markup(name):
    out = esc(PAYLOADS[name])
    live = live_markup(out)
    for construct in LIVE:
        assert construct not in live, (construct, out[:200])
    assert "\n" not in out


def test_links_images_and_tags_are_escaped_character_by_character():
    assert esc("[a](http://x.y)") == r"\[a\]\(http\://x\.y\)"
    assert esc("![i](u)") == r"\!\[i\]\(u\)"
    assert esc("<img src=x onerror=y>") == r"\<img src=x onerror=y\>"
    assert esc(r"a\b") == r"a\\b"  # a backslash cannot un-escape what follows it


def test_control_and_bidi_characters_become_spaces():
    assert esc("a\nb\r\tc\u202ed\u200be") == "a b  c d e"


def test_long_values_are_clipped_and_say_so():
    out = esc("x" * 500)
    assert out == "x" * 200 + "… (300 more characters)"
    assert len(esc("y" * 100_000, max_chars=50)) < 100
    assert esc("z" * 300, max_chars=None) == "z" * 300


def test_md_escapes_the_values_not_the_template():
    out = md("URL value **{name}** = {raw}", name="n", raw="[x](https://evil.example)")
    assert out.startswith("URL value **n** = ")
    assert "](" not in live_markup(out) and unescape(out).endswith("[x](https://evil.example)")


def test_plot_text_keeps_plotly_from_reading_html():
    assert plot_text("<a href='https://evil.example'>x</a> & <b>") == (
        "&lt;a href='https://evil.example'&gt;x&lt;/a&gt; &amp; &lt;b&gt;")


# ---- every page, every URL key ---------------------------------------------------------------
def _elements(node):
    kids = getattr(node, "children", None)
    if kids is not None:
        for k in (kids.values() if isinstance(kids, dict) else kids):
            yield from _elements(k)
    yield node


# Elements that show their text verbatim (no Markdown), and proto fields that are not shown.
VERBATIM = {"code", "text", "json", "dataframe", "arrow_data_frame", "table"}
NOT_SHOWN = {"id", "url", "arrow_data", "raw_value", "form_id"}


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


def rendered_texts(at):
    """(element type, field, text) for every string the page renders as Markdown or in a chart."""
    out = []
    for el in _elements(at._tree):
        proto = getattr(el, "proto", None)
        kind = getattr(el, "type", "")
        if proto is None or not hasattr(proto, "ListFields") or kind in VERBATIM:
            continue
        out += [(kind, field, text) for field, text in _strings(proto)]
    return out


def reads_url(page) -> bool:
    """Pages whose code reads the URL (today the widget's knobs: the widget and the checkpoint)."""
    text = (ROOT / (page or "app.py")).read_text(encoding="utf-8")
    return "init_from_url" in text or "query_params" in text


def cases():
    """Pages that read the URL get every payload in every key; the others one mixed URL."""
    names = sorted(PAYLOADS)
    for page in PAGES:
        if reads_url(page):
            for name in names:
                yield pytest.param(page, {k: PAYLOADS[name] for k in URL_KEYS}, id=f"{page}-{name}")
        else:
            mixed = {k: PAYLOADS[names[i % len(names)]] for i, k in enumerate(URL_KEYS)}
            yield pytest.param(page, mixed, id=f"{page}-mixed")


@pytest.mark.parametrize("page,query", list(cases()))
def test_crafted_url_values_render_as_text_on_every_page(page, query):
    from conftest import open_page
    at = open_page(page, query=query)  # asserts the app raised no exception
    assert not at.exception
    found = []
    for kind, field, text in rendered_texts(at):
        if MARKER not in text.lower():
            continue
        found.append(text)
        live = live_markup(text) if field != "spec" else text
        for construct in LIVE:
            assert construct not in live, f"{page}: {kind}.{field} renders {construct!r}: {text[:300]!r}"
        assert len(text) < 3000, f"{page}: {kind}.{field} shows {len(text)} characters of a URL value"
    if reads_url(page):  # the junk was reported, not silently dropped: a notice names each key
        notices = [unescape(w.value) for w in at.warning]
        for key in URL_KEYS:
            assert any(f"URL value {key}=" in n for n in notices), (key, notices)
        assert found


def _assert_inert(at, where: str) -> list[str]:
    """No string carrying MARKER renders a link, an image or a tag; returns those strings."""
    assert not at.exception, at.exception
    found = []
    for kind, field, text in rendered_texts(at):
        if MARKER in text.lower() and field != "spec":
            found.append(text)
            for construct in LIVE:
                assert construct not in live_markup(text), f"{where}: {kind}.{field}: {text[:300]!r}"
    return found


@pytest.mark.parametrize("page", [None, "pages/6_Launch_overhead_killer.py", "pages/9_Checkpoint.py",
                                  "pages/2_Streams_and_async.py"])
def test_crafted_recording_names_and_fields_render_as_text(tmp_path, monkeypatch, page):
    """A student's own folder of recordings: a file name and a device name that are links."""
    import json
    from conftest import open_page
    from runtime_core.recordings import store
    doc = json.loads((ROOT / "lessons" / "recordings" / "sweep_h200.json").read_text())
    doc["meta"]["device_name"] = PAYLOADS["link"] + " " + PAYLOADS["image"]
    (tmp_path / "sweep_mine.json").write_text(json.dumps(doc))
    (tmp_path / "sweep_![x](https:evil.example).json").write_text('{"meta": "<img src=x onerror=evil>"}')
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page(page)
    found = _assert_inert(at, page or "app.py")
    assert any("sweep_![x](https:evil.example).json" in unescape(t) for t in found)  # the notice is there
    assert any(PAYLOADS["link"] in unescape(t) for t in found)  # and the device name, as text


def test_crafted_aot_results_render_as_text(tmp_path, monkeypatch):
    """Errors a child process reported (paths, compiler lines) and the cached results' names."""
    import json
    from conftest import open_page
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path))
    from runtime_core.aot.coldwarm import results_path
    res = {"device": "cpu", "device_name": PAYLOADS["image"], "torch_version": PAYLOADS["link"],
           "measured_at": "2026-11-30T00:00:00Z", "outputs_match": False, "aot_load_python_s": 0.1,
           "python_max_abs_err": PAYLOADS["html_img"], "cpp_max_abs_err": None,
           "cpp_error": "C++ runner exited: " + PAYLOADS["script"] + " see " + PAYLOADS["autolinks"]}
    results_path("cpu").parent.mkdir(parents=True, exist_ok=True)
    results_path("cpu").write_text(json.dumps(res))
    at = open_page("pages/5_AOT_and_serving.py")
    found = _assert_inert(at, "AOT page")
    assert any(PAYLOADS["script"] in unescape(e.value) for e in at.error)
    assert len(found) >= 3

"""Outside text never renders as Markdown or HTML: the escape helper, and every page fed crafted
URL query values (links, images, HTML tags, autolinks, very long values)."""
from pathlib import Path

import pytest

pytest.importorskip("streamlit")  # the GPU machine has no streamlit unless its wheels are carried
from hostile import live_findings, live_in
from pages.ui.safe_text import (MARKDOWN_SPECIAL, WORD_JOINER, esc, live_constructs, live_markup, md, plot_text,
                                shown_text, unescape)

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
# ---- the helper ------------------------------------------------------------------------------
def test_every_special_character_is_escaped_and_reads_back_as_typed():
    text = "".join(sorted(MARKDOWN_SPECIAL)) + " plain words 12 µs ✅"
    out = esc(text, max_chars=None)
    assert unescape(out) == text
    assert live_markup(out).replace(WORD_JOINER, "").strip() == "plain words 12 µs ✅"  # only the words stay live


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_payloads_lose_their_markup(name):
    out = esc(PAYLOADS[name])
    assert not live_in(out), out[:200]
    assert "\n" not in out


def test_links_images_and_tags_are_escaped_character_by_character():
    assert esc("[a](http://x.y)") == "\\[a\\]\\(http" + WORD_JOINER + "\\://x\\.y\\)"
    assert esc("![i](u)") == r"\!\[i\]\(u\)"
    assert esc("<img src=x onerror=y>") == r"\<img src=x onerror=y\>"
    assert esc(r"a\b") == r"a\\b"  # a backslash cannot un-escape what follows it


AUTOLINKS = ["https://evil.example/x", "HTTP://evil.example", "www.evil.example", "WwW.evil.example",
             "a@evil.example", "mailto:a@evil.example", "xmpp:a@evil.example",
             "[log in again](https://evil.example/)", "see https\\://evil\\.example"]


@pytest.mark.parametrize("value", AUTOLINKS)
def test_autolink_literals_are_broken_by_a_word_joiner(value):
    """GFM finds autolinks after the escapes are resolved: the test model looks at that text."""
    assert live_constructs(value)  # the model sees the raw value as a link
    out = esc(value)
    assert live_constructs(out) == [], (out, shown_text(out))
    assert unescape(out) == value


def test_the_escapes_alone_were_not_enough():
    """`https\\://evil\\.example` autolinks in Chromium: without the joiner the model says so."""
    escaped_only = "".join("\\" + ch if ch in MARKDOWN_SPECIAL else ch for ch in "https://evil.example a@b.co")
    assert live_constructs(escaped_only) == ["https://e", "a@b.c"]


def test_a_value_cannot_cancel_the_joiner():
    """Format characters the value brings (a joiner, a zero-width space) become spaces first."""
    out = esc("www\u2060.evil.example https\u200b://x.y a\u2060\u2060@b.c")
    assert unescape(out) == "www .evil.example https ://x.y a  @b.c"
    assert out.count(WORD_JOINER) == 1 and live_constructs(out) == []  # ours, before the @


def test_joiners_only_where_a_link_could_start():
    assert esc("12 µs: fast 3:4 @") == "12 µs\\: fast 3\\:4 " + WORD_JOINER + "\\@"
    for scheme in ("http", "HTTPS", "Mailto", "xmpp"):
        assert esc(f"{scheme}:x") == f"{scheme}" + WORD_JOINER + "\\:x"


def test_a_setting_a_student_copies_has_no_invisible_character():
    """PYTORCH_CUDA_ALLOC_CONF values shown on page 3: what is copied from the page is the setting."""
    for setting in ("max_split_size_mb:1024", "garbage_collection_threshold:0.6,expandable_segments:True"):
        assert WORD_JOINER not in esc(setting) and unescape(esc(setting)) == setting
    assert WORD_JOINER not in esc("the wwworld. w.w.w. www")


def test_control_and_bidi_characters_become_spaces():
    assert esc("a\nb\r\tc\u202ed\u200be") == "a b  c d e"


def test_a_soft_hyphen_survives_and_opens_no_link():
    """Page 3's "fragmen\u00adtation" row label must fit a phone: the soft hyphen stays (a space there
    read "fragmen tation" on a projector), and it cannot carry a link past the joiners."""
    from pages.ui.tables import cells
    assert cells([{"a": "fragmen\u00adtation"}]) == [{"a": "fragmen\u00adtation"}]
    out = esc("https\u00ad://x.y www\u00ad.evil.example a\u00ad@b.c")
    assert live_constructs(out) == [] and "\u00ad" in out


def test_long_values_are_clipped_and_say_so():
    out = esc("x" * 500)
    assert out == "x" * 200 + "… (300 more characters)"
    assert len(esc("y" * 100_000, max_chars=50)) < 100
    assert esc("z" * 300, max_chars=None) == "z" * 300


def test_md_escapes_the_values_not_the_template():
    out = md("URL value **{name}** = {raw}", name="n", raw="[x](https://evil.example)")
    assert out.startswith("URL value **n** = ")
    assert not live_in(out) and unescape(out).endswith("[x](https://evil.example)")


def test_plot_text_keeps_plotly_from_reading_html():
    assert plot_text("<a href='https://evil.example'>x</a> & <b>") == (
        "&lt;a href='https://evil.example'&gt;x&lt;/a&gt; &amp; &lt;b&gt;")


# ---- every page, every URL key ---------------------------------------------------------------
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
    found, live = live_findings(at)
    assert not live, f"{page}: " + "\n".join(live)
    for text in found:
        assert len(text) < 3000, f"{page}: shows {len(text)} characters of a URL value"
    if reads_url(page):  # the junk was reported, not silently dropped: a notice names each key
        notices = [unescape(w.value) for w in at.warning]
        for key in URL_KEYS:
            assert any(f"URL value {key}=" in n for n in notices), (key, notices)
        assert found


def _assert_inert(at, where: str) -> list[str]:
    """No string carrying MARKER renders a link, an image or a tag; returns those strings."""
    assert not at.exception, at.exception
    found, live = live_findings(at)
    assert not live, f"{where}: " + "\n".join(live)
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


def test_chart_labels_from_a_recording_are_text():
    """Plotly reads <a href> in axis labels and hover text: a span's lane and name, a lab's variant."""
    from pages.ui.lab_charts import work_vs_overhead_bars
    from pages.ui.timeline_chart import KIND_STYLE, timeline_figure
    a = '<a href="https://evil.example/p">p</a>'
    kind = next(iter(KIND_STYLE))
    fig = timeline_figure([{"lane": a, "kind": kind, "name": a, "start_us": 0.0, "end_us": 1.0}], "t")
    bars = work_vs_overhead_bars([{"variant": a, "mode": "streams", "n": a, "kernel_time_us": 1.0,
                                   "launch_overhead_us": 1.0, "model_wall_us": 2.0}], "t")
    for f in (fig, bars):
        assert "<a " not in f.to_json() and "&lt;a href" in f.to_json()


def test_a_recorded_lab_whose_numbers_are_text_is_not_shown(tmp_path, monkeypatch):
    """The labs schema types a lab's verdict and signal only; its panel prints the other fields in
    metric labels and captions. A recording with text where a number belongs is named, not drawn."""
    import json
    from conftest import open_page
    from runtime_core.recordings import store
    doc = json.loads((ROOT / "lessons" / "recordings" / "labs_h200.json").read_text())
    doc["labs"]["storm"]["cache_size"] = PAYLOADS["link"]
    doc["labs"]["storm"]["recapture"]["captures"] = PAYLOADS["image"]
    (tmp_path / "labs_mine.json").write_text(json.dumps(doc))
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page("pages/4_CUDA_graphs.py")
    found = _assert_inert(at, "page 4")
    assert not any(PAYLOADS["link"] in unescape(t) for t in found)
    assert any("run of this lab is not shown: cache_size, recapture.captures" in unescape(c.value) for c in at.caption)


def test_a_typed_value_shows_its_invisible_characters_as_code_points():
    """A zero-width space, a byte-order mark or a bidi override pasted with a number would read as a
    space in the quote; the student sees which character it is, still escaped as Markdown."""
    from pages.ui.safe_text import esc_typed, unescape
    assert unescape(esc_typed("1\u200b2")) == "1⟨U+200B⟩2"
    assert unescape(esc_typed("\ufeff7")) == "⟨U+FEFF⟩7"
    assert unescape(esc_typed("**x**\u202e")) == "**x**⟨U+202E⟩"

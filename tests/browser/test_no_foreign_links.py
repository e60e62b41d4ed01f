"""No link and no image we did not write, on any page, in Chromium: the app served with a folder of
hostile recordings (tests/hostile.py: links, images, bare URLs, www., e-mail addresses and markup
in every free-text field of every shipped recording and of the AOT results), hostile URL values,
and the bucket planner's typed list filled with the same.

Ours: links to the app's own pages (same origin), Streamlit's own in-page anchors, and absolute
links our own prose writes (lessons/*.md, lessons/*.json, pages/, app.py). An `<img>` must come
from the app's server (or be inline data). No request may leave for another host: an image the
browser fetched from evil.example is the hole the AppTest model cannot see.

Run it alone with `python -m pytest -q tests/browser/test_no_foreign_links.py` (or with the rest
of tests/browser: `make browser-test`).
"""
from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from conftest import serve
from screen_checks import SIZES, app_pages, wait_until_idle

from hostile import DOMAIN, PLANNER_LISTS, URL_VALUES, hostile_aot_cache, hostile_recordings

ROOT = Path(__file__).resolve().parents[2]
SIZE = "1280x720"
FOREIGN = (DOMAIN, "e.vl")  # the hosts the payloads name
# Hosts Streamlit itself asks (the Material icon of a page's tab comes from Google's font server).
STREAMLIT_HOSTS = {"fonts.gstatic.com"}
PLANNER_PATH = "/Will_graphs_help_my_model"

# Every <a> (HTML or SVG), every <img>, and every element with a CSS background image.
_COLLECT_JS = r"""
() => {
  const out = [];
  const where = (e) => {
    const c = e.closest('[data-testid]');
    const text = ((c || e).innerText || '').replace(/\s+/g, ' ').slice(0, 100);
    return (c ? c.getAttribute('data-testid') + ': ' : '') + text;
  };
  for (const a of document.querySelectorAll('a')) {
    const raw = a.getAttribute('href') || a.getAttribute('xlink:href');
    const url = a.href && a.href.baseVal !== undefined ? a.href.baseVal : a.href;  // an SVG link's href
    if (raw !== null) out.push({tag: 'a', raw, url, where: where(a)});
  }
  for (const i of document.querySelectorAll('img')) {
    out.push({tag: 'img', raw: i.getAttribute('src') || '', url: i.currentSrc || i.src || '', where: where(i)});
  }
  for (const e of document.querySelectorAll('[style*="url("]')) {
    out.push({tag: 'style', raw: e.getAttribute('style'), url: e.getAttribute('style'), where: where(e)});
  }
  return out;
}
"""


def our_links() -> set[str]:
    """Absolute URLs our own prose writes (lesson text and data, page code), never a payload's."""
    sources = [*ROOT.glob("lessons/*.md"), *ROOT.glob("lessons/*.json"), *ROOT.glob("pages/**/*.py"), ROOT / "app.py"]
    found = set()
    for path in sources:
        found.update(re.findall(r"https?://[^\s)\"'<>`\]]+", path.read_text(encoding="utf-8")))
    return {u.rstrip(".,;:") for u in found if not any(f in u for f in FOREIGN)}


def problems(found: list[dict], origin: str, ours: set[str]) -> list[str]:
    """One line per link or image on the page whose target is not ours."""
    out = []
    ours = {u.rstrip("/") for u in ours}
    for f in found:
        url, raw = f["url"] or "", f["raw"] or ""
        text = f"{f['tag']} {raw[:120]!r} in {f['where']!r}"
        if f["tag"] == "a" and raw.startswith("#"):
            continue  # an anchor on this page (Streamlit's skip link, a heading's link)
        host = urllib.parse.urlsplit(url).netloc.lower()
        if any(h in host or h in raw.lower() for h in FOREIGN):
            out.append("payload target: " + text)
        elif f["tag"] == "a":
            if not (url.startswith(origin + "/") or url == origin or url.rstrip("/") in ours):
                out.append("foreign link: " + text)
        elif f["tag"] == "img" and not (url.startswith(origin + "/") or url.startswith(("data:", "blob:"))):
            out.append("foreign image: " + text)
        elif f["tag"] == "style" and re.search(r"url\(\s*['\"]?https?:", raw) and origin not in raw:
            out.append("foreign background image: " + text)
    return out


@pytest.fixture(scope="module")
def hostile_server(playwright_api, tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile-browser")
    hostile_recordings(base / "recordings")
    hostile_aot_cache(base / "aot")
    env = {"RUNTIME_RECORDINGS_DIR": str(base / "recordings"), "RUNTIME_CORE_AOT_CACHE": str(base / "aot"),
           "RUNTIME_LIVE": "0"}
    with serve(env, log_name="streamlit_hostile.log") as url:
        yield url


@pytest.fixture(scope="module")
def tab(browser, hostile_server):
    """One tab, and every request it makes to a host other than the app's."""
    ctx = browser.new_context(**SIZES[SIZE])
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    origin = urllib.parse.urlsplit(hostile_server).netloc

    def on_request(r) -> None:
        u = urllib.parse.urlsplit(r.url)
        if u.scheme in ("http", "https", "ws", "wss") and u.netloc not in (origin, *STREAMLIT_HOSTS):
            FOREIGN_REQUESTS.append(r.url)
    page.on("request", on_request)
    yield page
    ctx.close()


FOREIGN_REQUESTS: list[str] = []  # what the tab asked of another host since the last check


def _open_everything(page) -> None:
    """Open every expander, so what it holds is drawn (and its images fetched)."""
    for summary in page.locator('[data-testid="stExpander"] details:not([open]) > summary').all():
        try:
            summary.click(timeout=5_000)
        except Exception:  # an expander that reran away: the next visit sees it
            pass
    wait_until_idle(page)


def _check(page, server: str, what: str, shots_dir: Path) -> list[str]:
    _open_everything(page)
    found = page.evaluate(_COLLECT_JS)
    bad = problems(found, server, our_links())
    bad += [f"request to another host: {u[:160]}" for u in FOREIGN_REQUESTS]
    FOREIGN_REQUESTS.clear()
    if bad:
        name = re.sub(r"[^A-Za-z0-9_-]+", "_", what)[:80]
        (shots_dir / "foreign_links").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots_dir / "foreign_links" / f"{name}.png"), full_page=True)
    return [f"{what}: {b}" for b in bad]


def _visit(page, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    wait_until_idle(page)


QUERY = urllib.parse.urlencode(URL_VALUES)
PAGES = app_pages()


@pytest.mark.parametrize("name,path", PAGES, ids=[n for n, _ in PAGES])
def test_no_foreign_link_or_image_on_the_page(tab, hostile_server, shots_dir, name, path):
    """Each page with hostile recordings and hostile URL values; then each lab's run button (a
    recorded lab's verdict and fields show under the simulated run)."""
    _visit(tab, f"{hostile_server}{path}?{QUERY}")
    bad = _check(tab, hostile_server, f"{name} (hostile URL values)", shots_dir)
    buttons = tab.locator('[data-testid="stMain"] [data-testid="stButton"] button').filter(
        has_text=re.compile(r"^\s*run the "))
    for i in range(buttons.count()):
        buttons.nth(i).click()
        wait_until_idle(tab)
    if buttons.count():
        bad += _check(tab, hostile_server, f"{name} (every lab run)", shots_dir)
    assert not bad, "\n".join(bad)


def test_widget_off_the_grid_names_the_device_as_text(tab, hostile_server, shots_dir):
    """Off the recorded grid, with dynamic shapes: the off-grid caption, the column named after the
    device, the policy table and the comparison of the two hostile sweeps."""
    _visit(tab, f"{hostile_server}/Launch_overhead_killer?n=130&dynamic=1&mode=graph")
    for label in ("Side by side", "Dynamic shapes", "Compare recordings"):
        tab.get_by_role("tab", name=label).click()
        wait_until_idle(tab)
    bad = _check(tab, hostile_server, "widget off the grid", shots_dir)
    assert "recorded" in tab.locator('[data-testid="stMain"]').inner_text()
    assert not bad, "\n".join(bad)


def test_every_diagnose_model_and_the_planners_typed_list(tab, hostile_server, shots_dir):
    """Page 7: each model of the hostile recording (a name, a shape-knob label, a verdict), then the
    bucket planner's typed list with each payload: the error quotes the entry as text."""
    _visit(tab, f"{hostile_server}{PLANNER_PATH}")
    bad = []
    box = tab.locator('[data-testid="stMain"] [data-testid="stSelectbox"] input[role="combobox"]').first  # model
    count, i = None, 0
    while count is None or i < count:
        box.click()
        if box.get_attribute("aria-expanded") != "true":
            box.press("ArrowDown")  # a focused box opens from the keyboard
        options = tab.locator('[role="option"]')
        options.first.wait_for()
        count = options.count()
        options.nth(i).click()
        wait_until_idle(tab)
        bad += _check(tab, hostile_server, f"diagnose model {i}", shots_dir)
        i += 1
    assert count >= 4  # decoder, mlp, cnn, encoder
    tab.locator('[data-testid="stRadio"] label').filter(has_text=re.compile(r"^\s*my list\s*$")).first.click()
    wait_until_idle(tab)
    field = tab.get_by_label("my list of request sizes (one entry per request)")
    for name, text in PLANNER_LISTS.items():
        field.fill(text)
        field.press("Enter")
        wait_until_idle(tab)
        alerts = tab.locator('[data-testid="stAlert"]').filter(has_text="request sizes")
        alerts.first.wait_for(timeout=30_000)
        bad += _check(tab, hostile_server, f"planner list {name}", shots_dir)
    assert not bad, "\n".join(bad)


def test_a_url_with_20000_junk_tokens_draws_a_few_notices(tab, hostile_server, shots_dir):
    """One link with 20,000 junk `ck` tokens: four notices (three quoted, one count), drawn in
    seconds (one notice per token took the browser 40 s)."""
    import time
    start = time.monotonic()
    _visit(tab, f"{hostile_server}/Checkpoint?ck=" + ".".join(["z"] * 20_000))
    took = time.monotonic() - start
    alerts = tab.locator('[data-testid="stMain"] [data-testid="stAlert"]')
    notices = alerts.filter(has_text="in the URL")
    counted = alerts.filter(has_text="20,000 junk values in ck ignored")
    assert notices.count() <= 4 and counted.count() == 1, (notices.count(), counted.count())
    assert took < 20, f"{took:.1f} s to draw the page"
    assert not _check(tab, hostile_server, "checkpoint with 20,000 junk tokens", shots_dir)

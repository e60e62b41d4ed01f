"""Issue 27's screen checks: no chart title and no select box cut on any page, and on a phone the
lesson pages (1-5 and 8) open on their section title, above the panel. Each check is also shown
to fail on a page broken on purpose (CSS or a moved node, injected in the browser)."""
from __future__ import annotations

import pytest
from screen_checks import app_pages, layout_problems, section_title_first, wait_until_idle

NEW_KINDS = ("chart title", "select")
SIZES = ("1280x720", "400x900")
CASES = [pytest.param(size, name, path, id=f"{size}-{name}") for size in SIZES for name, path in app_pages()]
LESSON_PAGES = ["/Artifact_vs_runtime", "/Streams_and_async", "/Caching_allocator", "/CUDA_graphs",
                "/AOT_and_serving", "/Failure_modes"]


def _open(page_at, server, path: str, size: str = "1280x720"):
    page = page_at(size)
    page.goto(server + path, wait_until="domcontentloaded")
    wait_until_idle(page)
    return page


@pytest.mark.parametrize("size,name,path", CASES)
def test_no_chart_title_or_select_box_is_cut(server, page_at, size, name, path):
    page = _open(page_at, server, path, size)
    cut = [p for p in layout_problems(page) if p.kind in NEW_KINDS]
    assert not cut, f"page {name} at {size}:\n" + "\n".join(f"  {p}" for p in cut)


@pytest.mark.parametrize("path", LESSON_PAGES)
def test_on_a_phone_the_section_title_comes_first(server, page_at, path):
    page = _open(page_at, server, path, "400x900")
    at = section_title_first(page)
    assert at["title"] and at["title"].startswith(("§", "Failure modes")), at
    assert at["panel_top"] is not None and at["title_top"] < at["panel_top"], at
    assert at["title_top"] < 300, at  # on the first screen, near its top


def test_a_squeezed_select_box_is_reported(server, page_at):
    page = _open(page_at, server, "/Launch_overhead_killer")
    assert "select" not in [p.kind for p in layout_problems(page)]
    page.add_style_tag(content='[data-testid="stSelectbox"] { width: 70px !important; max-width: 70px !important; }')
    cut = [p for p in layout_problems(page) if p.kind == "select"]
    assert cut and "fallback" in cut[0].text, cut


def test_a_chart_title_past_the_charts_edge_is_reported(server, page_at):
    page = _open(page_at, server, "/Launch_overhead_killer")
    assert "chart title" not in [p.kind for p in layout_problems(page)]
    page.evaluate("""() => {
      const plot = document.querySelector('.js-plotly-plot');
      plot.querySelectorAll('.gtitle').forEach((e) => e.remove());
      const ns = 'http://www.w3.org/2000/svg';
      const t = document.createElementNS(ns, 'text');
      t.setAttribute('class', 'gtitle'); t.setAttribute('x', String(plot.getBoundingClientRect().width - 40));
      t.setAttribute('y', '20'); t.textContent = 'a long title drawn in the chart, running off its right edge';
      plot.querySelector('.infolayer').appendChild(t);
    }""")
    cut = [p for p in layout_problems(page) if p.kind == "chart title"]
    assert cut and "running off" in cut[0].text, cut


def test_a_title_moved_under_the_panel_is_reported(server, page_at):
    page = _open(page_at, server, "/Artifact_vs_runtime", "400x900")
    page.evaluate("""() => {
      const h1 = document.querySelector('[data-testid="stMainBlockContainer"] h1');
      const holder = h1.closest('[data-testid="stElementContainer"]');
      const split = document.querySelector('.st-key-lesson_split');
      split.parentElement.insertBefore(holder, split.nextSibling);
    }""")
    at = section_title_first(page)
    assert at["title_top"] > at["panel_top"], at


@pytest.mark.parametrize("path", ["/Caching_allocator", "/CUDA_graphs"])
def test_on_a_phone_the_lesson_comes_first_and_a_link_jumps_to_the_labs(server, page_at, path):
    """Stacked, the prose reads first (its first paragraph on the first screen, not thousands of
    pixels down under the labs), and a phone-only link at its top scrolls the labs' first panel
    to the top of the screen. On a wide screen the link is not shown."""
    page = _open(page_at, server, path, "400x900")
    first_text = page.evaluate("""() => {
      const col = document.querySelector('.st-key-lesson_split [data-testid="stColumn"]');
      const p = col && col.querySelector('[data-testid="stMarkdownContainer"] p');
      return p ? p.getBoundingClientRect().top : null;
    }""")
    assert first_text is not None and first_text < 900, first_text
    link = page.locator("a[href='#labs-start']")
    assert link.is_visible()
    link.click()
    page.wait_for_timeout(800)
    top = page.evaluate("document.querySelector('#labs-start').getBoundingClientRect().top")
    assert 0 <= top < 150, top
    wide = _open(page_at, server, path, "1280x720")
    assert not wide.locator("a[href='#labs-start']").is_visible()


@pytest.mark.parametrize("path", LESSON_PAGES)
def test_on_a_1024_px_projector_the_lesson_stacks_over_its_labs_and_nothing_is_cut(server, page_at, path):
    """Side by side beside the sidebar at 1024 px the live column was some 250 px wide and cut its
    tables' last column off (pages 4 and 8): the pair stacks there, prose first, with the link
    down to the labs, and no table, metric or link is cut."""
    page = _open(page_at, server, path, "1024x768")
    for expander in page.locator("[data-testid='stExpander'] summary").all():
        expander.click()
    wait_until_idle(page)
    cols = page.evaluate("""() => [...document.querySelectorAll(
        '.st-key-lesson_split [data-testid="stColumn"]')].slice(0, 2).map(c => c.getBoundingClientRect().top)""")
    assert len(cols) == 2 and cols[1] > cols[0] + 100, cols  # the live column under the prose
    assert page.locator("a[href='#labs-start']").is_visible()
    problems = layout_problems(page)
    assert not problems, f"{path} at 1024x768:\n" + "\n".join(f"  {p}" for p in problems)


def test_on_a_phone_the_checkpoint_links_its_open_step_and_the_knobs(server, page_at):
    """The checkpoint stacks its knobs a screen below the steps on a phone: the open step links
    down to them and they link back, each landing at the top of the screen; on a wide screen
    neither link shows."""
    page = _open(page_at, server, "/Checkpoint", "400x900")
    for link, target in (("#ck-knobs", "#ck-knobs"), ("#ck-open-step", "#ck-open-step")):
        a = page.locator(f"a[href='{link}']")
        assert a.is_visible()
        a.click()
        page.wait_for_timeout(800)
        top = page.evaluate(f"document.querySelector('{target}').getBoundingClientRect().top")
        assert 0 <= top < 150, (link, top)
    wide = _open(page_at, server, "/Checkpoint", "1280x720")
    assert not wide.locator("a[href='#ck-knobs']").is_visible()
    assert not wide.locator("a[href='#ck-open-step']").is_visible()


def test_on_a_projector_the_checkpoint_opens_with_step_one_answerable(server, page_at):
    """At 1280x720 the first step's prediction box and its record button are whole on the first
    screen: a class sees where to type without scrolling."""
    page = _open(page_at, server, "/Checkpoint", "1280x720")
    for sel in ("[data-testid='stTextInput'] input", "button:has-text('Record this result')"):
        box = page.locator(sel).first.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 720, (sel, box)


def test_on_a_phone_the_widgets_six_column_table_off_the_grid_fits(server, page_at):
    """Off the recording's grid page 6's side-by-side table has six columns (the two at the
    recorded point marked †): on a phone it fits, its last column in sight."""
    page = _open(page_at, server, "/Launch_overhead_killer?n=300&tax=10&work=5&mode=graph", "400x900")
    head = page.locator("[data-testid='stTable'] th").all_inner_texts()
    assert any(h.strip().endswith("†") for h in head), head
    cut = [p for p in layout_problems(page) if p.kind == "table"]
    assert not cut, cut

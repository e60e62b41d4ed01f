"""The layout checks find what they are meant to find: each test breaks one thing on a page that
passes (CSS or a moved SVG node, injected in the browser), and the checker must name it."""
from __future__ import annotations

from screen_checks import layout_problems, wait_until_idle


def _open(page_at, server, path: str, size: str = "1280x720"):
    page = page_at(size)
    page.goto(server + path, wait_until="domcontentloaded")
    wait_until_idle(page)
    return page


def _kinds(problems) -> list[str]:
    return [p.kind for p in problems]


def test_a_metric_squeezed_to_20px_is_reported(server, page_at):
    page = _open(page_at, server, "/Interview")
    assert "metric" not in _kinds(layout_problems(page))
    page.add_style_tag(content='[data-testid="stMetricValue"] { width: 20px !important; max-width: 20px !important;'
                               ' white-space: nowrap !important; overflow: hidden !important; }')
    cut = [p for p in layout_problems(page) if p.kind == "metric"]
    assert cut, "a metric value 20px wide was not reported"
    assert any("0 of" in p.text for p in cut)  # "cards graded: 0 of 7", named by its text
    assert "stMetricValue" in cut[0].element


def test_a_truncated_button_label_is_reported(server, page_at):
    page = _open(page_at, server, "/Interview")
    assert "button" not in _kinds(layout_problems(page))
    # (more specific than the app's own rule that lets a button's label wrap: common.METRIC_WRAP_CSS)
    page.add_style_tag(content='[data-testid="stButton"] button { width: 40px !important; max-width: 40px !important; }'
                               ' [data-testid="stMainBlockContainer"] [data-testid="stButton"] button * {'
                               ' white-space: nowrap !important;'
                               ' overflow: hidden !important; text-overflow: ellipsis !important; }')
    cut = [p for p in layout_problems(page) if p.kind == "button"]
    assert any("reveal answer" in p.text for p in cut), cut


def test_a_table_wider_than_its_container_is_reported(server, page_at):
    page = _open(page_at, server, "/Artifact_vs_runtime")
    assert "table" not in _kinds(layout_problems(page))
    page.add_style_tag(content='[data-testid="stTable"] table { min-width: 3000px !important; }')
    wide = [p for p in layout_problems(page) if p.kind == "table"]
    assert wide and "st.table" in wide[0].element and "per step" in wide[0].text  # named by its header


def test_a_page_link_cut_by_an_ellipsis_is_reported(server, page_at):
    page = _open(page_at, server, "/")
    assert "link" not in _kinds(layout_problems(page))
    page.add_style_tag(content='[data-testid="stPageLink"] a { width: 60px !important; max-width: 60px !important; }'
                               ' [data-testid="stPageLink"] a * { white-space: nowrap !important;'
                               ' overflow: hidden !important; text-overflow: ellipsis !important; }')
    assert any(p.kind == "link" for p in layout_problems(page))


def test_a_legend_moved_onto_the_title_is_reported(server, page_at):
    """The app's own charts show their titles above the figure; one drawn inside, with the legend
    translated onto it, must be reported."""
    page = _open(page_at, server, "/Streams_and_async")
    assert "chart" not in _kinds(layout_problems(page))
    moved = page.evaluate("""() => {
      const plot = document.querySelector('.js-plotly-plot');
      const svg = plot.querySelector('.infolayer');
      const legend = plot.querySelector('.legend');
      const ns = 'http://www.w3.org/2000/svg';
      // A title drawn in the SVG, as st.plotly_chart draws a figure's own (the app's charts leave
      // an empty one there: their titles are page text).
      plot.querySelectorAll('.gtitle').forEach((e) => e.remove());
      const title = document.createElementNS(ns, 'text');
      title.setAttribute('class', 'gtitle'); title.setAttribute('x', '40'); title.setAttribute('y', '20');
      title.textContent = 'a title drawn inside the chart';
      svg.appendChild(title);
      const t = title.getBoundingClientRect(), l = legend.getBoundingClientRect();
      const [dx, dy] = [t.left - l.left, t.top - l.top];
      const old = legend.getAttribute('transform') || '';
      legend.setAttribute('transform', old + ` translate(${dx},${dy})`);
      return true;
    }""")
    assert moved
    hits = [p for p in layout_problems(page) if p.kind == "chart"]
    assert hits and "meets legend" in hits[0].element


def test_a_streamlit_exception_is_reported(server, page_at):
    page = _open(page_at, server, "/Claims")
    page.evaluate("""() => { const d = document.createElement('div'); d.setAttribute('data-testid', 'stException');
                             d.textContent = 'ZeroDivisionError: division by zero';
                             document.querySelector('[data-testid="stMainBlockContainer"]').appendChild(d); }""")
    assert any(p.kind == "exception" and "ZeroDivisionError" in p.text for p in layout_problems(page))


def test_on_a_phone_the_prose_comes_before_the_live_panel(server, page_at):
    """Pages built with lesson_columns() put prose left and the live panel right on a laptop, and
    the prose first on a phone: a lesson reads in order, and a link at its top jumps to the labs
    (test_titles_and_selects). The live panel first buried the first paragraph some ten thousand
    pixels down on the allocator and CUDA-graphs pages."""
    for size, phone in (("1280x720", False), ("400x900", True)):
        page = _open(page_at, server, "/Caching_allocator", size)
        tops = page.evaluate("""() => {
          const pair = document.querySelector('.st-key-lesson_split [data-testid="stHorizontalBlock"]');
          if (!pair) return [];
          return [...pair.querySelectorAll(':scope > [data-testid="stColumn"]')].map((c) => c.getBoundingClientRect().top);
        }""")
        assert len(tops) == 2, "the page has no prose/live column pair"
        prose_top, live_top = tops
        if phone:
            assert prose_top < live_top, (size, tops)
        else:
            assert abs(live_top - prose_top) < 2, (size, tops)


def test_a_number_box_too_narrow_for_its_value_is_reported(server, page_at):
    page = _open(page_at, server, "/Launch_overhead_killer?n=2000")
    assert "input" not in _kinds(layout_problems(page))
    page.add_style_tag(content='[data-testid="stNumberInput"] input { width: 14px !important; max-width: 14px !important;'
                               ' flex: 0 0 14px !important; }')
    cut = [p for p in layout_problems(page) if p.kind == "input"]
    assert any(p.text == "2000" for p in cut), cut

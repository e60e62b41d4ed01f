"""What "this screen is broken" means, measured in the browser: the layout checks of the browser
tests, and the wait that comes before them.

`wait_until_idle(page)` waits for Streamlit to finish the script run, for every element's code to
load (no skeleton placeholders) and for every Plotly chart and data grid to be drawn; `layout_problems(page)` returns one `Problem` per broken element:

    metric     a metric's value or label (or a box inside them) is cut: scrollWidth > clientWidth + 1
    table      a table's columns run past its container: for st.dataframe (glide data grid) the
               grid's scroller (.dvn-scroller) is wider inside than out; for st.table the <table>
               is wider than its wrapper
    button     a button's label (or a box inside it) is cut, or an ellipsis is active on it
    link       the same for a page link (st.page_link) in the main area
    chart      a Plotly chart's title box intersects its legend box (SVG bounding boxes)
    chart title  a chart's title is cut: a title drawn in the SVG reaches past the chart's edges, or
               the page-text title above a chart (pages/ui/charts.show) runs past its box
    legend     a legend entry's text reaches past the chart's edges
    select     a select box's shown value is cut: its text, measured in the box's font, is wider
               than the box
    input      a number box's shown value is cut: the <input> is wider inside than out
    exception  a Streamlit exception or error box is on the page

The JavaScript reads boxes only; it changes nothing on the page.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# name -> playwright context options. The phone is a touch screen with a mobile layout.
SIZES = {
    "1280x720": dict(viewport={"width": 1280, "height": 720}),
    "1920x1080": dict(viewport={"width": 1920, "height": 1080}),
    "400x900": dict(viewport={"width": 400, "height": 900}, is_mobile=True, has_touch=True),
    # a 1024 px projector, or 1280 px zoomed to 125% for the back row (the lesson pages' own check)
    "1024x768": dict(viewport={"width": 1024, "height": 768}),
    # just over common.STACK_MAX_WIDTH_PX: the narrowest screen where the lesson pages keep their prose
    # and labs side by side (between 1101 and 1165 px page 4's and 5's tables were cut)
    "1208x800": dict(viewport={"width": 1208, "height": 800}),
}


def app_pages() -> list[tuple[str, str]]:
    """(name, URL path) of the landing page and of every page in pages/, in menu order.

    Streamlit's URL path of pages/<k>_<Name>.py is /<Name>: the number prefix only sorts."""
    found = []
    for f in (ROOT / "pages").glob("*.py"):
        m = re.fullmatch(r"(\d+)_(.+)\.py", f.name)
        if m:
            found.append((int(m.group(1)), m.group(2)))
    return [("home", "/")] + [(name, f"/{name}") for _, name in sorted(found)]


@dataclass(frozen=True)
class Problem:
    kind: str       # metric, table, button, link, chart, exception
    element: str    # which element: its test id or selector, and sizes where they matter
    text: str       # the text the student would have seen (trimmed)

    def __str__(self) -> str:
        return f"{self.kind}: {self.element}: {self.text!r}"


_CHECK_JS = r"""
() => {
  const out = [];
  const text = (e) => ((e.innerText || e.textContent || '').replace(/\s+/g, ' ').trim()).slice(0, 120);
  // Rendered for the student: not in a closed expander or another tab, not hidden, with a size.
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  };
  // A box that can clip its content: laid out as a block of some kind, with a width.
  const boxes = (root) => [root, ...root.querySelectorAll('*')].filter((e) => {
    if (!(e instanceof HTMLElement) || e.clientWidth === 0) return false;
    const d = getComputedStyle(e).display;
    return d !== 'inline' && d !== 'contents' && shown(e);
  });
  const overflowing = (e) => e.scrollWidth > e.clientWidth + 1;

  // (a) metric values and labels
  for (const sel of ['[data-testid="stMetricValue"]', '[data-testid="stMetricLabel"]']) {
    for (const m of document.querySelectorAll(sel)) {
      if (!shown(m)) continue;
      const bad = boxes(m).find(overflowing);
      if (bad) out.push({kind: 'metric', element: `${sel} (text ${bad.scrollWidth}px in a ${bad.clientWidth}px box)`,
                         text: text(m)});
    }
  }
  // (b) tables: st.dataframe (glide data grid) and st.table
  for (const df of document.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (!shown(df)) continue;
    const scroller = df.querySelector('.dvn-scroller');
    if (scroller && overflowing(scroller)) {
      const head = [...df.querySelectorAll('table th, [role="columnheader"]')].map(text).join(' | ');
      out.push({kind: 'table', element: `st.dataframe (columns ${scroller.scrollWidth}px in ${scroller.clientWidth}px)`,
                text: head || text(df)});
    }
  }
  for (const t of document.querySelectorAll('[data-testid="stTable"]')) {
    if (!shown(t)) continue;
    const table = t.querySelector('table');
    if (!table) continue;
    const wrapper = table.parentElement;
    if (table.scrollWidth > wrapper.clientWidth + 1 || overflowing(wrapper)) {
      const head = [...table.querySelectorAll('thead th')].map(text).join(' | ');
      out.push({kind: 'table', element: `st.table (table ${table.scrollWidth}px in ${wrapper.clientWidth}px)`,
                text: head || text(table)});
    }
  }
  // (c) buttons (st.button, download buttons, form buttons, link buttons)
  const main = document.querySelector('[data-testid="stAppViewContainer"]') || document.body;
  for (const b of main.querySelectorAll('button, [data-testid="stLinkButton"] a')) {
    if (!shown(b) || !text(b)) continue;   // icon-only buttons (toolbars, sidebar arrows) have no label
    const bad = boxes(b).find((e) => overflowing(e) ||
        (getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth));
    if (bad) out.push({kind: 'button', element: `button (label ${bad.scrollWidth}px in a ${bad.clientWidth}px box)`,
                       text: text(b)});
  }
  // page links (st.page_link): a label cut with an ellipsis hides where the link goes
  for (const a of main.querySelectorAll('[data-testid="stPageLink"] a, [data-testid="stPageLink-NavLink"]')) {
    if (!shown(a) || !text(a)) continue;
    const bad = boxes(a).find((e) => overflowing(e) ||
        (getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth));
    if (bad) out.push({kind: 'link', element: `page link (label ${bad.scrollWidth}px in a ${bad.clientWidth}px box)`,
                       text: text(a)});
  }
  // (d) Plotly: the title's box against the legend's
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const title = plot.querySelector('.gtitle');
    const legend = plot.querySelector('.legend');
    if (!title || !legend || !text(title)) continue;
    const t = title.getBoundingClientRect(), l = legend.getBoundingClientRect();
    if (t.width && l.width && meet(t, l)) {
      out.push({kind: 'chart', element: `plotly title [${Math.round(t.left)},${Math.round(t.top)},` +
                `${Math.round(t.right)},${Math.round(t.bottom)}] meets legend [${Math.round(l.left)},` +
                `${Math.round(l.top)},${Math.round(l.right)},${Math.round(l.bottom)}]`, text: text(title)});
    }
  }
  // chart titles: in the SVG, inside the chart's own box; as page text, not wider than its box
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (!shown(plot)) continue;
    const title = plot.querySelector('.gtitle');
    const svg = plot.querySelector('.main-svg');
    if (title && svg && text(title)) {
      const t = title.getBoundingClientRect(), s = svg.getBoundingClientRect();
      if (t.width && (t.left < s.left - 1 || t.right > s.right + 1 || t.top < s.top - 1))
        out.push({kind: 'chart title', element: `plotly title [${Math.round(t.left)},${Math.round(t.right)}] ` +
                  `in a chart [${Math.round(s.left)},${Math.round(s.right)}]`, text: text(title)});
    }
  }
  // legend entries: each entry's text inside the chart's box (a long one ran off a 360 px phone)
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const svg = plot.querySelector('.main-svg');
    if (!shown(plot) || !svg) continue;
    const s = svg.getBoundingClientRect();
    for (const entry of plot.querySelectorAll('.legendtext')) {
      const t = entry.getBoundingClientRect();
      if (t.width && text(entry) && (t.left < s.left - 1 || t.right > s.right + 1))
        out.push({kind: 'legend', element: `legend entry [${Math.round(t.left)},${Math.round(t.right)}] ` +
                  `in a chart [${Math.round(s.left)},${Math.round(s.right)}]`, text: text(entry)});
    }
  }
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    const holder = chart.closest('[data-testid="stElementContainer"]');
    const before = holder && holder.previousElementSibling;
    const md = before && before.querySelector('[data-testid="stMarkdownContainer"]');
    if (!md || !shown(md)) continue;
    const bad = boxes(md).find(overflowing);
    if (bad) out.push({kind: 'chart title', element: `title above a chart (text ${bad.scrollWidth}px in a ${bad.clientWidth}px box)`,
                       text: text(md)});
  }
  // select boxes: the value shown in the closed box (an <input>: its text measured in its own font)
  const pen = document.createElement('canvas').getContext('2d');
  for (const box of document.querySelectorAll('[data-testid="stSelectbox"]')) {
    const input = box.querySelector('input');
    if (!input || !shown(input) || !input.value) continue;
    const cs = getComputedStyle(input);
    pen.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const need = pen.measureText(input.value).width;
    const room = input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    if (need > room + 1) out.push({kind: 'select', element: `select box (value ${Math.round(need)}px in a ${Math.round(room)}px box)`,
                                   text: input.value.slice(0, 120)});
  }
  // number boxes: the value shown (a typed N of 2000 read "20(" in a 36 px box beside page 6's slider)
  for (const box of document.querySelectorAll('[data-testid="stNumberInput"]')) {
    const input = box.querySelector('input');
    if (!input || !shown(input) || !input.value) continue;
    if (overflowing(input)) out.push({kind: 'input', element: `number box (value ${input.scrollWidth}px in a ${input.clientWidth}px box)`,
                                      text: input.value.slice(0, 120)});
  }
  // exceptions and error boxes
  for (const sel of ['[data-testid="stException"]', '[data-testid="stAlertContentError"]']) {
    for (const e of document.querySelectorAll(sel)) out.push({kind: 'exception', element: sel, text: text(e)});
  }
  return out;
}
"""

_IDLE_JS = r"""
() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!app || !main) return 'no app';
  const state = app.getAttribute('data-test-script-state');
  if (state !== 'notRunning') return 'script ' + state;
  if (document.querySelector('[data-testid="stStatusWidget"] [data-testid="stStatusWidgetRunningIcon"]'))
    return 'status widget running';
  if (document.querySelector('[data-testid="stSpinner"]')) return 'spinner';
  // An element whose code is still loading shows a skeleton in its place.
  if (document.querySelector('[data-testid="stSkeleton"]')) return 'element still loading (skeleton)';
  if (!main.querySelector('[data-testid="stElementContainer"]')) return 'main block empty';
  // Charts and grids on screen or below it; those in a closed expander or another tab have no size.
  const sized = (e) => { const r = e.getBoundingClientRect();
                         return r.width > 0 && r.height > 0 && e.checkVisibility({checkVisibilityCSS: true}); };
  for (const c of document.querySelectorAll('[data-testid="stPlotlyChart"]'))
    if (sized(c) && !c.querySelector('.main-svg')) return 'plotly chart not drawn';
  for (const g of document.querySelectorAll('[data-testid="stDataFrame"]'))
    if (sized(g) && !g.querySelector('canvas')) return 'data grid not drawn';
  return '';
}
"""


def wait_until_idle(page, timeout_s: float = 90.0, settle_s: float = 0.6) -> None:
    """Until the script run is over, nothing spins, the main block holds elements, and every Plotly
    chart and data grid is drawn, and still so `settle_s` later (a rerun can start right after)."""
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    why = "not checked"
    while time.monotonic() < deadline:
        why = page.evaluate(_IDLE_JS)
        if why:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= settle_s:
            page.evaluate("document.fonts.ready")  # text is measured in its final font
            return
        time.sleep(0.15)
    raise TimeoutError(f"{page.url} did not finish rendering in {timeout_s:.0f} s ({why})")


_TITLE_FIRST_JS = r"""
() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const h1 = main && main.querySelector('h1');
  const split = main && main.querySelector('.st-key-lesson_split');
  if (!h1 || !split) return {title: h1 ? h1.innerText : null, title_top: null, panel_top: null};
  const content = [...split.querySelectorAll('[data-testid="stElementContainer"]')]
    .map((e) => e.getBoundingClientRect()).filter((r) => r.height > 0).map((r) => r.top);
  return {title: h1.innerText.trim(), title_top: h1.getBoundingClientRect().top,
          panel_top: content.length ? Math.min(...content) : null};
}
"""


def section_title_first(page) -> dict:
    """The page's first title (h1), where it starts, and where the prose/panel pair's first element
    starts (px from the top of the screen, the page scrolled to its top)."""
    page.evaluate("() => (document.querySelector('[data-testid=\"stMain\"]') || document.body).scrollTo(0, 0)")
    return page.evaluate(_TITLE_FIRST_JS)


def layout_problems(page) -> list[Problem]:
    """Every broken element now on the page (see the module docstring)."""
    return [Problem(**p) for p in page.evaluate(_CHECK_JS)]


_SCROLL_TOP = "() => (document.querySelector('[data-testid=\"stMain\"]') || document.scrollingElement).scrollTop"
_X_RANGE = ("(i) => { const g = document.querySelectorAll('[data-testid=\"stPlotlyChart\"] .js-plotly-plot')[i];"
            " return JSON.stringify(g._fullLayout.xaxis.range); }")


def swipe_over_chart(page, index: int = 0) -> dict:
    """A finger drawn upward over the `index`-th Plotly chart (touch events, through the DevTools
    protocol: Playwright's touchscreen only taps). Returns how far the page scrolled and whether
    the chart's x range changed (a zoom)."""
    chart = page.locator('[data-testid="stPlotlyChart"]').nth(index)
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    box = chart.bounding_box()
    x, y_from, y_to = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.7, box["y"] + box["height"] * 0.2
    top, x_range = page.evaluate(_SCROLL_TOP), page.evaluate(_X_RANGE, index)
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y_from}]})
        for i in range(1, 11):  # upward, and a little sideways, as a thumb goes
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
                {"x": x + 6 * i, "y": y_from + (y_to - y_from) * i / 10}]})
            page.wait_for_timeout(30)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()
    page.wait_for_timeout(1200)
    return {"scrolled_px": page.evaluate(_SCROLL_TOP) - top, "zoomed": page.evaluate(_X_RANGE, index) != x_range}

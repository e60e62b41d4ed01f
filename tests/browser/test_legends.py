"""No legend entry runs past its chart's edge, on page 7 (the longest entries: its timelines' "memory
copy …", drawn on two lines) at the narrowest common phone, 360 px, and at the checks' own sizes; the
check is shown to fail on an entry lengthened in the browser."""
from __future__ import annotations

import pytest
from screen_checks import layout_problems, wait_until_idle

PAGE = "/Will_graphs_help_my_model"
PHONE_360 = dict(viewport={"width": 360, "height": 800}, is_mobile=True, has_touch=True)


@pytest.fixture(scope="module")
def phone_360(browser):
    ctx = browser.new_context(**PHONE_360)
    ctx.set_default_timeout(60_000)
    yield ctx.new_page()
    ctx.close()


def _legend_problems(page, server):
    page.goto(server + PAGE, wait_until="domcontentloaded")
    wait_until_idle(page)
    assert page.locator(".legendtext").count(), "page 7 drew no legend"
    return [p for p in layout_problems(page) if p.kind == "legend"]


def test_no_legend_entry_runs_off_a_360_px_phone(server, phone_360):
    cut = _legend_problems(phone_360, server)
    assert not cut, "\n".join(map(str, cut))


@pytest.mark.parametrize("size", ["400x900", "1280x720"])
def test_no_legend_entry_runs_off_the_chart(server, page_at, size):
    cut = _legend_problems(page_at(size), server)
    assert not cut, "\n".join(map(str, cut))


def test_a_legend_entry_past_the_charts_edge_is_reported(server, phone_360):
    assert not _legend_problems(phone_360, server)
    phone_360.evaluate("""() => { const e = document.querySelector('.legendtext');
      e.textContent = 'a legend entry far too long for any phone, running well past the right edge'; }""")
    cut = [p for p in layout_problems(phone_360) if p.kind == "legend"]
    assert cut and "far too long" in cut[0].text, cut

"""On a touch screen a finger drawn over a chart scrolls the page (common.TOUCH_CHART_CSS); with a
mouse, dragging over a chart still zooms it. The check is shown to fail with the rule taken away."""
from __future__ import annotations

from screen_checks import swipe_over_chart, wait_until_idle

PAGE = "/Caching_allocator"  # a student scrolling through it got stuck zooming its malloc chart
# more specific than the app's rule, which comes later in the page
UNDO = ('html body [data-testid="stPlotlyChart"] :is(.draglayer, .nsewdrag, .drag) '
        '{ pointer-events: all !important; }')


def _open(page_at, server, size: str):
    page = page_at(size)
    page.goto(server + PAGE, wait_until="domcontentloaded")
    wait_until_idle(page)
    return page


def test_on_a_phone_a_swipe_over_a_chart_scrolls_the_page(server, page_at):
    moved = swipe_over_chart(_open(page_at, server, "400x900"))
    assert moved["scrolled_px"] > 50 and not moved["zoomed"], moved


def test_the_swipe_check_fails_where_the_chart_takes_the_touch(server, page_at):
    page = _open(page_at, server, "400x900")
    page.add_style_tag(content=UNDO)
    moved = swipe_over_chart(page)
    assert moved["zoomed"] and moved["scrolled_px"] < 50, moved


def test_with_a_mouse_dragging_over_a_chart_still_zooms(server, page_at):
    page = _open(page_at, server, "1280x720")
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    before = page.evaluate("() => JSON.stringify(document.querySelector('.js-plotly-plot')._fullLayout.xaxis.range)")
    page.mouse.move(box["x"] + box["width"] * 0.35, box["y"] + box["height"] * 0.5)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.65, box["y"] + box["height"] * 0.55, steps=8)
    page.mouse.up()
    page.wait_for_timeout(800)
    after = page.evaluate("() => JSON.stringify(document.querySelector('.js-plotly-plot')._fullLayout.xaxis.range)")
    assert after != before

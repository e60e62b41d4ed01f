"""On a phone, picking a page in the sidebar closes the sidebar (nav.CLOSE_ON_PICK_JS), as
Streamlit's own page list does; on a wide screen the sidebar stays where it was."""
from __future__ import annotations

from screen_checks import wait_until_idle

SIDEBAR_X = "() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().right"


def _pick_a_page(page_at, server, size: str) -> tuple[float, float, str]:
    """Open the home page at `size`, open the sidebar if it is closed, pick page 3: the sidebar's
    right edge before and after the pick, and the URL it landed on."""
    page = page_at(size)
    page.goto(server + "/", wait_until="domcontentloaded")
    wait_until_idle(page)
    if page.evaluate(SIDEBAR_X) <= 0:
        page.locator('[data-testid="stExpandSidebarButton"]').click()
        page.wait_for_timeout(800)
    before = page.evaluate(SIDEBAR_X)
    page.locator('[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]', has_text="Caching allocator").click()
    page.wait_for_url("**/Caching_allocator")
    wait_until_idle(page)
    return before, page.evaluate(SIDEBAR_X), page.url


def test_on_a_phone_picking_a_page_closes_the_sidebar(server, page_at):
    before, after, url = _pick_a_page(page_at, server, "400x900")
    assert before > 200, "the sidebar did not open"
    assert after <= 0, f"the sidebar still covers the page up to x={after} px after picking {url}"


def test_on_a_wide_screen_the_sidebar_stays_open(server, page_at):
    before, after, _ = _pick_a_page(page_at, server, "1280x720")
    assert before > 200 and after == before

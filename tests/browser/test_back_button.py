"""The browser's Back goes back a page: a page visit is one history entry (query_url.replace_owned,
nav.app_link), with the knobs at their defaults and with a setting carried from page to page."""
from __future__ import annotations

from screen_checks import wait_until_idle

ROUTE = ["7. Will graphs help my model", "3. Caching allocator", "9. Checkpoint"]


def _visit(page, label: str) -> None:
    page.locator('[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]', has_text=label).click()
    page.wait_for_timeout(1200)
    wait_until_idle(page)


def _path(page) -> str:
    return page.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]


def _route_then_back(page) -> list[str]:
    """Visit ROUTE, then press Back once per visit: the paths Back landed on."""
    grew = page.evaluate("history.length")
    for label in ROUTE:
        _visit(page, label)
    assert page.evaluate("history.length") - grew == len(ROUTE), "a visit added more than one history entry"
    landed = []
    for _ in ROUTE:
        page.go_back()
        page.wait_for_timeout(1200)
        wait_until_idle(page)
        landed.append(_path(page))
    return landed


def test_back_returns_to_the_page_before_at_the_defaults(server, page_at):
    page = page_at("1280x720")
    page.goto(server + "/Launch_overhead_killer", wait_until="domcontentloaded")
    wait_until_idle(page)
    assert "?" not in page.url  # the defaults write nothing
    landed = _route_then_back(page)
    assert landed == ["Caching_allocator", "Will_graphs_help_my_model", "Launch_overhead_killer"], landed


def test_back_returns_to_the_page_before_with_a_setting_carried(server, page_at):
    page = page_at("1280x720")
    page.goto(server + "/Launch_overhead_killer?n=130&mode=eager", wait_until="domcontentloaded")
    wait_until_idle(page)
    # the sidebar is drawn before the knobs read the URL: on this first run its links carry it already
    # (they carried the defaults, so page 7 opened bare and wrote the setting: two entries, in CI)
    href = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]', has_text="7. Will").get_attribute("href")
    assert "n=130" in href and "mode=eager" in href, href
    landed = _route_then_back(page)
    assert landed == ["Caching_allocator", "Will_graphs_help_my_model", "Launch_overhead_killer"], landed
    assert "n=130" in page.url and "mode=eager" in page.url  # the setting rode along every visit

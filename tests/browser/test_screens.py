"""Every page at three screen sizes, in headless Chromium: nothing cut, nothing overflowing, no
chart title on its legend, no exception. A screenshot of each page and size is saved (what the
student sees first, and the whole page) under BROWSER_SHOTS_DIR (default tests/browser/artifacts/).

Pages are found in pages/, so a new page is covered without touching this file.
"""
from __future__ import annotations

import pytest
from screen_checks import SIZES, app_pages, layout_problems, wait_until_idle

CASES = [(size, name, path) for size in SIZES for name, path in app_pages()]
FULL_PAGE_MAX_PX = 16_000


def save_screenshots(page, folder, name: str) -> None:
    """<name>.png: the first screen; <name>_full.png: the whole page. Streamlit scrolls its main
    area, not the document, so the whole page is taken with the viewport stretched to its height
    (only the height changes: the layout, which follows the width, stays the same)."""
    folder.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]') || document.body;"
                           " m.scrollTo(0, 0); return m.scrollHeight; }")
    page.screenshot(path=str(folder / f"{name}.png"))
    size = page.viewport_size
    if height > size["height"]:
        page.set_viewport_size({"width": size["width"], "height": min(height, FULL_PAGE_MAX_PX)})
        try:
            page.wait_for_timeout(300)
            page.screenshot(path=str(folder / f"{name}_full.png"))
        finally:
            page.set_viewport_size(size)


@pytest.mark.parametrize("size,name,path", CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_page_fits_the_screen(server, page_at, shots_dir, size, name, path):
    page = page_at(size)
    page.goto(server + path, wait_until="domcontentloaded")
    wait_until_idle(page)
    problems = layout_problems(page)
    save_screenshots(page, shots_dir / size, name)
    assert not problems, f"page {name} ({path}) at {size}:\n" + "\n".join(f"  {p}" for p in problems)

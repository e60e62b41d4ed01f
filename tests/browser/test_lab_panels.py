"""The torch-level labs (issues 28 and 29) as a student meets them without a GPU: in Chromium at
the projector's 1280x720 and a 400 px phone, each lab's button pressed, its recorded H200 panel
drawn, labelled as recorded, with nothing cut or overflowing. Issue 29's panels show their
recording at once, under their title; issue 28's wait for their button. A screenshot of each
panel, from its title or button down, goes to BROWSER_SHOTS_DIR/<size>/lab_<name>.png.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from screen_checks import layout_problems, wait_until_idle

LABS = {"/Streams_and_async": ("d2h_hazard",),
        "/Caching_allocator": ("alloc_snapshot", "alloc_conf", "malloc_async"),
        "/CUDA_graphs": ("partial_capture", "training_step", "graph_rng", "trees_lifecycle"),
        "/AOT_and_serving": ("compile_cache",)}
SHOWN_AT_ONCE = ("alloc_snapshot", "alloc_conf", "malloc_async", "trees_lifecycle", "compile_cache")
TITLES = json.loads((Path(__file__).resolve().parents[2] / "lessons" / "page_text.json").read_text())["labs29"]
PANEL_PX = 2600   # the height a panel's screenshot is given (the width stays the screen's)
CASES = [(size, path) for size in ("1280x720", "400x900") for path in LABS]


def shoot_panel(page, top, path) -> None:
    """The panel under `top` (its title or button), from there down: the viewport made tall (the layout follows
    the width only), the main area scrolled so the button is at the top."""
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": PANEL_PX})
    try:
        top.evaluate("(b) => { const m = document.querySelector('[data-testid=\"stMain\"]');"
                        " m.scrollTo(0, m.scrollTop + b.getBoundingClientRect().top - 60); }")
        page.wait_for_timeout(300)
        page.screenshot(path=str(path))
    finally:
        page.set_viewport_size(size)


@pytest.mark.parametrize("size,path", CASES, ids=[f"{s}-{p.strip('/')}" for s, p in CASES])
def test_each_recorded_lab_panel_renders_labelled_and_fits(server, page_at, shots_dir, size, path):
    page = page_at(size)
    page.goto(server + path, wait_until="domcontentloaded")
    wait_until_idle(page)
    folder = shots_dir / size
    folder.mkdir(parents=True, exist_ok=True)
    for name in LABS[path]:
        if name in SHOWN_AT_ONCE:
            top = page.get_by_role("heading", name=TITLES[f"{name}_title"])
            top.scroll_into_view_if_needed()
        else:
            top = page.get_by_role("button", name=re.compile(f"run the {name.replace('_', '-')} lab from its recording"))
            top.scroll_into_view_if_needed()
            top.click()
            wait_until_idle(page)
        text = page.locator('[data-testid="stMain"]').inner_text()
        assert "Not recorded yet" not in text, f"{name}: its recording is owed on {path}"
        assert "NVIDIA H200" in text and "RECORDED" in text.upper(), f"{name}: no recorded H200 label on {path}"
        shoot_panel(page, top, folder / f"lab_{name}.png")
    problems = layout_problems(page)
    assert not problems, f"{path} at {size} with its labs run:\n" + "\n".join(f"  {p}" for p in problems)

"""The AOT page renders, and an off-size request shows a guard miss -> pad, and -> reject."""
from pathlib import Path

import pytest
from conftest import open_page
from pages.ui.safe_text import unescape

ROOT = Path(__file__).resolve().parents[1]
PAGE = "pages/5_AOT_and_serving.py"


@pytest.fixture
def page():
    return open_page(PAGE)


def send(at, batch: int, policy: str):
    at.number_input(key="aot_batch").set_value(batch)
    at.selectbox(key="aot_policy").set_value(policy)
    at.button(key="aot_send").click().run()
    assert not at.exception, at.exception
    return at


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_page_renders_lesson_and_live_panels(page):
    text = " ".join(m.value for m in page.markdown)
    assert "Ahead-of-time compilation and serving" in text
    subheaders = [s.value for s in page.subheader]
    assert "The serving loop" in subheaders and "Cold start, warm start, AOT load" in subheaders
    assert [metric(page, k) for k in ("hits", "misses", "pads", "rejects")] == ["0"] * 4


def test_off_size_request_pads_then_rejects_with_a_clear_error(page):
    at = send(page, 5, "pad")
    assert any("Guard miss (batch 5 outside batch 1)" in s.value and "padded batch 5 up to 'aot batch 8'" in s.value
               for s in at.success), [s.value for s in at.success]
    assert (metric(at, "misses"), metric(at, "pads")) == ("1", "1")
    at = send(at, 5, "reject")
    assert any("guard miss: batch 5" in unescape(e.value) and "cannot recompile" in e.value for e in at.error)
    assert (metric(at, "misses"), metric(at, "rejects"), metric(at, "pads")) == ("2", "1", "1")
    at = send(at, 4, "reject")
    assert any("Guard hit" in s.value for s in at.success)
    assert metric(at, "hits") == "1"

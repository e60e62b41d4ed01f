"""Every figure two pages show has one value, or its label says what differs (issue 27).

Each page is rendered without a GPU (AppTest) and the figures it labels (pages/ui/figure_log.py) are
collected, keyed by (quantity, model, batch, dtype, harness). A key shown with two values fails.
The injected second value proves the check can fail on the pages themselves, not only on a list."""
from pathlib import Path

import pytest
from conftest import ROOT, open_page

from pages.ui import figure_log
from pages.ui.figure_log import DECODER_BENCH, DIAGNOSIS, FIELD_KEYS, conflicts

PAGES = [None] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("[0-9]*_*.py"))


def shown_figures(pages) -> list:
    entries = []
    for page in pages:
        at = open_page(page)
        for key, value, where in at.session_state[figure_log.LOG] if figure_log.LOG in at.session_state else []:
            entries.append((Path(page or "app.py").name, key, value, where))
    return entries


@pytest.fixture
def second_value(monkeypatch):
    """Page 5 shows the decoder bench's eager step 1 ms slower than every other page does."""
    real = figure_log.note

    def note(key, value, where):
        real(key, value, where)
        if key == FIELD_KEYS["decoder.eager_ms_per_token"] and where == "decoder table":
            real(key, value + 1.0, where + " (injected)")
    monkeypatch.setattr(figure_log, "note", note)


def test_no_labelled_figure_shows_two_values_across_the_pages():
    entries = shown_figures(PAGES)
    pages_with = {}
    for page, key, _, _ in entries:
        pages_with.setdefault(key, set()).add(page)
    eager = FIELD_KEYS["decoder.eager_ms_per_token"]
    # the decoder bench's figures appear on several pages: the check has something to compare
    assert {"4_CUDA_graphs.py", "5_AOT_and_serving.py", "11_Claims.py"} <= pages_with.get(eager, set())
    assert "8_Failure_modes.py" in pages_with.get(FIELD_KEYS["decoder.eager_launches_per_token"], set())
    bad = conflicts(entries)
    assert not bad, "\n".join(bad)


def test_an_injected_second_value_on_one_page_fails_the_check(second_value):
    bad = conflicts(shown_figures(["pages/4_CUDA_graphs.py", "pages/5_AOT_and_serving.py"]))
    assert len(bad) == 1 and "PyTorch eager time per step (ms)" in bad[0] and "injected" in bad[0], bad


def test_the_same_quantity_under_two_harnesses_is_two_keys_not_a_conflict():
    a, b = DECODER_BENCH.at("eager time per step (ms)"), DIAGNOSIS.at("eager time per step (ms)")
    assert not conflicts([("p4", a, 6.52, "table"), ("p7", b, 4.16, "diagnosis")])
    assert conflicts([("p4", a, 6.52, "table"), ("p5", a, 4.16, "table")])
    assert not conflicts([("p4", a, 6.52046, "table"), ("p5", a, 6.5205, "prose")])  # float noise only

"""Lesson prose is our own: no run of 10 consecutive words may also appear in the seed."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT.parent / "shared" / "reference" / "000_b4ddc58d3b9255ca.txt"
K = 10


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def lesson_files():
    for p in sorted((ROOT / "lessons").rglob("*")):
        if p.is_file() and "recordings" not in p.parts:
            yield p


@pytest.mark.skipif(not SEED.exists(), reason="the seed lesson is not beside this checkout")
def test_no_ten_word_run_is_shared_with_the_seed():
    s = words(SEED.read_text(encoding="utf-8"))
    seed_runs = {tuple(s[i:i + K]) for i in range(len(s) - K + 1)}
    hits = []
    for p in lesson_files():
        x = words(p.read_text(encoding="utf-8", errors="replace"))
        hits += [f"{p.name}: {' '.join(x[i:i + K])}" for i in range(len(x) - K + 1) if tuple(x[i:i + K]) in seed_runs]
    assert not hits, hits[:5]


def test_the_lesson_covers_every_section():
    names = {p.name for p in lesson_files()}
    for stem in ("01_artifact_vs_runtime", "02_streams_and_async", "03_caching_allocator", "04_cuda_graphs",
                 "05_aot_and_serving", "06_launch_overhead_widget", "07_failure_modes_and_checklist",
                 "08_takeaway_and_next"):
        assert f"{stem}.md" in names
    total = sum(len(words(p.read_text())) for p in lesson_files() if p.suffix == ".md")
    assert total >= 5000


def test_a_rendered_citation_marker_is_found_for_its_sources_line():
    """Page 5's threads note ends with ‹dev-machine› as rendered: the sources line must find it
    there too, not only in the raw "[dev-machine]" form."""
    pytest.importorskip("streamlit")
    from pages.ui.common import citations_in
    from runtime_core.lesson.page_text import text
    assert citations_in(text("aot", "serving_threads")) == ["dev-machine"]
    assert citations_in("a [seed] figure") == ["seed"]

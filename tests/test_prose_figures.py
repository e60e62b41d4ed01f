"""No number is typed into the lesson's prose.

A figure (a number with a unit: µs, ms, s, MB, MiB, GiB, KiB, %, x, ×, and the other units listed
in runtime_core/lesson/figures.py) in lessons/*.md or in a text field of lessons/*.json must be a
template field ({{name}}, computed at render from a shipped recording or the textbook model) or
sit in a sentence that carries a citation tag ([seed], [pytorch-source], ...). A citation must resolve inside
the repository: a tag for a file outside it (the old [h200-measurements]) is no citation.

Nothing is skipped: code spans and code blocks are scanned like prose, and LaTeX math is read as
text after `\\times` becomes × and the `$` signs go, so `$120 \\times 6 = 720$ µs` is the figure
"720 µs" and math cannot hide one. A plain multiplication such as "120 × 6" is not a figure.
"""
import shutil
from pathlib import Path

import pytest

from runtime_core.lesson import figures
from runtime_core.lesson.figures import (FIGURES, NOT_RECORDED, UNMEASURED, field_text, fields_used, render,
                                         typed_figures, violations)

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"


def test_no_lesson_file_has_a_typed_figure():
    found = violations(LESSONS)
    assert not found, "typed figures (use a {{field}} or a [citation]):\n" + "\n".join(found)


@pytest.mark.parametrize("planted", [
    "The copy took 1.5 µs.", "That is a 2× speedup.", "Replay took 3.4 ms here.", "The pool grew by 22 MB.",
    "About ~40% of the step was idle.", "Each launch costs 5–25 µs.", "It is 4.5x faster.", "Export took 6 s.",
    "A 64 MiB upload.", "It reserved 12 GiB.", "Blocks of 512 bytes.", "Rounded to 512 B.", "A 256 KiB block.",
    "At the defaults that is $120 \\times 6 = 720$ µs of tax.", "It took 2 to 3 ms.", "It took ≈0.99 µs per node.",
    "It ran 10 microseconds.", "Launch: 6us.",
])
def test_a_planted_typed_figure_is_caught(planted):
    assert typed_figures(planted), planted


def test_a_planted_figure_in_a_copy_of_the_lessons_fails_the_check(tmp_path):
    copy = tmp_path / "lessons"
    shutil.copytree(LESSONS, copy, ignore=shutil.ignore_patterns("recordings"))
    assert violations(copy) == []
    md = copy / "04_cuda_graphs.md"
    md.write_text(md.read_text() + "\nA replay took 12.5 ms on my machine.\n")
    js = copy / "interview.json"
    js.write_text(js.read_text().replace('"answer": "', '"answer": "It took 3 ms. ', 1))
    found = violations(copy)
    assert any("04_cuda_graphs.md: '12.5 ms'" in f for f in found), found
    assert any("interview.json: '3 ms'" in f for f in found), found


@pytest.mark.parametrize("fine", [
    "lesson 06 and §2–§4", "N = 120 kernels", "the address 0x7F0000000000", "120 × 6 = 720",
    "The copy took 1.5 µs [seed].", "The block rounds to 512 bytes [pytorch-source].",
    "It took {{decoder.eager_ms_per_token}} per token.", "a chain of $N$ kernels, $N \\times t$",
    "12-layer, width-256 decoder", "sequence lengths 128, 256, 512",
])
def test_fields_citations_and_plain_numbers_pass(fine):
    assert typed_figures(fine) == [], fine


def test_a_citation_covers_only_its_own_sentence():
    hits = typed_figures("It took 3 ms. The seed says so [seed].")
    assert len(hits) == 1 and "'3 ms'" in hits[0]
    assert typed_figures("| 3 ms | 4 ms [seed] |")  # a table cell is a sentence of its own


def test_every_field_the_lessons_use_exists_and_renders_from_the_shipped_recordings():
    used = fields_used(LESSONS)
    assert used, "the lessons use no template field"
    unknown = {name: files for name, files in used.items() if name not in FIGURES}
    assert not unknown, unknown
    for name in used:
        text = field_text(name)
        if FIGURES[name].zero_means_unmeasured:
            continue  # 0 in a calibration that predates the constant: shown as not measured
        assert text not in (NOT_RECORDED, UNMEASURED), name


def test_an_unknown_field_or_a_missing_recording_renders_a_marker_never_an_error():
    assert render("x {{no.such_field}} y") == f"x {NOT_RECORDED} y"
    assert render("{{decoder.eager_ms_per_token}}", recs={}) == NOT_RECORDED
    assert render("{{sweep.tax_us}}", recs={"sweep": None}) == NOT_RECORDED
    assert field_text("textbook.eager_overhead_us", recs={}) == "720 µs"  # the model needs no recording


def test_citations_render_as_markers_and_links_are_left_alone():
    assert render("It took 6 s [pytorch-source].") == "It took 6 s :gray[‹pytorch-source›]."
    assert render("took 6 s [seed]", markdown=False) == "took 6 s (seed)"
    assert render("[see it live](/CUDA_graphs)") == "[see it live](/CUDA_graphs)"


def test_a_zero_constant_reads_as_not_measured():
    from runtime_core.recordings import best
    rec = best("sweep")
    for name in ("sweep.stream_gap_us", "sweep.graph_upload_us"):
        v = figures.value(name, {"sweep": rec})
        assert field_text(name, {"sweep": rec}) == (UNMEASURED if v == 0 else FIGURES[name].text(v))


def test_a_tag_for_a_file_outside_the_repository_is_no_citation():
    """Every citation resolves inside the repository: the reference notes beside it are not one."""
    assert typed_figures("A 64 MiB upload took 1.27 ms [h200-measurements].")
    from runtime_core.lesson.figures import CITATIONS
    assert not [k for k, v in CITATIONS.items() if "shared/" in v or "../" in v]

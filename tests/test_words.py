"""Counted nouns in generated sentences (runtime_core/words.py): "1 copy", never "1 copies"."""
from runtime_core.words import count, either


def test_one_is_singular_and_the_rest_plural():
    assert count(1, "copy", "copies") == "1 copy" and count(2, "copy", "copies") == "2 copies"
    assert count(0, "graph") == "0 graphs" and count(1, "request") == "1 request"
    assert count(12000, "kernel") == "12,000 kernels"


def test_alternatives_read_as_words():
    assert either([1]) == "1" and either([0, 1]) == "0 or 1" and either([0, 1, 2]) == "0, 1 or 2"


def test_a_recording_kind_takes_its_article():
    from runtime_core.words import a_kind
    assert [a_kind(k) for k in ("alloc", "aot", "sweep", "diagnose")] == ["an alloc", "an aot", "a sweep", "a diagnose"]


def test_accuracy_on_a_kind_without_targets_reads_as_english(capsys):
    from pathlib import Path

    from conftest import cli_here
    rec = Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "alloc_h200.json"
    p = cli_here(capsys, "accuracy", "--recording", str(rec))
    assert p.returncode == 2 and "an alloc recording has no accuracy targets" in p.stderr


def test_a_list_of_all_of_them_reads_with_and():
    from runtime_core.words import all_of, either
    assert all_of([2, 3, 4]) == "2, 3 and 4" and all_of(["uniform", "zipf"]) == "uniform and zipf"
    assert all_of([5]) == "5" and either([0, 1, 2]) == "0, 1 or 2"

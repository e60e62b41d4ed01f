"""The pages' prose, as data: lessons/page_text.json holds every caption and note longer than a
sentence, by page and key, where the figure check (tests/test_prose_figures.py) reads it.

    text("caching_allocator", "hot_path_badge")          -> the text, {{fields}} filled in
    text("widget", "off_grid", label="recorded H200")     -> and {label} filled with the value

A {{field}} is a figure from a shipped recording or the model (lesson/figures.py); a {name} is a
value the page computed (already formatted, and escaped where it comes from outside).
"""
from __future__ import annotations

from pathlib import Path

from . import figures, json_file

PAGE_TEXT = Path(__file__).resolve().parents[2] / "lessons" / "page_text.json"


def _texts() -> dict:
    return json_file.load(PAGE_TEXT)


def text(page: str, key: str, markdown: bool = True, **values) -> str:
    """The text `key` of `page`, its {{fields}} and citation tags rendered, then its {names}
    filled with `values`."""
    rendered = figures.render(_texts()[page][key], markdown=markdown)
    return rendered.format(**values) if values else rendered

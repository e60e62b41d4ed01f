"""The pages' prose, as data: lessons/page_text.json holds every caption and note longer than a
sentence, by page and key, where the figure check (tests/test_prose_figures.py) reads it.

    text("caching_allocator", "hot_path_badge")          -> the text, {{fields}} filled in
    text("widget", "off_grid", label="recorded H200")     -> and {label} filled with the value

A {{field}} is a figure from a shipped recording or the model (lesson/figures.py); a {name} is a
value the page computed (already formatted, and escaped where it comes from outside).
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from . import figures

PAGE_TEXT = Path(__file__).resolve().parents[2] / "lessons" / "page_text.json"


def _texts() -> dict:
    """The file's texts, read again when it changes: a class server that pulls new texts while it
    runs must not pair a new page with the old texts (a key the page asks for would be missing)."""
    st = PAGE_TEXT.stat()
    return _read(st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=1)
def _read(mtime_ns: int, size: int) -> dict:  # the file's version: two writes in one clock tick differ in size
    return json.loads(PAGE_TEXT.read_text(encoding="utf-8"))


def text(page: str, key: str, markdown: bool = True, **values) -> str:
    """The text `key` of `page`, its {{fields}} and citation tags rendered, then its {names}
    filled with `values`."""
    rendered = figures.render(_texts()[page][key], markdown=markdown)
    return rendered.format(**values) if values else rendered

"""The text of the torch-level labs' panels (lessons/labs.json, "lab_texts"), {{fields}} filled
from the shipped labs recording (a field whose recording is owed renders "(not recorded)").

    text("graph_rng", "intro")        -> the text
    priority_key()                    -> which stream-priority sentence the recording supports
"""
from __future__ import annotations

from pathlib import Path

from . import figures, json_file

LABS_JSON = Path(__file__).resolve().parents[2] / "lessons" / "labs.json"


def _texts() -> dict:
    return json_file.load(LABS_JSON)["lab_texts"]


def text(lab: str, key: str | None = None, **values) -> str:
    raw = _texts()[lab] if key is None else _texts()[lab][key]
    rendered = figures.render(raw)
    return rendered.format(**values) if values else rendered


def priority_key(recs: dict | None = None) -> str:
    """"priority_measurable" or "priority_not_measurable" as the recorded H200 run decided, or
    "priority_owed" while no recording holds the measurement."""
    v = figures.value("labs.d2h_priority_measurable", recs)
    return "priority_owed" if v is None else ("priority_measurable" if v else "priority_not_measurable")

"""Recordings: measured runs shipped under lessons/recordings/, typed and checked on load.

    types.py      Recording, Meta and a sweep's Point
    schemas/      one JSON Schema per kind (sweep, alloc, decoder, bench, aot, reduce_overhead, diagnose,
                  labs, serving)
    store.py      load (validate), scan and best, atomic write
    lookup.py     the nearest recorded point to a setting, and its timeline
    sweep.py      measure the widget's grid into a sweep recording
    cli.py        `python -m runtime_core sweep`
"""
from .lookup import is_exact, nearest_point, point_at, timeline_for, timeline_key
from .store import RECORDINGS_DIR, best, load, scan, write
from .types import Meta, Point, Recording

__all__ = ["Recording", "Meta", "Point", "load", "scan", "best", "write", "RECORDINGS_DIR", "nearest_point",
           "point_at", "is_exact", "timeline_for", "timeline_key"]

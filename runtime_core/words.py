"""Counted nouns in generated sentences: "1 copy", "2 copies", never "1 copies" or "copy(ies)"."""
from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, plural unless `n` is 1 (`plural` defaults to noun + "s"), thousands separated."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def either(values) -> str:
    """Alternatives as words: [1] -> "1", [0, 1] -> "0 or 1", [0, 1, 2] -> "0, 1 or 2"."""
    items = [str(v) for v in values]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]

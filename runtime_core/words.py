"""Numbers in generated sentences: counted nouns ("1 copy", "2 copies", never "1 copies" or
"copy(ies)"), alternatives, and a percentage that cannot contradict the verdict beside it."""
from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, plural unless `n` is 1 (`plural` defaults to noun + "s"), thousands separated."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def a_kind(kind: str) -> str:
    """A recording kind with its article, by its first letter: "a sweep", "an alloc", "an aot"."""
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"


def either(values, joiner: str = "or") -> str:
    """Alternatives as words: [1] -> "1", [0, 1] -> "0 or 1", [0, 1, 2] -> "0, 1 or 2" (joiner "and":
    a list of all of them, "0, 1 and 2")."""
    items = [str(v) for v in values]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {joiner} " + items[-1]


def all_of(values) -> str:
    """A list as words: [2, 3, 4] -> "2, 3 and 4"."""
    return either(values, "and")


def percent_off(off: float, tolerance: float) -> str:
    """How far off, in words that cannot contradict the verdict: whole percents, or one or two
    decimals where whole ones would read as the tolerance itself or as 0% (10.04% against ±10%)."""
    for digits in (0, 1, 2):
        text = f"{off * 100:,.{digits}f}"
        if float(text.replace(",", "")) > tolerance * 100 and float(text.replace(",", "")) > 0:
            return text + "%"
    # two decimals still read as the tolerance (15.000000001% against ±15%) or as 0%
    return f"just over {tolerance * 100:g}%" if off > tolerance > 0 else "under 0.01%"

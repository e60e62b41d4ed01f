"""A checkpoint step's prediction, judged: close to the textbook model or far off, and why.

A step that asks for a prediction states its tolerance (lessons/checkpoint.json, `predict.tolerance`,
a fraction of the textbook value; 0 means exact, as for a count of driver calls). The student's
number is judged against the textbook model, which is what the question asks for, and the message
also gives the measured value, so a student who predicted the GPU's number learns why it differs.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..words import percent_off

DEFAULT_TOLERANCE = 0.10
# a number as typed: ASCII digits, one optional point, an optional exponent (float() alone would also
# take "1_000", "inf", "nan" and other scripts' digits)
# (one way to match each string: "\d+\.?\d*" was slow in the square of a long run of digits)
TYPED_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
TYPED_MAX_CHARS = 64  # longer is not a prediction unless it is a plain number (then out of range)
TYPED_LONG_MAX_CHARS = 4096  # longer still: refused before any matching
# a unit after the number: µs (the micro sign or the Greek mu) or us is the question's own and is
# dropped; another time unit is refused by name, never converted (the student fixes the number)
TYPED_UNIT = re.compile(r"\s*(?P<unit>[µμu]s(?:ec)?|ms|ns|s|sec|seconds?|msec|nsec)\s*$", re.IGNORECASE)
OTHER_UNITS = {"ms": "ms", "msec": "ms", "ns": "ns", "nsec": "ns", "s": "s", "sec": "s", "second": "s",
               "seconds": "s"}
IN_US = {"ms": 1e3, "ns": 1e-3, "s": 1e6}  # µs in one of each (a guess off by that factor is the
                                          # answer written in that unit)


def per_us(unit: str) -> str:
    """One `unit` in µs, in words: "1 ms = 1000 µs"."""
    return f"1 {unit} = {IN_US[unit]:.10g} µs"


def read_typed(text: str | None, unit: str = "") -> tuple[float | None, str]:
    """A prediction box's text as a number: (value, "") or (None, why): "empty"; "comma" (a decimal
    comma or a thousands separator: the browser's own number box read "246,5" as 2465, so the
    text is read here and a comma is refused, never guessed); "not_a_number" (letters, units,
    several points); "too_large" (past what a float holds, 1e999). With unit "µs" the number may
    end in µs or us (the question's unit, dropped), and one that ends in another time unit is
    "unit_ms", "unit_ns" or "unit_s"."""
    text = "" if text is None else str(text).strip()
    if not text:
        return None, "empty"
    if len(text) > TYPED_MAX_CHARS and (len(text) > TYPED_LONG_MAX_CHARS or not TYPED_NUMBER.fullmatch(text)):
        return None, "not_a_number"  # a long run of digits is still a number: read, then judged by its range
    tail = TYPED_UNIT.search(text) if unit == "µs" else None
    if tail and TYPED_NUMBER.fullmatch(text[:tail.start()].replace(",", "")):
        said = tail["unit"].lower()
        if said in OTHER_UNITS:
            return None, f"unit_{OTHER_UNITS[said]}"
        text = text[:tail.start()]
    if "," in text and TYPED_NUMBER.fullmatch(text.replace(",", "")):
        return None, "comma"
    if not TYPED_NUMBER.fullmatch(text):
        return None, "not_a_number"
    value = float(text) + 0.0  # + 0.0: "-0" is 0, not a negative zero shown back as "-0"
    return (value, "") if math.isfinite(value) else (None, "too_large")


def box_text(value: float | None) -> str:
    """A kept prediction as the box shows it again: as typed, to ten significant digits."""
    return "" if value is None else f"{value:.10g}"


@dataclass(frozen=True)
class Judgement:
    """How one prediction compares: `close` within the step's tolerance, and a one-sentence
    `message` with the numbers."""

    close: bool
    message: str
    tolerance: float


def judge(guess: float, textbook: float, measured: float | None, tolerance: float = DEFAULT_TOLERANCE,
          unit: str = "µs", measured_label: str = "the measured run", hint: str = "") -> Judgement:
    """Judge `guess` against the `textbook` value (and name the `measured` one beside it)."""
    fmt = (lambda v: f"{v:,.0f}") if unit == "" else (lambda v: f"{v:,.1f} {unit}")
    off = abs(guess - textbook) / abs(textbook) if textbook else abs(guess)
    close = off <= tolerance + 1e-12
    meas = f"; {measured_label} gave {fmt(measured)}" if measured is not None else ""
    if close:
        band = "exactly" if tolerance == 0 else f"within ±{tolerance:.0%} of"
        msg = f"Close: you predicted {as_typed(guess, unit)}, {band} the textbook model's {fmt(textbook)}{meas}."
    else:
        side = "above" if guess > textbook else "below"
        how = f"{percent_off(off, tolerance)} {side}" if textbook else side
        rule = "only an exact match counts" if tolerance == 0 else f"within ±{tolerance:.0%} of it counts"
        # a miss within twice the band is not the same mistake as one off by a factor; where only an
        # exact match counts (a count), a miss within a factor of two is "not exact", one beyond it far off
        verdict = (("Not exact" if _within_factor(guess, textbook, 2.0) else "Far off") if not tolerance
                   else "Just outside" if off <= 2 * tolerance else "Far off")
        if unit == "" and guess != int(guess):
            hint = "a count is a whole number" + (f"; {hint}" if hint else "")
        slip = unit_slip(guess, textbook, tolerance) if unit == "µs" else None
        if slip:
            hint = (f"read in {slip}, your {as_typed(guess, '')} is the textbook's number: this step asks "
                    f"for µs ({per_us(slip)})")
        msg = (f"{verdict}: you predicted {as_typed(guess, unit)}, {how} the textbook model's {fmt(textbook)} "
               f"(this step: {rule} as close){meas}" + (f"; {hint}" if hint else "") + ".")
    return Judgement(close, msg, tolerance)


def unit_slip(guess: float, textbook: float, tolerance: float) -> str | None:
    """"ms", "ns" or "s" when `guess`, read in that unit, is the textbook's µs within the tolerance (4.8
    for 4,806 µs is the answer in ms); None otherwise."""
    for unit, scale in IN_US.items():
        if textbook and abs(guess * scale - textbook) <= max(tolerance, 0.01) * abs(textbook):
            return unit
    return None


def _within_factor(guess: float, textbook: float, factor: float) -> bool:
    """Whether `guess` lies within `factor` of `textbook` either way (both of one sign)."""
    if guess == textbook:
        return True
    if textbook == 0 or guess == 0 or (guess > 0) != (textbook > 0):
        return False
    return 1 / factor <= guess / textbook <= factor


def as_typed(guess: float, unit: str) -> str:
    """The student's number as judged: the textbook's format (a count whole, µs to one decimal)
    unless they typed more decimals (up to 6), so 120.4 driver calls never reads as the 120 that
    would have been exact."""
    typed = f"{guess:.6f}".rstrip("0").split(".")
    decimals = max(0 if unit == "" else 1, len(typed[1]) if len(typed) > 1 else 0)
    text = f"{guess:,.{decimals}f}"
    return f"{text} {unit}" if unit else text


def summary(judged: dict[str, Judgement], asked: int, entered: list[str] = ()) -> str:
    """The line under the steps: how many predictions were close, never 'every check holds' while
    one was far off. `entered`: the steps whose prediction is typed but not judged yet (its result
    is still to be recorded)."""
    waiting = ""
    if entered:
        n = len(entered)
        waiting = (f"{n} prediction{'s' if n != 1 else ''} typed (step{'s' if n != 1 else ''} {', '.join(entered)}), "
                   f"judged once {'their results are' if n != 1 else 'its result is'} recorded")
    if not judged:
        return (f"{waiting}; {asked} steps ask for one." if waiting else
                f"No prediction entered yet ({asked} steps ask for one).")
    close = sum(1 for j in judged.values() if j.close)
    far = len(judged) - close
    left = asked - len(judged) - len(entered)
    return (f"{close} of {len(judged)} predictions within their step's tolerance"
            + (f"; {far} outside it (each step says by how much and why)" if far else "")
            + (f"; {waiting}" if waiting else "")
            + (f"; {left} still to make" if left > 0 else "") + ".")

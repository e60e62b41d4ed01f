"""A checkpoint prediction is judged: close within the step's tolerance, far off with the numbers
and the reason, and the summary counts the far-off ones."""
import math

import pytest

from runtime_core.lesson.prediction import judge, read_typed, summary


def test_a_wrong_prediction_is_far_off_with_the_numbers():
    j = judge(100.0, 720.0, 1630.0, tolerance=0.10, measured_label="the recorded H200",
              hint="eager pays the 6 µs tax on each of 120 launches")
    assert not j.close
    assert "Far off" in j.message and "100.0 µs" in j.message and "720.0 µs" in j.message
    assert "86% below" in j.message and "the recorded H200 gave 1,630.0 µs" in j.message
    assert "120 launches" in j.message and j.message.count(".") >= 1


def test_a_miss_just_past_the_band_is_told_apart_from_a_far_one():
    """4,200 against 4,806 µs (13% below, ±10% asked) read "Far off", as a 67% miss did."""
    near, far = judge(4200.0, 4806.0, None, tolerance=0.10), judge(240.0, 720.0, None, tolerance=0.10)
    assert not near.close and near.message.startswith("Just outside: ") and "13% below" in near.message
    assert not far.close and far.message.startswith("Far off: ")
    assert judge(119.0, 120.0, None, tolerance=0.0, unit="").message.startswith("Not exact: ")  # exact steps: no band
    odd = judge(120.4, 120.0, None, tolerance=0.0, unit="").message   # not "Far off" for 0.3%, and why it missed
    assert odd.startswith("Not exact: you predicted 120.4,") and "a count is a whole number" in odd
    # a count off by a factor is not a near miss: 1 driver call against 120 reads "Far off"
    assert judge(1.0, 120.0, None, tolerance=0.0, unit="").message.startswith("Far off: you predicted 1,")
    assert judge(240.0, 120.0, None, tolerance=0.0, unit="").message.startswith("Not exact: ")   # twice: not exact
    assert judge(241.0, 120.0, None, tolerance=0.0, unit="").message.startswith("Far off: ")


def test_a_prediction_within_tolerance_is_close():
    assert judge(700.0, 720.0, None, tolerance=0.10).close
    assert not judge(600.0, 720.0, None, tolerance=0.10).close


def test_a_count_is_judged_exactly():
    assert judge(120.0, 120.0, 120.0, tolerance=0.0, unit="").close
    j = judge(1.0, 120.0, 120.0, tolerance=0.0, unit="")
    assert not j.close and "only an exact match counts as close" in j.message


def test_the_summary_never_says_all_is_well_while_one_was_far_off():
    line = summary({"a": judge(720, 720, None), "b": judge(100, 720, None)}, asked=5)
    assert line.startswith("1 of 2 predictions within") and "1 outside it" in line and "3 still to make" in line
    assert "every check holds" not in line


def test_a_near_miss_reads_as_one_with_the_decimals_that_decide_it():
    """120.4 driver calls read "you predicted 120, 0% above ... 120" and 270.7 µs "10% above"
    against ±10%: the verdict said far off beside numbers that looked close."""
    j = judge(120.4, 120.0, 120.0, tolerance=0.0, unit="")
    assert not j.close and "you predicted 120.4," in j.message and "0.3% above" in j.message
    j = judge(270.7, 246.0, 267.3, tolerance=0.10)
    assert not j.close and "270.7 µs" in j.message and "10.04% above" in j.message
    assert "0% above" not in judge(120.0001, 120.0, None, tolerance=0.0, unit="").message
    assert "406,503,965% above" in judge(1e9, 246.0, None).message


def test_the_answer_in_ms_or_ns_is_told_as_a_unit_slip_not_a_wrong_idea():
    for guess, unit in ((4.8, "ms"), (4_806_000.0, "ns")):
        j = judge(guess, 4806.0, None, tolerance=0.1)
        assert not j.close and f"read in {unit}" in j.message and "asks for µs" in j.message, j.message
    assert "read in" not in judge(48.0, 4806.0, None).message  # a guess 100x off is no unit slip
    assert "read in" not in judge(5.0, 5000.0, None, unit="").message  # a count has no unit to slip


@pytest.mark.parametrize("typed, read", [
    ("246 µs", (246.0, "")), ("246us", (246.0, "")), ("246 μs", (246.0, "")), (" 1e3 US ", (1000.0, "")),
    ("4.8 ms", (None, "unit_ms")), ("246 ns", (None, "unit_ns")), ("0.5 s", (None, "unit_s")),
    ("246 apples", (None, "not_a_number")), ("us", (None, "not_a_number")), ("1,000 us", (None, "comma")),
])
def test_a_us_step_takes_its_own_unit_after_the_number_and_names_another(typed, read):
    assert read_typed(typed, "µs") == read
    assert read_typed(typed)[0] is None  # a count step takes digits only


def test_minus_zero_is_zero_and_a_long_number_is_a_number():
    """A student review: "-0" was kept and shown back as "-0" (judged as -0.0 µs) while -246 is
    refused, and 70 typed digits were called "not a number" where 1e10 is "out of range"."""
    for typed in ("-0", "-0.0", "+0"):
        value, why = read_typed(typed)
        assert (value, why) == (0.0, "") and math.copysign(1.0, value) == 1.0, typed
    assert read_typed("1" * 70) == (float("1" * 70), "")  # read; the checkpoint's range refuses it
    assert read_typed("0." + "0" * 70 + "5")[0] == 5e-71
    assert read_typed("12a" * 30) == (None, "not_a_number")
    assert read_typed("1" * 5000) == (None, "not_a_number")  # past TYPED_LONG_MAX_CHARS: not read at all

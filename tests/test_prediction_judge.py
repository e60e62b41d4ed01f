"""A checkpoint prediction is judged: close within the step's tolerance, far off with the numbers
and the reason, and the summary counts the far-off ones."""
from runtime_core.lesson.prediction import judge, summary


def test_a_wrong_prediction_is_far_off_with_the_numbers():
    j = judge(100.0, 720.0, 1630.0, tolerance=0.10, measured_label="the recorded H200",
              hint="eager pays the 6 µs tax on each of 120 launches")
    assert not j.close
    assert "Far off" in j.message and "100.0 µs" in j.message and "720.0 µs" in j.message
    assert "86% below" in j.message and "the recorded H200 gave 1,630.0 µs" in j.message
    assert "120 launches" in j.message and j.message.count(".") >= 1


def test_a_prediction_within_tolerance_is_close():
    assert judge(700.0, 720.0, None, tolerance=0.10).close
    assert not judge(600.0, 720.0, None, tolerance=0.10).close


def test_a_count_is_judged_exactly():
    assert judge(120.0, 120.0, 120.0, tolerance=0.0, unit="").close
    j = judge(1.0, 120.0, 120.0, tolerance=0.0, unit="")
    assert not j.close and "exactly" in j.message


def test_the_summary_never_says_all_is_well_while_one_was_far_off():
    line = summary({"a": judge(720, 720, None), "b": judge(100, 720, None)}, asked=5)
    assert line.startswith("1 of 2 predictions within") and "1 far off" in line and "3 still to make" in line
    assert "every check holds" not in line

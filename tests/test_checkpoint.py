"""The checkpoint: each step's check, and a student walking all six steps in the app."""
import pytest
from conftest import open_page

from runtime_core.lesson.checkpoint import ORDER, check_step, setting_todo
from runtime_core.knobs import Knobs
from runtime_core.model.formulas import predict


def model_view(mode, work_us, dynamic):
    return {"model": predict(Knobs(mode, 120, work_us, tax_us=6.0, dynamic=dynamic)).metrics(), "measured": None}


def setting(**kw):
    s = {"n": 120, "tax_us": 6.0, "work_us": 2.0, "mode": "graph", "dynamic": False, "policy": "fallback"}
    s.update(kw)
    return s


def test_a_wrong_setting_says_what_to_change():
    todo = setting_todo("eager", setting(mode="streams", n=50))
    assert "set mode to eager" in todo and "set n to 120" in todo


def test_each_step_ticks_on_the_textbook_model_in_order():
    done = set()
    for step, s in zip(ORDER, [setting(), setting(mode="eager"), setting(mode="streams"),
                               setting(mode="streams", work_us=40.0), setting(mode="streams"),
                               setting(dynamic=True)]):
        r = check_step(step, s, model_view, done)
        assert r.done, (step, r)
        done.add(step)


def test_work_back_to_2_needs_the_40_us_step_first():
    assert not check_step("work_back_2", setting(mode="streams"), model_view, set()).done


def test_a_relation_that_fails_is_reported():
    def bad_view(mode, work_us, dynamic):
        v = model_view(mode, work_us, dynamic)
        v["measured"] = dict(v["model"], launch_overhead_us=1.0)  # a "GPU" with no overhead
        return v
    r = check_step("eager", setting(mode="eager"), bad_view)
    assert not r.done and any("measured" in f for f in r.failed)


def test_student_walks_the_checkpoint_and_every_step_ticks():
    at = open_page("pages/9_Checkpoint.py")
    steps = [("w_mode", "graph"), ("w_mode", "eager"), ("w_mode", "streams"), ("w_work", 40.0),
             ("w_work", 2.0), ("w_mode", "graph"), ("w_dynamic", True)]
    for key, value in steps:
        widget = {"w_mode": at.radio, "w_work": at.number_input, "w_dynamic": at.checkbox}[key](key=key)
        widget.set_value(value).run()
        assert not at.exception
    titles = [e.label for e in at.expander if e.label[0] in "✅⬜"]
    assert len(titles) == 6 and all(t.startswith("✅") for t in titles), titles
    assert "6 of 6" in at.get("progress")[0].proto.text

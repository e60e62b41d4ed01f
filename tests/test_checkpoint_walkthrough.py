"""What a student walking through the Checkpoint alone tripped over, each checked on the page:
a hidden setting names the step it belongs to, an out-of-range prediction is refused in words
(no hover on a phone), a typed prediction is counted before it is judged, a "Close" beside a
measurement far from the textbook says why, eager rows carry no graph, the ‹seed› marker is
explained, and a reset asks first."""
from conftest import open_page
from test_checkpoint_student import predict, record, set_knob, steps_done

from pages.ui.safe_text import unescape

PAGE = "pages/9_Checkpoint.py"


def _all(at, *kinds) -> str:
    return "\n".join(unescape(str(e.value)) for k in kinds for e in getattr(at, k))


def test_a_later_steps_setting_is_hidden_with_that_steps_name_not_the_open_ones():
    at = open_page(PAGE)
    predict(at, "defaults_graph", 250)
    set_knob(at, "w_mode", "streams")          # step 3's setting, while step 1 is open
    hidden = [c for c in _all(at, "caption").split("\n") if "numbers hidden" in c]
    assert hidden and "step 3's, which opens after step 1" in hidden[0], hidden


def test_an_out_of_range_prediction_is_refused_in_words_and_the_earlier_one_kept():
    at = open_page(PAGE)
    predict(at, "defaults_graph", 250)
    predict(at, "defaults_graph", -5)
    warned = _all(at, "warning")
    assert "Not kept: “-5” is not a prediction" in warned and "from 0 to" in warned
    assert at.text_input(key="ck_pred_defaults_graph").value == "250"
    record(at, "defaults_graph")
    assert any("250.0 µs" in s.value for s in at.success)   # the kept prediction is the one judged


def test_a_huge_prediction_is_refused_quoting_the_text_as_typed():
    """Quoted as typed, never as the float read from it (1e30 printed in full reads
    1,000,000,000,000,000,019,884,624,838,656)."""
    at = open_page(PAGE)
    predict(at, "defaults_graph", "99999999999")
    warned = _all(at, "warning")
    assert "Not kept: “99999999999” is not a prediction" in warned, warned
    predict(at, "defaults_graph", "1e30")
    assert "Not kept: “1e30” is not" in _all(at, "warning")


def test_the_summary_counts_a_prediction_typed_but_not_yet_judged():
    at = open_page(PAGE)
    assert "No prediction entered yet" in _all(at, "markdown")
    predict(at, "defaults_graph", 250)
    text = _all(at, "markdown")
    assert "No prediction entered yet" not in text and "1 prediction typed (step 1)" in text


def test_a_close_prediction_beside_a_far_measurement_says_why_and_eager_rows_have_no_graph():
    at = open_page(PAGE)
    predict(at, "defaults_graph", 246)
    record(at, "defaults_graph")
    set_knob(at, "w_mode", "eager")
    predict(at, "eager", 720)                  # exactly the textbook's
    record(at, "eager")
    assert any("Close" in s.value and "720.0 µs" in s.value for s in at.success)
    info = _all(at, "info")
    assert "the textbook's number" in info and "synchronize round trip" in info   # beside the verdict
    from pages.ui.tables import plain
    cells = [plain(str(v)) for t in at.table for v in t.value.to_numpy().ravel()]
    assert "— (no graph)" in cells and "TRUE" not in cells and "FALSE" not in cells


def test_the_seed_marker_is_explained_and_a_reset_asks_first():
    at = open_page(PAGE)
    assert any("‹seed›" in c.value and "Sources:" in c.value for c in at.caption)
    assert "ckpt_reset" not in {b.key for b in at.button}     # nothing to erase yet: no reset
    predict(at, "defaults_graph", 250)
    record(at, "defaults_graph")
    assert any("There is no undo" in m.value and "1 recorded result and 1 prediction" in m.value for m in at.markdown)
    at.button(key="ckpt_reset").click().run()
    assert "No prediction entered yet" in _all(at, "markdown")


def test_a_typed_prediction_does_not_reveal_the_answer_before_the_step_is_recorded():
    """A student typed 1, saw "wall time / step 267 µs · textbook 246 µs" in the header, changed the
    box to 246 and was told "Close". The setting's numbers now wait for the step's record."""
    at = open_page(PAGE)
    predict(at, "defaults_graph", 1)
    shown = _all(at, "markdown", "caption", "metric")
    assert "numbers hidden" in shown and not at.metric, [m.label for m in at.metric]
    predict(at, "defaults_graph", 300)         # still open to change: nothing was shown
    record(at, "defaults_graph")
    assert any("300.0 µs" in w.value for w in [*at.warning, *at.success])
    from pages.ui.tables import plain
    cells = {plain(str(c)) for t in at.table for c in t.value.columns}
    assert "textbook model" in cells           # recorded: the step's evidence, textbook beside measured


def test_the_last_steps_verdict_is_shown_when_every_step_is_done():
    """Each verdict appears at the top of the next step; step 6 has none, and every step collapses."""
    from test_checkpoint import _predict, _record
    at = open_page(PAGE)
    for step, guess, knobs_ in (("defaults_graph", 246, {}), ("eager", 720, {"w_mode": "eager"}),
                                ("streams", 722, {"w_mode": "streams"}), ("work_40", 4806, {"w_work": 40.0})):
        _predict(at, step, guess)
        _record(at, step, **knobs_)
    _record(at, "work_40", w_mode="graph")
    _record(at, "work_back_2", w_work=2.0)
    _record(at, "work_back_2", w_mode="streams")
    _predict(at, "dynamic_graph", 7)
    _record(at, "dynamic_graph", w_mode="graph", w_dynamic=True)
    assert steps_done(at) == 6
    assert any(w.value.startswith("Step 6: Far off: you predicted 7,") for w in at.warning), [w.value for w in at.warning]
    # a finished checkpoint says where to go next, and how to try the predictions again
    assert "What next." in _all(at, "markdown") and "reset your progress" in _all(at, "markdown")
    links = [e.proto.page for e in at.get("page_link")]
    assert any("Interview" in x for x in links) and any("Claims" in x for x in links), links


def test_a_hidden_setting_before_the_prediction_is_not_named_as_the_open_steps():
    """With step 1 recorded and the knobs still at graph (step 1's setting), the caption said
    "Type step 2's prediction first. This setting's numbers ... appear once you have"."""
    at = open_page(PAGE)
    predict(at, "defaults_graph", 246)
    record(at, "defaults_graph")
    hidden = [c for c in _all(at, "caption").split("\n") if "numbers hidden" in c]
    assert hidden and "Type step 2's prediction first" in hidden[0] and "no numbers at any setting" in hidden[0], hidden
    set_knob(at, "w_mode", "eager")            # step 2's own setting
    hidden = [c for c in _all(at, "caption").split("\n") if "numbers hidden" in c]
    assert hidden and "Step 2's setting" in hidden[0], hidden


def test_the_measured_cards_say_what_launch_tax_the_measurement_ran_at():
    """The textbook chips run at the knob's tax (6 µs); the recorded point ran at the GPU's own
    whole tax. Once the numbers show, a line says so, as page 6's does."""
    at = open_page(PAGE)
    predict(at, "defaults_graph", 246)
    record(at, "defaults_graph")
    set_knob(at, "w_mode", "eager")
    predict(at, "eager", 720)
    record(at, "eager")
    predict(at, "streams", 500)                # typed: the settings of the steps done show their numbers
    set_knob(at, "w_mode", "graph")
    assert at.metric, _all(at, "caption")
    assert "µs of host time, as measured" in _all(at, "caption"), _all(at, "caption")


def test_the_prediction_box_is_named_in_plain_words_with_the_question_in_bold_above_it():
    """A widget label's Markdown reaches a screen reader as typed ("star star wall time")."""
    at = open_page(PAGE)
    box = at.text_input(key="ck_pred_defaults_graph")
    assert "**" not in box.label and "wall time per step" in box.label
    assert any("**wall time per step**" in m.value for m in at.markdown)

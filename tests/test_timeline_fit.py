"""The measured timeline agrees with its metrics: every recorded timeline, redrawn with the
unprofiled costs, is as long as the wall time beside it (within 20%), and its replay call is drawn
within 2x of the calibrated graph launch. The simulator's own timelines hold the same target."""
import pytest

from runtime_core.knobs import Knobs
from runtime_core.model.formulas import graph_launch_us
from runtime_core.model.timeline_fit import redraw, step_length_us
from runtime_core.recordings import best
from runtime_core.recordings.lookup import point_at

SETTINGS = [(mode, work) for mode in ("eager", "streams", "graph") for work in (2.0, 40.0)]


def _recorded(mode, work, dynamic=False):
    rec = best("sweep")
    p = point_at(rec, mode, 120, work, dynamic=dynamic)
    spans = rec.timelines.get(f"{mode}|n=120|work={work:g}|dynamic={int(dynamic)}")
    return rec, p, [s if isinstance(s, dict) else dict(s.__dict__) for s in (spans or [])]


@pytest.mark.parametrize("mode,work", SETTINGS)
def test_recorded_timeline_is_as_long_as_its_wall_time(mode, work):
    rec, p, spans = _recorded(mode, work)
    assert p is not None and spans, "the shipped sweep traces the seed's default and checkpoint settings"
    drawn = redraw(spans, p.wall_us, p.tax_us, rec.meta.calibration)
    assert step_length_us(drawn) == pytest.approx(p.wall_us, rel=0.20)
    assert sorted(s["name"] for s in drawn if s["lane"] == "gpu") == sorted(s["name"] for s in spans if s["lane"] == "gpu")
    if mode == "graph":
        g = graph_launch_us(p.tax_us, rec.meta.calibration, 120)
        (launch,) = [s for s in drawn if s["kind"] == "graph"]
        assert g / 2 <= launch["end_us"] - launch["start_us"] <= 2 * g


def test_the_shape_miss_timeline_is_redrawn_as_what_ran():
    rec, p, spans = _recorded("graph", 2.0, dynamic=True)
    drawn = redraw(spans, p.wall_us, p.tax_us, rec.meta.calibration)
    assert not [s for s in drawn if s["kind"] == "graph"]  # the fallback ran streams: no replay drawn
    assert step_length_us(drawn) == pytest.approx(p.wall_us, rel=0.20)


def test_the_profilers_own_graph_timeline_misses_the_target():
    """What the check is for: the raw trace's replay step is far longer than the timed one."""
    rec, p, spans = _recorded("graph", 2.0)
    assert step_length_us(spans) > 1.2 * p.wall_us


@pytest.mark.parametrize("mode,work", SETTINGS)
def test_simulated_timeline_is_as_long_as_its_wall_time(mode, work):
    from runtime_core.engine.measure import measure
    from runtime_core.recordings.shipped import get_device
    r = measure(get_device("sim"), Knobs(mode, 120, work))
    rows = r.timeline_rows()
    assert step_length_us(rows) == pytest.approx(r.wall_us, rel=0.20)
    if mode == "graph":
        (launch,) = [s for s in rows if s["kind"] == "graph"]
        c = get_device("sim").known_constants()
        g = graph_launch_us(r.tax_us, c, 120)
        assert g / 2 <= launch["end_us"] - launch["start_us"] <= 2 * g

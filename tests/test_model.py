"""The analytic model: the seed's checkpoint story, the formulas, and bad inputs."""
import math

import pytest

from runtime_core.constants import Constants
from runtime_core.errors import UsageError
from runtime_core.knobs import Knobs
from runtime_core.model import formulas as model


def predict(mode, n, tax, work, dynamic=False, policy="fallback"):
    return model.predict(Knobs(mode, n, work, tax_us=tax, dynamic=dynamic, policy=policy))


def test_seed_defaults_eager_is_720_us_of_tax_against_240_of_work():
    r = predict("eager", 120, 6, 2)
    assert r.launch_overhead_us == pytest.approx(720)
    assert r.kernel_work_us == pytest.approx(240)
    assert r.driver_calls == 120


def test_streams_overhead_is_between_zero_and_eager_while_tax_exceeds_work():
    s, e = predict("streams", 120, 6, 2), predict("eager", 120, 6, 2)
    assert 0 < s.launch_overhead_us < e.launch_overhead_us
    assert s.wall_us == pytest.approx(max(120 * 6 + 2, 6 + 120 * 2))


def test_streams_within_5_percent_of_graph_at_40_us_of_work():
    s, g = predict("streams", 120, 6, 40), predict("graph", 120, 6, 40)
    assert abs(s.wall_us - g.wall_us) / g.wall_us <= 0.05


def test_graph_is_one_driver_call_and_one_launch_of_overhead():
    g = predict("graph", 120, 6, 2)
    assert g.driver_calls == 1 and g.graph_valid
    assert g.launch_overhead_us == pytest.approx(6)


def test_dynamic_shapes_invalidate_the_graph_and_overhead_falls_back_to_eager():
    g, e = predict("graph", 120, 6, 2, dynamic=True), predict("eager", 120, 6, 2)
    assert g.graph_valid is False
    assert g.launch_overhead_us == pytest.approx(e.launch_overhead_us)
    assert g.driver_calls == 120


def test_bucket_policy_keeps_the_graph_valid():
    b = predict("graph", 120, 6, 2, dynamic=True, policy="bucket")
    assert b.graph_valid and b.driver_calls == 1


def test_calibrated_constants_enter_each_formula():
    c = Constants(sync_us=3, graph_launch_us=4, node_gap_us=0.5, stream_gap_us=1.5, kernel_floor_us=1,
                  eager_floor_us=20, fixed_us=7, static_copy=True)
    assert model.eager_wall_us(10, 5, 0, c) == pytest.approx(10 * max(20, 5 + 1 + 3))
    # launch-bound: the last launch starts at 9·t, then one round trip with its floor
    assert model.streams_wall_us(10, 5, 2, c) == pytest.approx(9 * 5 + max(20, 5 + 2 + 3))
    # GPU-bound: kernels back to back with the stream gap between them
    assert model.streams_wall_us(10, 5, 40, c) == pytest.approx(5 + 10 * 40 + 9 * 1.5 + 3)
    # copy path: the copy launch, then max(g + L, copy) before N nodes with N−1 gaps
    assert model.graph_wall_us(10, 5, 2, c) == pytest.approx(5 + max(4 + 7, 2) + 10 * 2 + 9 * 0.5 + 3)
    assert model.graph_wall_us(10, 5, 2, c, copies=False) == pytest.approx(max(20, 4 + 7 + 20 + 4.5 + 3))


def test_docstrings_show_the_formulas():
    for fn in (model.eager_wall_us, model.streams_wall_us, model.graph_wall_us):
        assert "wall =" in fn.__doc__


def test_timeline_has_both_lanes_and_one_graph_launch():
    g = predict("graph", 120, 6, 2)
    lanes = {s.lane for s in g.timeline}
    assert lanes == {"cpu", "gpu"}
    assert sum(1 for s in g.timeline if s.kind == "graph") == 1
    assert sum(1 for s in g.timeline if s.kind == "kernel") == 120


@pytest.mark.parametrize("args", [
    ("eager", 0, 6, 2), ("eager", -1, 6, 2), ("eager", 2.5, 6, 2), ("eager", 10**9, 6, 2),
    ("eager", 120, math.nan, 2), ("eager", 120, -1, 2), ("eager", 120, 6, math.inf), ("warp", 120, 6, 2),
    ("eager", 120, "6", 2), ("eager", True, 6, 2)])
def test_bad_inputs_raise_a_clear_usage_error(args):
    with pytest.raises(UsageError):
        predict(*args)

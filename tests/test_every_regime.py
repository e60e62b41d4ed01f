"""The model in every regime, on the calibrated constants of the shipped recording, and the
simulator built from them: where the tax sits below the work too (a C++ runtime, a fast host).

    graph ≤ streams ≤ eager                 (zero-copy graph input; slack max(2%, 1 µs))
    tax < work, large N:    streams/graph → (w + stream_gap) / (w + node_gap)
    tax dominates, large N: streams/graph → tax / (max(w, kernel floor) + node_gap)
"""
import itertools

import pytest

from runtime_core.engine.measure import measure
from runtime_core.engine.sim.device import SimDevice
from runtime_core.engine.sim.params import SimParams
from runtime_core.recordings.shipped import shipped_constants
from runtime_core.knobs import Knobs
from runtime_core.model.formulas import predict

C = shipped_constants()
GRID = list(itertools.product((1.0, 2.0, 3.0), (2.0, 10.0, 40.0), (10, 120, 1000)))


def slack(x: float) -> float:
    return max(0.02 * x, 1.0)


def walls_model(tax, work, n) -> dict:
    return {m: predict(Knobs(m, n, work, tax_us=tax, graph_input="zero-copy"), C).wall_us
            for m in ("eager", "streams", "graph")}


def walls_sim(tax, work, n) -> dict:
    dev = SimDevice(SimParams(tax_us=tax, machine=C))
    return {m: measure(dev, Knobs(m, n, work, graph_input="zero-copy"), repeats=1, trace=False).wall_us
            for m in ("eager", "streams", "graph")}


@pytest.mark.parametrize("source", ["model", "simulator"])
@pytest.mark.parametrize("tax,work,n", GRID)
def test_graph_beats_streams_beats_eager_in_every_regime(source, tax, work, n):
    w = (walls_model if source == "model" else walls_sim)(tax, work, n)
    assert w["graph"] <= w["streams"] + slack(w["streams"]), w
    assert w["streams"] <= w["eager"] + slack(w["eager"]), w


@pytest.mark.parametrize("tax,work", [(1.0, 10.0), (2.0, 40.0), (3.0, 10.0)])
def test_where_the_tax_hides_graphs_still_win_by_the_gap(tax, work):
    n = 100_000  # the limit of large N
    w = walls_model(tax, work, n)
    want = (work + C.stream_gap_us) / (work + C.node_gap_us)
    assert w["streams"] / w["graph"] == pytest.approx(want, rel=0.01)
    assert want > 1.0, "graphs must win by the gap they remove"


@pytest.mark.parametrize("tax,work", [(20.0, 2.0), (50.0, 0.0), (9.0, 1.0)])
def test_where_the_tax_dominates_streams_over_graph_is_tax_over_the_node_time(tax, work):
    n = 100_000
    w = walls_model(tax, work, n)
    want = tax / (max(work, C.kernel_floor_us) + C.node_gap_us)
    assert w["streams"] / w["graph"] == pytest.approx(want, rel=0.01)

"""The real GPU backend against the model's bounds (issue 3). Skipped without CUDA."""
import statistics

import pytest
from graph_policy_checks import (check_bucket_padding_keeps_output_correct,
                                 check_recapture_once_per_shape_within_cache_bound)

from runtime_core.recordings.shipped import get_device
from runtime_core.engine.modes import make_executor
from runtime_core.engine.measure import measure
from runtime_core.knobs import Knobs
from runtime_core.engine.workload import ChainWorkload

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def dev():
    return get_device("cuda")


def slack(x):
    return max(0.05 * x, 3.0)


@pytest.mark.parametrize("n,work", [(10, 2), (120, 2), (120, 40), (300, 6)])
def test_modes_are_ordered_graph_streams_eager(dev, n, work):
    r = {m: measure(dev, Knobs(m, n, work), trace=False) for m in ("eager", "streams", "graph")}
    assert r["graph"].wall_us <= r["streams"].wall_us + slack(r["streams"].wall_us)
    assert r["streams"].wall_us <= r["eager"].wall_us + slack(r["eager"].wall_us)


@pytest.mark.parametrize("n,work", [(120, 2), (300, 0)])
def test_eager_overhead_at_least_n_times_tax(dev, n, work):
    r = measure(dev, Knobs("eager", n, work), trace=False)
    assert r.launch_overhead_us >= 0.9 * n * dev.intrinsic_tax_us()


def test_streams_wall_between_bound_and_eager(dev):
    n, work = 120, 2
    s, e = measure(dev, Knobs("streams", n, work), trace=False), measure(dev, Knobs("eager", n, work), trace=False)
    assert 0.9 * max(n * s.tax_us, s.kernel_work_us) <= s.wall_us <= e.wall_us


def test_graph_is_one_driver_call_with_n_kernels(dev):
    r = measure(dev, Knobs("graph", 120, 2))
    assert r.driver_calls == 1
    assert sum(1 for s in r.timeline if s.lane == "gpu" and s.kind == "kernel") == 120
    assert r.wall_us >= 0.9 * r.kernel_work_us


def test_eager_counts_n_driver_calls(dev):
    r = measure(dev, Knobs("eager", 50, 2))
    assert r.driver_calls == 50


@pytest.mark.parametrize("work", [2, 10, 40, 100])
def test_kernel_durations_match_requested_work(dev, work):
    r = measure(dev, Knobs("graph", 50, work))
    durs = [s.dur_us for s in r.timeline if s.lane == "gpu" and s.kind == "kernel"]
    assert len(durs) == 50
    assert abs(statistics.median(durs) - work) <= 0.2 * work


def test_graph_replay_matches_eager(dev):
    wl = ChainWorkload(37, 2.0)
    g = make_executor("graph", dev, wl)
    x = wl.make_input(dev, 3)
    g.prepare(wl.make_input(dev, 0))
    out = dev.read(g.run(x))
    ref = wl.make_input(dev, 3)
    make_executor("eager", dev, wl).run(ref)
    assert out == dev.read(ref)
    assert g.last.replayed and g.last.path == "replay"


def test_dynamic_shapes_fall_back_and_clear_the_flag(dev):
    r = measure(dev, Knobs("graph", 120, 2, dynamic=True))
    assert r.graph_valid is False
    assert r.driver_calls == 120


def test_extra_tax_is_real_host_work(dev):
    base = measure(dev, Knobs("streams", 120, 2), trace=False)
    taxed = measure(dev, Knobs("streams", 120, 2, extra_tax_us=20), trace=False)
    assert taxed.wall_us >= base.wall_us + 0.8 * 120 * 20


def test_recapture_captures_once_per_distinct_shape_within_the_cache_bound(dev):
    check_recapture_once_per_shape_within_cache_bound(dev, n=20)


def test_bucket_padding_keeps_the_output_correct(dev):
    check_bucket_padding_keeps_output_correct(dev, n=9, calls=12)

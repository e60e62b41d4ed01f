"""Measuring bucket sets: one-off costs (an eager shape's first call, a graph's first replay) stay
off the clock, and a host that drifts mid-measurement is charged to every set alike."""
import pytest

from runtime_core.diagnose import bucket_serving
from runtime_core.diagnose.planner import uniform
from runtime_core.diagnose.spec import Spec


class _Clock:
    """A host clock that a step advances: `per_size` µs per row, `first` µs extra the first time a
    size runs, and everything `slow` times dearer once `slow_after` steps have run."""

    def __init__(self, first=0.0, slow=1.0, slow_after=None):
        self.now, self.calls, self.seen = 0.0, 0, set()
        self.first, self.slow, self.slow_after = first, slow, slow_after

    def step(self, size):
        cost = 10.0 + size
        if size not in self.seen:
            self.seen.add(size)
            cost += self.first
        if self.slow_after is not None and self.calls >= self.slow_after:
            cost *= self.slow
        self.calls += 1
        self.now += cost

    def synchronize(self):
        pass

    def host_now_us(self):
        return self.now


class _Step:
    def __init__(self, clock, size):
        self.clock, self.size = clock, size

    def clone_inputs(self):
        return (self.size,)

    def __call__(self, size):
        self.clock.step(self.size)


class _Graph:
    """Stands in for GraphedStep: replays at the bucket's size, first replay dearer like a graph's."""

    def __init__(self, runner, step):
        self.step, self.capture_s, self.pool_bytes = step, 0.001, 1000 * step.size

    def __call__(self, size):
        self.step(size)


class _Runner:
    def __init__(self, clock):
        self.dev = clock

    def steps_at(self, spec, batches):
        return {b: _Step(self.dev, b) for b in batches}

    def cleanup(self):
        pass


@pytest.fixture(autouse=True)
def _fake_graphs(monkeypatch):
    monkeypatch.setattr(bucket_serving, "GraphedStep", _Graph)


def _measure(clock, sets):
    return bucket_serving.measure_sets(_Runner(clock), Spec("fake-mlp", 1, None, "fp32"), sets, uniform(16),
                                       requests=200)


def test_first_calls_at_each_size_are_not_charged_to_the_set_measured_first():
    out = _measure(_Clock(first=5000.0), {"a": [], "b": []})  # two identical all-eager sets
    assert out["a"]["expected_step_us"] == pytest.approx(out["b"]["expected_step_us"])
    assert out["a"]["expected_step_us"] < 10.0 + 16  # steady state: no first-call cost in the mean


def test_a_host_that_turns_slow_midway_is_charged_to_every_set_alike():
    out = _measure(_Clock(slow=2.0, slow_after=400), {"a": [16], "b": [16]})  # identical sets
    a, b = out["a"]["expected_step_us"], out["b"]["expected_step_us"]
    assert a == pytest.approx(b, rel=0.02)


def test_each_set_reports_its_own_buckets_padding_and_pools():
    out = _measure(_Clock(), {"graphs": [4, 16], "eager": []})
    g, e = out["graphs"], out["eager"]
    assert g["captures"] == 2 and g["pool_bytes"] == 1000 * (4 + 16) and g["eager_share_pct"] == 0
    assert e["captures"] == 0 and e["eager_share_pct"] == 100 and e["wasted_work_pct"] == 0
    assert g["wasted_work_pct"] > 0 and g["requests"] == e["requests"] == 200
    assert g["expected_step_us"] > e["expected_step_us"]  # padded rows are work (this clock charges rows)


def test_no_requests_is_refused():
    with pytest.raises(ValueError, match="at least one request"):
        bucket_serving.measure_sets(_Runner(_Clock()), Spec("fake-mlp", 1, None, "fp32"), {"a": []}, uniform(4),
                                    requests=0)

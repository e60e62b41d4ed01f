"""A point's launch tax is sampled around its timed steps (before, in the middle, after) and the
median kept, so that a host that changes speed during a point cannot leave it with a tax from
another moment (engine/measure.py, TAX_SAMPLES)."""
from runtime_core.engine.measure import TAX_SAMPLES, measure
from runtime_core.engine.sim.device import SimDevice
from runtime_core.knobs import Knobs


class DriftingHost(SimDevice):
    """A simulator whose measured tax follows a script: slow first, then fast (a real host's drift,
    so not deterministic: a deterministic device takes one sample)."""

    deterministic = False

    def __init__(self, script):
        super().__init__()
        self.script, self.calls = list(script), []

    def measure_tax(self) -> float:
        real = super().measure_tax()
        self.calls.append(self.host_now_us())
        return self.script.pop(0) if self.script else real


def test_a_host_that_speeds_up_after_the_first_sample_gets_the_fast_tax():
    dev = DriftingHost([10.0, 7.0, 7.0])
    r = measure(dev, Knobs("streams", 120, 1.0), repeats=8, trace=False)
    assert len(dev.calls) == TAX_SAMPLES == 3
    assert r.tax_us == 7.0


def test_the_samples_bracket_the_timed_steps():
    dev = DriftingHost([7.0, 10.0, 10.0])
    r = measure(dev, Knobs("eager", 50, 2.0), repeats=6, trace=False)
    assert r.tax_us == 10.0
    first, middle, last = dev.calls
    step_us = r.wall_us
    assert middle - first >= 3 * step_us  # half of the 6 steps ran between the first two samples
    assert last - middle >= 3 * step_us


def test_extra_tax_is_added_to_the_median():
    dev = DriftingHost([9.0, 8.0, 6.0])
    r = measure(dev, Knobs("streams", 40, 1.0, extra_tax_us=5.0), repeats=4, trace=False)
    assert r.tax_us == 8.0 + 5.0


def test_a_deterministic_device_takes_one_sample():
    dev = DriftingHost([10.0, 7.0, 7.0])
    dev.deterministic = True
    r = measure(dev, Knobs("streams", 120, 1.0), repeats=8, trace=False)
    assert len(dev.calls) == 1 and r.tax_us == 10.0

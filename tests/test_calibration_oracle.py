"""The calibration oracle: on a simulated device built from known constants, calibrate() must
recover every one of them. That proves the procedure before a noisy GPU ever sees it."""
import pytest

from runtime_core.constants import Constants
from runtime_core.engine.sim.device import SimDevice
from runtime_core.engine.sim.params import SimParams
from runtime_core.model.calibrate import calibrate, constants_for

# Three machines. Each keeps every constant identifiable: the eager floor binds at zero work
# (f > t + floor + s) but not at 10 µs of work, a one-node graph step outlasts the floor, and a
# 40 µs kernel outlasts a launch (so a streams step at 40 µs is GPU-bound).
MACHINES = {
    "h200-like": dict(tax_us=9.0, sync_us=5.0, graph_launch_us=3.0, node_gap_us=0.25, stream_gap_us=1.2,
                      graph_upload_us=20.0, kernel_floor_us=0.85, eager_floor_us=16.5, fixed_us=10.0,
                      graph_launch_per_node_us=0.005, graph_upload_per_node_us=1.1),
    "fast-host": dict(tax_us=4.0, sync_us=2.0, graph_launch_us=2.5, node_gap_us=0.5, stream_gap_us=2.0,
                      graph_upload_us=8.0, kernel_floor_us=2.0, eager_floor_us=9.0, fixed_us=6.0),
    "slow-host": dict(tax_us=15.0, sync_us=8.0, graph_launch_us=6.0, node_gap_us=0.1, stream_gap_us=0.8,
                      graph_upload_us=50.0, kernel_floor_us=0.5, eager_floor_us=25.0, fixed_us=15.0),
}


@pytest.mark.parametrize("name", list(MACHINES))
def test_calibrate_recovers_every_constant_of_a_simulated_machine(name):
    p = SimParams.of(**MACHINES[name])
    got = calibrate(SimDevice(p), passes=1)
    for field in Constants.fields():
        want = getattr(p.machine, field)
        assert getattr(got, field) == pytest.approx(want, rel=0.05), (field, getattr(got, field), want)
    assert f"{p.tax_us:.2f} µs" in got.source  # the launch tax, measured on the device clock
    assert got.miss_runs == "streams" and got.static_copy


def test_the_oracle_can_fail_a_procedure_that_misreads_a_constant(monkeypatch):
    """Break one estimator (the node gap taken as the whole per-node slope): the check fails."""
    import runtime_core.model.experiments as cal
    real = cal.kernel_us
    monkeypatch.setattr(cal, "kernel_us", lambda dev, work_us, n=20: 0.0 if work_us == 0 else real(dev, work_us, n))
    p = SimParams.of(**MACHINES["h200-like"])
    got = calibrate(SimDevice(p), passes=1)
    assert got.node_gap_us != pytest.approx(p.machine.node_gap_us, rel=0.05)


def test_constants_for_a_simulator_are_the_ones_it_was_built_from():
    p = SimParams.of(**MACHINES["fast-host"])
    assert constants_for(SimDevice(p)) == p.machine

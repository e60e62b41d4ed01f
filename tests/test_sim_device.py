"""The simulated GPU: a real peer that simulates; compared with the model that predicts."""
import itertools

import pytest
from graph_policy_checks import (check_bucket_padding_keeps_output_correct,
                                 check_recapture_once_per_shape_within_cache_bound)

from runtime_core.recordings.shipped import get_device
from runtime_core.engine.modes import make_executor
from runtime_core.engine.measure import measure
from runtime_core.engine.sim.params import SIM_MACHINE
from runtime_core.recordings.shipped import shipped_constants
from runtime_core.knobs import Knobs
from runtime_core.model.formulas import predict
from runtime_core.engine.sim.device import SimDevice, SimParams
from runtime_core.engine.workload import ChainWorkload

# Two simulated machines: every cost zero (the textbook, plus the graph step's copy), and the
# calibrated constants of the shipped H200 recording (the simulator's default).
MACHINES = {"zero-cost": SIM_MACHINE, "shipped-h200": shipped_constants()}
GRID = list(itertools.product(MACHINES, ("eager", "streams", "graph"), (1, 10, 120, 1000), (0.5, 6, 50),
                              (0, 2, 40, 100), ("copy", "zero-copy")))
GRID = [g for g in GRID if g[1] == "graph" or g[5] == "copy"]


def _sim(machine: str, tax: float) -> SimDevice:
    return SimDevice(SimParams(tax_us=tax, machine=MACHINES[machine]))


@pytest.mark.parametrize("machine,mode,n,tax,work,graph_input", GRID)
def test_simulator_agrees_with_the_model_within_one_percent(machine, mode, n, tax, work, graph_input):
    """The model's formulas are the closed forms of the simulator's rules: within 1% + 0.5 µs,
    wherever the launch queue never fills."""
    dev = _sim(machine, tax)
    k = Knobs(mode, n, work, graph_input=graph_input)
    sim = measure(dev, k, repeats=1, trace=False)
    smallest = 1 / dev.params.elems_per_us  # the simulator's one-element kernel: work 0 is 0.001 µs
    pred = predict(k.replace(tax_us=tax, work_us=max(work, smallest)), dev.known_constants())
    assert sim.wall_us == pytest.approx(pred.wall_us, rel=0.01, abs=0.5)


@pytest.mark.parametrize("machine", list(MACHINES))
@pytest.mark.parametrize("mode,n,tax,work", [("graph", 120, 6, 2), ("eager", 120, 6, 2), ("streams", 10, 6, 40)])
def test_dynamic_inputs_stay_close_to_the_model(machine, mode, n, tax, work):
    """Dynamic inputs are 32–256 elements larger, which adds ≤ 0.3 µs per kernel; a graph's
    shape miss runs the streams executor, as the model's calibrated fallback says."""
    dev = _sim(machine, tax)
    sim = measure(dev, Knobs(mode, n, work, dynamic=True), repeats=1, trace=False)
    pred = predict(Knobs(mode, n, work, tax_us=tax, dynamic=True), dev.known_constants())
    assert sim.wall_us == pytest.approx(pred.wall_us, rel=0.05)


def test_where_they_differ_the_launch_queue_fills_and_blocks_the_host():
    """Long kernels, cheap launches: the CPU runs ahead until 1024 launches wait, then blocks.
    The model has no queue, so it says the host is free after N·tax; the simulator disagrees."""
    dev = SimDevice(SimParams(tax_us=1.0, queue_depth=1024, machine=SIM_MACHINE))
    r = measure(dev, Knobs("streams", 2000, 100.0), repeats=1)
    pred = predict(Knobs("streams", 2000, 100.0, tax_us=1.0))
    assert pred.host_free_us == pytest.approx(2000)
    blocked = [s for s in r.timeline if s.kind == "blocked"]
    assert blocked, "the host should block on a full launch queue"
    assert r.host_free_us == pytest.approx((2000 - 1024) * 100.0, rel=0.02)  # free once 1024 are left
    assert r.wall_us == pytest.approx(pred.wall_us, rel=0.01)  # the GPU was busy either way


def test_driver_calls_are_counted_from_the_simulators_own_api_calls():
    dev = get_device("sim")
    for mode, calls in (("eager", 50), ("streams", 50), ("graph", 1)):
        assert measure(dev, Knobs(mode, 50, 2)).driver_calls == calls


def test_capture_records_launches_without_running_them():
    dev = SimDevice()
    buf = dev.new_buffer(4)
    g = dev.capture(lambda: [dev.launch_chain_kernel(buf) for _ in range(3)])
    dev.synchronize()
    assert dev.read(buf) == [0.0] * 4
    g.replay()
    assert dev.read(buf) == [3.0] * 4
    assert dev.counts["cudaGraphLaunch"] == 1
    assert dev.counts["cudaLaunchKernel"] == 3  # made during capture: recorded, not run


def test_graph_replay_matches_eager():
    dev = SimDevice()
    wl = ChainWorkload(17, 2.0)
    g = make_executor("graph", dev, wl)
    g.prepare(wl.make_input(dev, 0))
    out = dev.read(g.run(wl.make_input(dev, 3)))
    ref = wl.make_input(dev, 3)
    make_executor("eager", dev, wl).run(ref)
    assert out == dev.read(ref)


def test_events_order_work_across_streams():
    dev = SimDevice()
    side = dev.new_stream()
    buf = dev.new_buffer(100_000)  # a 100 µs kernel at the simulator's rate
    with dev.use_stream(side):
        dev.launch_chain_kernel(buf)
        ev = dev.new_event()
        ev.record(side)
    assert not ev.query()
    ev.wait(dev.current_stream())
    small = dev.new_buffer(1)
    dev.launch_chain_kernel(small)  # must start after the side stream's kernel
    dev.synchronize()
    starts = {s[2]: s[3] for s in dev.engine.gpu_spans}
    ends = [s[4] for s in dev.engine.gpu_spans if s[0] == side.sid]
    main_kernel = [s for s in dev.engine.gpu_spans if s[0] == 0 and s[1] == "kernel"][-1]
    assert main_kernel[3] >= max(ends)
    assert ev.query()


def test_guard_miss_falls_back_and_clears_the_flag():
    r = measure(get_device("sim"), Knobs("graph", 120, 2, dynamic=True))
    assert r.graph_valid is False and r.driver_calls == 120


def test_recapture_captures_once_per_shape_within_the_cache_bound():
    check_recapture_once_per_shape_within_cache_bound(SimDevice(), n=8)


def test_bucket_pads_and_the_output_is_still_correct():
    check_bucket_padding_keeps_output_correct(SimDevice(), n=5, calls=10)

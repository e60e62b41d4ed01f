"""The diagnosis' prediction: the formulas in predict.py's docstring, checked by hand."""
import pytest

from runtime_core.constants import Constants
from runtime_core.diagnose.predict import Machine, StepCounts, eager_step_us, graph_step_us, predict_step
from runtime_core.diagnose.verdict import verdict
from runtime_core.errors import UsageError

H200_LIKE = Constants(sync_us=5.0, graph_launch_us=4.0, node_gap_us=0.25, kernel_floor_us=0.85, fixed_us=11.0)
M = Machine(H200_LIKE, tax_us=9.0, source="test")


def test_host_bound_eager_is_dispatch_plus_the_last_kernel_plus_a_sync():
    k = StepCounts(gpu_ops=54, busy_us=131.0, host_us=873.0, inputs=1)
    assert eager_step_us(k, M) == pytest.approx(873.0 + 131.0 / 54 + 5.0)


def test_gpu_bound_eager_is_first_launch_plus_busy_plus_a_sync():
    k = StepCounts(gpu_ops=54, busy_us=5000.0, host_us=873.0, inputs=1)
    assert eager_step_us(k, M) == pytest.approx(873.0 / 54 + 5000.0 + 5.0)


def test_graph_step_is_one_replay_after_the_static_copies():
    k = StepCounts(gpu_ops=54, busy_us=131.0, host_us=873.0, inputs=2)
    want = 2 * 9.0 + max(4.0 + 11.0, 2 * 0.85) + 131.0 + 53 * 0.25 + 5.0  # copies, replay + L, nodes, sync
    assert graph_step_us(k, M) == pytest.approx(want)
    pred = predict_step(k, M)
    assert pred["graph_speedup"] == pytest.approx(eager_step_us(k, M) / want, rel=1e-3)


def test_textbook_graph_launch_costs_one_launch_tax():
    k = StepCounts(gpu_ops=10, busy_us=20.0, host_us=100.0, inputs=1)
    m = Machine(Constants(), tax_us=6.0, source="textbook")
    assert graph_step_us(k, m) == pytest.approx(6.0 + max(6.0, 0.0) + 20.0)


def test_the_stream_gap_adds_between_launched_kernels_when_gpu_bound():
    k = StepCounts(gpu_ops=100, busy_us=2000.0, host_us=500.0, inputs=1)
    with_gap = Machine(Constants(sync_us=5.0, stream_gap_us=1.5), tax_us=9.0, source="test")
    assert eager_step_us(k, with_gap) == pytest.approx(5.0 + 2000.0 + 99 * 1.5 + 5.0)
    assert eager_step_us(k, Machine(Constants(sync_us=5.0), 9.0, "test")) == pytest.approx(5.0 + 2000.0 + 5.0)


def test_a_step_without_gpu_work_cannot_be_predicted():
    with pytest.raises(UsageError):
        StepCounts(gpu_ops=0, busy_us=0.0, host_us=10.0, inputs=1)


def test_verdict_calls_launch_bound_when_the_host_is_slower_than_the_gpu():
    fast = StepCounts(gpu_ops=54, busy_us=131.0, host_us=873.0, inputs=1)
    v = verdict(fast, M, predict_step(fast, M)["graph_speedup"])
    assert v["launch_bound"] and v["graphs_help"] and "Launch-bound" in v["headline"]
    assert "873" in v["because"] and "54" in v["because"]
    # the GPU side splits into the kernels' busy time (B, the page's metric) and the gaps between them
    assert f"{v['gpu_us']:,.0f} µs to run them one by one" in v["because"]
    assert "131 µs of kernels" in v["because"] and f"{v['gpu_us'] - 131:,.0f} µs of gaps" in v["because"]
    slow = StepCounts(gpu_ops=54, busy_us=20_000.0, host_us=873.0, inputs=1)
    v = verdict(slow, M, predict_step(slow, M)["graph_speedup"])
    assert not v["launch_bound"] and not v["graphs_help"] and "GPU-bound" in v["headline"]


def test_the_verdict_names_the_regime_from_its_own_numbers():
    from runtime_core.diagnose.verdict import regime
    assert regime(True, 4254.0, 954.0).startswith("Regime: launch-bound (overhead-bound)") and "4,254 µs" in regime(True, 4254.0, 954.0)
    gpu = regime(False, 300.0, 900.0)
    assert gpu.startswith("Regime: GPU-bound") and "compute-bound or memory-bandwidth-bound" in gpu


def test_the_regime_never_promises_what_the_headline_denies():
    """An overhead-bound step that graphs barely help (or slow down), or that cannot be captured,
    is not told that "graphs attack exactly this"."""
    from runtime_core.diagnose.verdict import regime
    assert regime(True, 4254.0, 954.0, 3.1).endswith("graphs attack exactly this.")
    little = regime(True, 4960.0, 4955.0, 1.12)
    assert "attack exactly" not in little and "only just" in little and "µs a step" not in little
    slower = regime(True, 4960.0, 4000.0, 0.49)
    assert "attack exactly" not in slower and "costs more" in slower
    uncapturable = regime(True, 4960.0, 19.0, capturable=False)
    assert "attack exactly" not in uncapturable and "cannot be captured whole" in uncapturable
    assert "kernels and the gaps between them" in regime(False, 300.0, 900.0)
    # GPU-bound, yet graphs help (the gaps of many short kernels): not told that fewer launches won't help
    helped = regime(False, 300.0, 900.0, 1.4)
    assert "faster kernels help more" not in helped and "a graph removes those" in helped


def test_the_page_regime_agrees_with_a_headline_of_little_gain():
    """The recorded decoder in fp32 at batch 512 is headlined "gain little" (H only just above the
    GPU's time); its regime line must not then say graphs attack exactly this."""
    from conftest import open_page
    at = open_page("pages/7_Will_graphs_help_my_model.py")
    at.selectbox(key="dg_model").set_value("decoder").run()
    at.radio(key="dg_dtype").set_value("fp32").run()
    at.select_slider(key="dg_batch").set_value(512).run()
    assert not at.exception
    heads = " ".join(m.value for m in at.warning) + " ".join(m.value for m in at.success)
    assert "gain little" in heads
    regimes = [c.value for c in at.caption if c.value.startswith("Regime: ")]
    assert regimes and "attack exactly" not in regimes[0] and "only just" in regimes[0]


def test_the_diagnose_page_shows_the_regime_of_the_point_it_judges():
    from conftest import open_page
    at = open_page("pages/7_Will_graphs_help_my_model.py")
    assert any(c.value.startswith("Regime: ") for c in at.caption)


def test_a_predicted_slowdown_is_headlined_as_one_and_names_the_captured_work():
    from runtime_core.diagnose.verdict import headline
    assert "would make this step slower (predicted 0.93x)" in headline(False, 0.93)
    assert "barely" not in headline(False, 0.93) and "gain little" not in headline(True, 0.90)
    assert headline(True, 0.90, work_added_us=300.0).startswith("Launch-bound, yet a CUDA graph would make")
    assert "more GPU work" in headline(True, 0.90, 300.0) and "more GPU work" not in headline(True, 0.90, 0.0)
    assert "gain little (predicted 1.10x)" in headline(True, 1.10) and "barely help" in headline(False, 1.05)
    # a branch captured with more work than eager runs: the verdict itself says so
    k = StepCounts(gpu_ops=150, busy_us=9800.0, host_us=8000.0, inputs=1, captured_ops=350, captured_busy_us=10700.0)
    v = verdict(k, M, predict_step(k, M)["graph_speedup"])
    assert v["graphs_help"] is False and "slower" in v["headline"] and "more GPU work" in v["headline"]


def test_a_launch_bound_verdict_names_the_captured_step_where_it_is_another_step():
    """'A graph replays all of them' is false where the network takes another branch under capture:
    the sentence then says what the graph replays instead (more operations, or 5% more kernel time)."""
    from runtime_core.diagnose.verdict import because
    same = because(4000.0, 166, 1177.0, 1400.0, helps=True, captured=(166, 1190.0))
    assert "replays all of them with one launch" in same
    other = because(4000.0, 166, 1177.0, 1400.0, helps=True, captured=(413, 2764.0))
    assert "replays all of them" not in other and "the step it captures is another one: 413 operations and 2,764 µs" in other
    longer = because(4000.0, 166, 1000.0, 1400.0, helps=True, captured=(166, 1060.0))
    assert "another one: 166 operations" in longer
    k = StepCounts(gpu_ops=166, busy_us=1177.0, host_us=4000.0, inputs=1, captured_ops=413, captured_busy_us=2764.0)
    v = verdict(k, M, 2.0)
    assert "another one: 413 operations" in v["because"]


def test_a_launch_bound_step_that_gains_little_says_how_little_the_gpu_waits():
    from runtime_core.diagnose.verdict import because
    text = because(2800.0, 175, 2400.0, 2700.0, helps=False)
    assert "The GPU waits for the host, but only about 100 µs a step" in text
    assert "replays all of them with one launch" in because(2800.0, 175, 400.0, 700.0, helps=True)
    assert "runs ahead of the GPU" in because(700.0, 175, 2400.0, 2700.0, helps=False)
    # given the split's own wait, the sentence quotes it: the verdict and the saving's table agree
    assert "would remove only about 20 µs of waiting a step" in because(2800.0, 175, 2400.0, 2700.0, helps=False,
                                                                       wait_us=20.1)


def test_the_verdicts_wait_is_the_saving_splits_host_time_removed():
    from runtime_core.diagnose.predict import saving_split
    from runtime_core.diagnose.verdict import verdict
    k = StepCounts(gpu_ops=175, busy_us=2400.0, host_us=2800.0, inputs=1)
    v = verdict(k, M, 1.05)
    wait = saving_split(k, M)["host_dispatch_removed_us"]
    assert v["launch_bound"] and not v["graphs_help"] and wait > 0
    assert f"would remove only about {wait:,.0f} µs of waiting a step" in v["because"]


def test_op_by_op_eager_finds_the_gpu_waiting_behind_the_host_where_the_single_max_does_not():
    """Long and short operations alternate: as a whole B ≈ H, so the closed form says they overlap
    perfectly; op by op, the GPU idles behind the host through every short stretch."""
    ops = (100.0,) + (1.0,) * 9 + (100.0,) + (1.0,) * 9          # K = 20, B = 218
    bare = StepCounts(gpu_ops=20, busy_us=218.0, host_us=200.0, inputs=1)
    k = StepCounts(gpu_ops=20, busy_us=218.0, host_us=200.0, inputs=1, op_us=ops)
    m = Machine(Constants(sync_us=5.0), tax_us=9.0, source="test")
    # op 0 ready at 10, runs to 110; ops 1-9 run as they are ready (up to 110 + 9, queued) ...
    # op 10 is ready at 110 but starts at 119, runs to 219; ops 11-19 are ready by 200: 219 + 9
    assert eager_step_us(k, m) == pytest.approx(219.0 + 9.0 + 5.0)
    assert eager_step_us(bare, m) == pytest.approx(max(200.0 + 218 / 20, 10.0 + 218.0) + 5.0)
    # rows that do not cover every operation: the closed form
    assert eager_step_us(StepCounts(20, 218.0, 200.0, 1, op_us=ops[:5]), m) == eager_step_us(bare, m)


def test_the_queue_and_the_closed_form_agree_where_every_operation_lasts_the_same():
    m = Machine(Constants(sync_us=5.0, stream_gap_us=1.5, eager_floor_us=12.0), tax_us=9.0, source="test")
    for host, busy in ((873.0, 131.0), (873.0, 5000.0)):
        k = StepCounts(gpu_ops=54, busy_us=busy, host_us=host, inputs=1)
        assert eager_step_us(StepCounts(54, busy, host, 1, op_us=(busy / 54,) * 54), m) == \
            pytest.approx(eager_step_us(k, m))


def test_the_measured_stream_gap_replaces_the_chains_and_its_spread_widens_the_band_eager_side():
    from runtime_core.diagnose.predict import predict_band
    c = Constants(sync_us=5.0, stream_gap_us=1.5)
    chain = Machine(c, tax_us=9.0, source="test")
    own = Machine(c, tax_us=9.0, source="test", stream_gap_extra_us=1.0, stream_spread_us=0.4)
    k = StepCounts(gpu_ops=100, busy_us=2000.0, host_us=500.0, inputs=1)
    assert eager_step_us(k, own) == pytest.approx(5.0 + 2000.0 + 99 * 1.0 + 5.0)
    assert own.as_dict()["stream_gap_us"] == 1.0 and chain.as_dict()["stream_gap_us"] == 1.5
    lo, hi = predict_band(k, own, 500.0, 500.0, 0.0)
    g = graph_step_us(k, own)
    assert lo == pytest.approx((5.0 + 2000.0 + 99 * 0.6 + 5.0) / g, rel=1e-4)
    assert hi == pytest.approx((5.0 + 2000.0 + 99 * 1.4 + 5.0) / g, rel=1e-4)
    assert predict_band(k, own.__class__(c, 9.0, "test", stream_gap_extra_us=1.0), 500.0, 500.0, 0.0)[0] == \
        pytest.approx(eager_step_us(k, own) / g, rel=1e-4)   # no spread: the band collapses on the point


def test_launch_times_from_the_profile_expose_the_python_before_the_first_launch():
    """A device-bound step whose host spends the first half of its dispatch before it queues
    anything: with even shares the GPU starts at H/K and hides the host; with the profiled launch
    times it cannot start before H/2, and that wait is the step's."""
    m = Machine(Constants(sync_us=5.0), tax_us=9.0, source="test")
    ops = (50.0,) * 10                                            # K = 10, B = 500, H = 200
    even = StepCounts(10, 500.0, 200.0, 1, op_us=ops)
    late = StepCounts(10, 500.0, 200.0, 1, op_us=ops, op_ready=tuple(0.5 + 0.05 * i for i in range(10)))
    assert not even.ready_profiled and late.ready_profiled
    assert eager_step_us(even, m) == pytest.approx(20.0 + 500.0 + 5.0)
    assert eager_step_us(late, m) == pytest.approx(100.0 + 500.0 + 5.0)
    # launch times that are spread evenly give the even-share answer
    spread = StepCounts(10, 500.0, 200.0, 1, op_us=ops, op_ready=tuple((i + 1) / 10 for i in range(10)))
    assert eager_step_us(spread, m) == pytest.approx(eager_step_us(even, m))
    # a list that does not cover every operation is not used
    short = StepCounts(10, 500.0, 200.0, 1, op_us=ops, op_ready=(0.5,) * 4)
    assert not short.ready_profiled and eager_step_us(short, m) == pytest.approx(eager_step_us(even, m))


def test_a_points_launch_times_become_shares_only_when_they_cover_every_operation_inside_the_span():
    from runtime_core.diagnose.diagnosis import op_ready
    point = {"gpu_ops": 3, "profile": {"eager_launch_us": [10.0, 50.0, 80.0], "eager_span_us": 100.0}}
    assert op_ready(point) == pytest.approx((0.1, 0.5, 0.8))
    for launch, span in (([10.0, 50.0], 100.0), ([10.0, 50.0, 120.0], 100.0), ([10.0, 50.0, 80.0], 0.0),
                         ([10.0, "x", 80.0], 100.0), ([10.0, 50.0, 80.0], None), ([], 100.0)):
        assert op_ready({"gpu_ops": 3, "profile": {"eager_launch_us": launch, "eager_span_us": span}}) == ()
    assert op_ready({"gpu_ops": 3}) == ()  # a point recorded before launch times were kept


def test_a_long_kernels_share_of_its_duration_widens_the_band_and_a_short_ones_does_not():
    """ρ (machine.relative_spread): past δ/ρ µs a node's and a gap's deviation is a share of the
    kernel. Ten 1 ms kernels get a band of about ±ρ per side (√2·ρ together); 2 µs kernels, whose
    share (ρ·2 µs) stays under δ, the same band as without ρ."""
    from dataclasses import replace
    from runtime_core.diagnose.predict import predict_band
    c = Constants(sync_us=5.0, stream_gap_us=1.0)
    base = Machine(c, tax_us=9.0, source="test", stream_gap_extra_us=0.8, stream_spread_us=0.2,
                   node_extra_us=0.2, node_spread_us=0.2)
    rel = replace(base, node_rel_spread=0.035, stream_rel_spread=0.035)
    long = StepCounts(10, 10_000.0, 100.0, 1, op_us=(1000.0,) * 10, graph_op_us=(1000.0,) * 10)
    lo0, hi0 = predict_band(long, base, 100.0, 100.0, 0.2)
    lo, hi = predict_band(long, rel, 100.0, 100.0, 0.2)
    point = predict_step(long, rel)["graph_speedup"]
    assert (hi0 - lo0) / 2 / point < 0.002
    assert 0.035 < (hi - lo) / 2 / point < 0.035 * 2 ** 0.5 + 0.002
    short = StepCounts(100, 200.0, 5000.0, 1, op_us=(2.0,) * 100, graph_op_us=(2.0,) * 100)
    assert predict_band(short, rel, 4500.0, 5500.0, 0.2) == predict_band(short, base, 4500.0, 5500.0, 0.2)


def test_the_band_adds_the_hosts_and_the_graphs_widths_as_independent_errors():
    """Eager's interval from H alone and the graph's from δ alone, each on its own, give the band
    of that side; together they add as a root of squares: narrower than both extremes at once."""
    import math
    from runtime_core.diagnose.predict import predict_band
    m = Machine(Constants(sync_us=5.0), tax_us=9.0, source="test", node_extra_us=0.2, node_spread_us=0.2)
    k = StepCounts(200, 400.0, 3000.0, 1, op_us=(2.0,) * 200)
    e, g = eager_step_us(k, m), graph_step_us(k, m)
    e_lo = eager_step_us(StepCounts(200, 400.0, 2700.0, 1, op_us=(2.0,) * 200), m)
    g_hi = graph_step_us(k, m, 0.2)
    assert predict_band(k, m, 2700.0, 3000.0, 0.0)[0] == pytest.approx(e_lo / g, rel=1e-3)
    assert predict_band(k, m, 3000.0, 3000.0, 0.2)[0] == pytest.approx(e / g_hi, rel=1e-3)
    lo = predict_band(k, m, 2700.0, 3000.0, 0.2)[0]
    assert lo == pytest.approx(e / g * math.exp(-math.hypot(math.log(e / e_lo), math.log(g_hi / g))), rel=1e-3)
    assert e_lo / g_hi < lo < min(e_lo / g, e / g_hi)


def test_every_headline_gives_the_speedup_to_two_decimals_as_the_metric_beside_it_does():
    """The page's metric reads 1.75x; the headline had said 1.7x for the same 1.749."""
    from runtime_core.diagnose.verdict import headline
    for launch_bound in (True, False):
        for s in (0.9, 1.1, 1.749, 3.0):
            assert f"(predicted {s:.2f}x)" in headline(launch_bound, s), (launch_bound, s)


def test_a_headline_never_rounds_a_speedup_across_the_line_it_draws():
    from runtime_core.diagnose.verdict import headline, speedup_shown
    assert "slower (predicted 0.995x)" in headline(True, 0.9951)
    assert "gain little (predicted 1.196x)" in headline(True, 1.196)
    assert "should help (predicted 1.20x)" in headline(True, 1.2004)
    assert speedup_shown(3.274) == "3.27" and speedup_shown(0.9996) == "0.999"
    assert "gain little (predicted 1.199x)" in headline(True, 1.19999)
    assert "slower (predicted 0.999x)" in headline(True, 0.99999)
    assert speedup_shown(1.0146, 4) == "1.0146"

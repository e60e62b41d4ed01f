"""What a graph node costs beside other kinds of node (model/node_mix.py), and how the prediction
uses it (diagnose/predict.py's γn and μ): derived by hand from rows like the H200's."""
import pytest

from runtime_core.constants import Constants
from runtime_core.diagnose.diagnosis import counts_of, memset_bytes, predicted_fields
from runtime_core.diagnose.predict import Machine, StepCounts, graph_step_us, memsets_us, saving_parts, saving_split
from runtime_core.model.node_mix import MEMSET_BYTES, derive_mix, switches

C = Constants(sync_us=5.0, graph_launch_us=4.0, node_gap_us=0.1, kernel_floor_us=0.9, fixed_us=5.0)


def test_switches_count_kernel_to_copy_and_kernel_to_another_kernel():
    assert switches(["kernel", "gpu_memset"], ["add", "m"]) == (2, 0)            # around the cycle
    assert switches(["kernel", "kernel", "kernel", "gpu_memset"], ["a", "a", "a", "m"]) == (2, 0)
    assert switches(["kernel", "kernel"], ["add", "mul"]) == (0, 2)
    assert switches(["kernel", "memset", "memset", "kernel"], ["a", "m", "m", "b"], cyclic=False) == (2, 0)
    assert switches(["kernel"], ["a"]) == (0, 0)


def _row(name, slope, kinds=None, names=None):
    kinds = kinds or ["gpu_memset" if c in MEMSET_BYTES else "gpu_memcpy" if c == "C" else "kernel" for c in name]
    return {"name": name, "family": "single" if len(name) == 1 else "pattern", "slope_us": slope,
            "kinds": kinds, "names": names or list(name)}


def _rows(small_extra=0.8):
    rows = [_row(c, 1.0) for c in "AMLCsuS"]
    rows.append(_row("G", 7.0, ["kernel", "kernel"], ["gemm", "reduce"]))  # a GEMM of two kernels
    rows += [_row("As", 2.0 + small_extra), _row("Gs", 8.0 + small_extra + 0.2), _row("Au", 2.0 + small_extra),
             _row("AS", 2.0), _row("ASS", 3.0 - 0.02), _row("AC", 2.0), _row("ACC", 3.0 + 0.02),
             _row("AM", 2.0 + 0.02), _row("AL", 2.0), _row("AG", 8.0 - 0.01, ["kernel"] * 3, ["A", "gemm", "reduce"]),
             _row("bad", 1.0)]  # a pattern of letters that no single measured: left out
    return rows


def test_derive_mix_prices_each_memset_size_and_finds_copies_and_kernel_switches_free():
    d = derive_mix(_rows())
    table = dict((b, us) for b, us in d["memset_extra_us"])
    assert table[4] == pytest.approx(0.9)          # median of As 0.8 and Gs 1.0
    assert table[1000] == pytest.approx(0.8) and table[65536] == pytest.approx(-0.005)  # AS 0, ASS -0.01 each
    assert [b for b, _ in d["memset_extra_us"]] == sorted(table)
    assert d["copy_extra_us"] == pytest.approx(0.005)   # AC 0, ACC +0.01 per copy
    # AG adds one switch to the GEMM's own two (A->gemm, reduce->A replace reduce->gemm): -0.01 per switch
    assert d["kernel_switch_us"] == pytest.approx(0.0)  # AM +0.01, AL 0, AG -0.01


def test_derive_mix_refuses_too_few_patterns():
    with pytest.raises(ValueError, match="memsets of at least 2 sizes"):
        derive_mix([r for r in _rows() if r["name"] not in ("As", "Gs", "Au")])


def test_a_small_memset_costs_its_measured_extra_and_an_unknown_size_the_smallest():
    m = Machine(C, 9.0, "test", node_extra_us=0.2, memset_extra_us=((4, 0.9), (1000, 0.7), (65536, 0.0)))
    assert m.node_cost_us == 0.2 and Machine(C, 9.0, "test").node_cost_us == 0.1  # else the chain's γg
    assert m.memset_us(None) == 0.9 and m.memset_us(4) == 0.9 and m.memset_us(5) == 0.7
    assert m.memset_us(4096) == 0.0 and m.memset_us(1 << 30) == 0.0
    assert Machine(C, 9.0, "test").memset_us(4) == 0.0
    noisy = Machine(C, 9.0, "test", memset_extra_us=((4, 0.9), (65536, -0.03)))
    assert noisy.memset_us(1 << 20) == 0.0  # a large memset measured a hair under its chain: 0, not less


def test_the_graph_step_adds_gamma_n_per_node_and_mu_per_memset():
    m = Machine(C, 9.0, "test", node_extra_us=0.2, memset_extra_us=((4, 0.9), (65536, 0.0)))
    k = StepCounts(gpu_ops=100, busy_us=300.0, host_us=2000.0, inputs=1, graph_memsets=(8, None, 1 << 20))
    want = 9.0 + max(4.0 + 5.0, 0.9) + 300.0 + 99 * 0.2 + (0.0 + 0.9 + 0.0) + 5.0
    assert memsets_us(k, m) == pytest.approx(0.9)
    assert graph_step_us(k, m) == pytest.approx(want)
    s = saving_split(k, m)  # the parts still add up to the saving
    assert saving_parts(s) == pytest.approx(s["saving_us"], abs=1e-2)


def _point(ops):
    return {"gpu_ops": len(ops), "busy_us": 200.0, "host_dispatch_us": 3000.0, "inputs": 1,
            "captured_gpu_ops": len(ops), "captured_busy_us": 200.0,
            "profile": {"eager_ops": ops, "captured_ops": ops}}


def test_a_point_reads_its_memsets_sizes_from_the_captured_profile():
    ops = [["kernel", 2.0, 64, 0, "gemm"], ["memset", 0.9, None, None, "Memset (Device)", 16],
           ["memset", 0.9, None, None, "Memset (Device)"], ["memcpy", 1.0, None, None, "Memcpy DtoD", 4096]]
    assert memset_bytes(_point(ops)) == (16, None)
    assert counts_of(_point(ops)).graph_memsets == (16, None)
    m = Machine(C, 9.0, "test", node_extra_us=0.2, memset_extra_us=((4, 0.9), (1000, 0.7)))
    ex = predicted_fields(_point(ops), m)["explanation"]
    assert ex["node_cost_us"] == 0.2 and ex["node_cost_source"] == "node_costs"
    assert ex["memset_nodes"] == 2 and ex["memsets_us"] == pytest.approx(0.7 + 0.9)
    assert predicted_fields(_point(ops), Machine(C, 9.0, "test"))["explanation"]["node_cost_source"] == "chain"


def test_the_shipped_node_costs_give_the_h200_its_gamma_n_and_the_simulator_none():
    from runtime_core.diagnose.machine import _node_costs_recording, with_node_costs
    rec = _node_costs_recording("NVIDIA H200")
    m = with_node_costs(Machine(C, 9.0, "test"), "NVIDIA H200")
    assert m.node_extra_us == rec.data["derived"]["median_extra_us"]
    assert m.node_spread_us == rec.data["derived"]["spread_us"]
    mix = (rec.data.get("mix") or {}).get("derived")
    assert [list(r) for r in m.memset_extra_us] == (mix["memset_extra_us"] if mix else [])
    sim = with_node_costs(Machine(C, 9.0, "test"), "NVIDIA H200", simulated=True)
    assert sim.node_extra_us is None and sim.memset_extra_us == () and sim.node_cost_us == C.node_gap_us


def test_a_long_kernels_relative_spread_comes_from_the_recordings_long_configs():
    """ρ is half the p10-p90 spread of (cost − median) / duration over configs of LONG_US or more;
    fewer than LONG_MIN of them: none. The shipped H200 recording has both sections' ρ."""
    from runtime_core.diagnose.machine import LONG_MIN, LONG_US, _node_costs_recording, relative_spread, with_node_costs
    rows = [{"extra_us": 0.2 + dev * us, "eager_mean_us": us}
            for us, dev in ((10.0, -0.05), (20.0, -0.02), (40.0, 0.0), (80.0, 0.01), (160.0, 0.03))]
    rows += [{"extra_us": 5.0, "eager_mean_us": LONG_US / 2}]          # short: its 5 µs counts nowhere
    assert relative_spread(rows, "extra_us", 0.2) == pytest.approx((0.03 - -0.05) / 2)
    assert relative_spread(rows[:LONG_MIN - 1], "extra_us", 0.2) == 0.0
    rec = _node_costs_recording("NVIDIA H200")
    m = with_node_costs(Machine(C, 9.0, "test"), "NVIDIA H200")
    assert m.node_rel_spread == relative_spread(rec.data["rows"], "extra_us", rec.data["derived"]["median_extra_us"]) > 0
    assert m.stream_rel_spread > 0 and with_node_costs(Machine(C, 9.0, "test"), "x", simulated=True).node_rel_spread == 0

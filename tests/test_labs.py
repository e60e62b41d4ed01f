"""The failure-mode labs: each shows its signal on the simulator, and the `lab` CLI's contract."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_core.recordings.shipped import shipped_constants

from runtime_core.labs import LABS, REPLAYS_A_RECORDING, run_lab
from runtime_core.labs import storm

ROOT = Path(__file__).resolve().parents[1]
HEADER_KEYS = {"lab", "backend", "source", "device_name", "signal", "verdict"}


@pytest.fixture(scope="module")
def sim_results():
    return {name: run_lab(name, "sim") for name in LABS}


def test_every_lab_labels_its_numbers_as_simulated(sim_results):
    """A lab the simulator cannot run (torch.compile on a GPU) replays a GPU recording instead and
    says "recorded" (tests/test_reduce_overhead_lab.py); every other lab is simulated."""
    for name, r in sim_results.items():
        assert HEADER_KEYS <= set(r), name
        sources = ("recorded", "cpu_recorded") if name in REPLAYS_A_RECORDING else ("simulated",)  # cpu: a CPU recording
        assert (r["lab"], r["backend"]) == (name, "sim") and r["source"] in sources, (name, r["source"])
        assert not r.get("owed_recording"), f"{name}: its GPU recording is owed: {r['verdict']}"
        assert r["signal"] is True, f"{name}: the failure mode's signal did not show: {r['verdict']}"
        json.dumps(r)  # plain data, ready for the CLI


def test_pageable_copy_serializes_and_pinned_copy_hides(sim_results):
    r = sim_results["overlap"]
    assert r["pageable_wall_us"] > r["pinned_wall_us"] >= r["compute_only_wall_us"]
    assert r["pinned_added_us"] < 0.01 * r["compute_only_wall_us"]  # hidden behind compute
    assert r["pageable_added_us"] > 0.2 * r["compute_only_wall_us"]
    lanes = {s["lane"] for s in r["timelines"]["pinned"]}
    assert lanes == {"cpu", "gpu compute", "gpu copy"}


def test_a_sync_each_step_slows_the_step_and_idles_the_gpu(sim_results):
    r = sim_results["sync"]
    assert r["step_with_sync_us"] > 1.2 * r["step_us"]
    assert r["gpu_idle_with_sync_us_per_step"] > r["gpu_idle_us_per_step"]
    assert r["gpu_busy_us_per_step"] > 0
    syncs = [s for s in r["timelines"]["sync"] if s["kind"] == "sync"]
    assert len(syncs) == 3 and not any(s["kind"] == "sync" for s in r["timelines"]["no_sync"])


def test_fresh_input_buffer_gives_stale_output_and_copy_in_is_exact(sim_results):
    r = sim_results["stale"]
    assert r["max_abs_err_fresh"] > 0
    assert r["max_abs_err_copied"] == 0 and r["copied_exact"]
    assert r["copied_in_value"] == r["expected_value"] == r["new_input_value"] + r["n_kernels"]
    assert r["static_address"] != r["fresh_address"]


def test_storm_captures_each_shape_once_when_the_cache_holds_them_all():
    r = storm.run("sim", cache_size=8, shapes=8, calls=24)
    rc = r["recapture"]
    assert rc["captures"] == rc["distinct_shapes"] == 8 and rc["evictions"] == 0
    assert r["signal"] is False


def test_storm_recaptures_every_call_when_the_cache_is_smaller():
    r = storm.run("sim", cache_size=3, shapes=8, calls=24)
    rc = r["recapture"]
    assert rc["captures"] == 24 and rc["evictions"] == 24 - 3  # round robin defeats an LRU
    assert rc["capture_ms"] > 0
    b = r["bucket"]
    assert b["captures"] < rc["captures"] and b["wasted_work_pct"] > 0


def test_storm_says_when_bucketing_thrashes_too():
    """A cache of one graph holds neither the 8 shapes nor the 2 buckets they pad to: the verdict
    gives bucketing's own captures and evictions, as counted, not just its padding."""
    r = storm.run("sim", cache_size=1, shapes=8, calls=32)
    bk = r["bucket"]
    assert bk["evictions"] > 0 and bk["captures"] > 2
    assert (f"Bucketing thrashed too, though less: its 2 buckets do not fit a cache of 1 either, so it needed "
            f"{bk['captures']} captures ({bk['evictions']} evictions, one each time the requests crossed into "
            "the other bucket)") in r["verdict"]
    assert bk["evictions"] == bk["captures"] - 1   # the first capture is no crossing
    assert "thrashed" not in storm.run("sim", cache_size=2, shapes=8, calls=32)["verdict"]


def test_storm_refuses_a_cache_of_zero():
    with pytest.raises(ValueError, match="cache_size"):
        storm.run("sim", cache_size=0)


def test_driver_malloc_every_step_costs_more_than_a_kept_pool(sim_results):
    r = sim_results["malloc"]
    raw, kept = r["raw_each_step"], r["pool_kept"]
    assert raw["per_step_us"] > 2 * kept["per_step_us"]
    assert raw["driver_mallocs_after_first_step"] > 0 and kept["driver_mallocs_after_first_step"] == 0
    assert raw["reserved_drops"] > 0 and kept["reserved_drops"] == 0


def test_fused_streams_stay_launch_bound_while_graph_removes_the_tax(sim_results):
    r = sim_results["fusion"]
    rows = {(x["variant"], x["mode"]): x for x in r["rows"]}
    fs, fg, us = rows["fused", "streams"], rows["fused", "graph"], rows["unfused", "streams"]
    gap = shipped_constants().node_gap_us  # GPU busy time counts the gaps between back-to-back kernels
    fused_work = fs["kernel_time_us"] - (fs["n"] - 1) * gap
    assert fused_work == pytest.approx(us["kernel_time_us"] - (us["n"] - 1) * gap)  # same total work
    assert fs["driver_calls"] == r["n"] // r["fuse"] and fg["driver_calls"] == 1
    assert us["wall_us"] > fs["wall_us"] > fg["wall_us"]  # fusion helps, the graph helps more
    assert fs["launch_overhead_us"] > 2 * fg["launch_overhead_us"]
    for row in r["rows"]:  # the model sits beside every measured point
        assert row["model_wall_us"] == pytest.approx(row["wall_us"], rel=0.1)


def test_the_fusion_verdict_adds_up_for_the_simulator_and_the_shipped_recording(sim_results):
    """Its overhead is the step less its kernel work, and the tax it does not count there is said
    to have run under the kernels: the sentence's numbers add up (the recording's own verdict
    predates this and read "tax … so overhead" with a gap between the two)."""
    import re
    from runtime_core.labs import fusion
    shipped = json.loads((ROOT / "lessons" / "recordings" / "labs_h200.json").read_text())["labs"]["fusion"]
    for r in (sim_results["fusion"], shipped):
        text = fusion.verdict(r)
        took, work = (float(re.search(pat, text).group(1)) for pat in (r"The step took (\d+) µs", r"(\d+) µs of kernel work"))
        overhead = float(re.search(r"so (\d+) µs of it is overhead", text).group(1))
        assert abs(took - work - overhead) <= 1.5
        tax = float(re.search(r"= (\d+) µs of tax", text).group(1))
        hidden = re.search(r"the other (\d+) µs of tax ran while kernels were busy", text)
        assert hidden and abs(float(hidden.group(1)) + overhead - tax) <= 1.5
        # work that is not the title's k × work µs says so (the simulator's 30 × 4 µs ran 122 µs)
        if round(work) != round(r["fused_n"] * r["fused_work_us"]):
            assert f"{r['fused_n']} × {r['fused_work_us']:g} µs was asked" in text


def test_unknown_lab_and_backend_are_value_errors():
    with pytest.raises(ValueError, match="unknown lab"):
        run_lab("nope", "sim")
    with pytest.raises(ValueError, match="backend"):
        run_lab("sync", "tpu")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "runtime_core", "lab", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_lab_cli_prints_the_labs_json():
    proc = _cli("stale", "--backend", "sim", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["lab"] == "stale" and out["source"] == "simulated" and out["max_abs_err_fresh"] > 0


@pytest.mark.parametrize("args", [("nope",), ("sync", "--backend", "gpu"), (), ("sync", "--n", "3")])
def test_lab_cli_bad_arguments_exit_2_with_one_line(args):
    proc = _cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(LABS))
def test_every_lab_shows_its_signal_on_a_real_gpu(name):
    r = run_lab(name, "cuda")
    assert (r["backend"], r["source"]) == ("cuda", "live")
    assert r["signal"] is True, r["verdict"]

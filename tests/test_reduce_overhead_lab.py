"""The reduce_overhead lab: what mode="reduce-overhead" really does, on the decoder.

Without a GPU it replays a recording (labelled "recorded"); the live code runs here on the CPU
as a smoke test (torch.compile works on a CPU; no CUDA graph is recorded there), and in full on a
GPU (marked gpu)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_core.labs import REPLAYS_A_RECORDING, run_lab
from runtime_core.labs.reduce_overhead import RECORD_COMMAND, finish
from runtime_core.recordings import store

ROOT = Path(__file__).resolve().parents[1]


def gpu_like_points() -> dict:
    """A result shaped like a GPU run (the numbers are made up for the test, not measured)."""
    overwritten = {"behaviour": "raised", "error_type": "RuntimeError",
                   "error": "Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run."}
    return {
        "device_name": "a GPU", "torch_version": "2.11.0", "errors": [],
        "fresh_inputs": {"calls": 4, "max_abs_err": 2e-6, "matches_eager": True, "outputs_follow_inputs": True,
                         "distinct_input_addresses": 4, "recordings_during_calls": 0, "graph_recorded": True,
                         "manual_capture": {"fresh_tensor_max_abs_err": 2.9, "copied_in_max_abs_err": 0.0,
                                            "copied_in_exact": True}},
        "kept_output": {"step1_read_ok": True, "bug": overwritten, "clone": {"behaviour": "kept", "max_abs_err": 0.0}},
        "mark_step": {"same_step": {"behaviour": "kept", "max_abs_err": 0.0}, "next_step": overwritten,
                      "mark_every_call": overwritten, "recordings": 1},
        "kernels": {"our_graph": {"ms_per_token": 0.5, "kernels": 250, "kernel_mean_us": 1.5, "busy_us": 380.0,
                                  "launch_calls": 0, "graph_launches": 1},
                    "reduce_overhead": {"ms_per_token": 0.3, "kernels": 90, "kernel_mean_us": 2.5, "busy_us": 230.0,
                                        "launch_calls": 1, "graph_launches": 1}},
        "new_shapes": {"batches": [1, 2, 3, 4], "recordings_total": 4, "compiled_graphs": 2, "warn_limit": 2,
                       "torch_default_warn_limit": 8, "warned_at_batch": 4,
                       "warning": "CUDAGraph supports dynamic shapes by recording a new graph for each distinct input size.",
                       "per_batch": [{"batch": b, "new_recordings": 1, "warned": b == 4} for b in (1, 2, 3, 4)]},
        "skips": {"mutated_input": {"skips": 1, "message": "skipping cudagraphs due to mutated inputs (1 instances)",
                                    "result_correct": True},
                  "cpu_tensor": {"skips": 0, "message": None, "result_correct": True},
                  "graph_partition": True},
        "skips_partition_off": {"mutated_input": {"skips": 1, "message": "skipping cudagraphs due to mutated inputs (1 instances)",
                                                  "result_correct": True},
                                "cpu_tensor": {"skips": 1, "message": "skipping cudagraphs due to cpu device (arg1_1)",
                                               "result_correct": True},
                                "graph_partition": False},
    }


def test_without_a_gpu_the_lab_replays_the_decoder_recording_labelled_recorded(tmp_path, monkeypatch):
    import shutil
    shutil.copy(ROOT / "lessons/recordings/decoder_h200.json", tmp_path)  # the fallback, until the lab's own ships
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    r = run_lab("reduce_overhead", "sim")
    assert "reduce_overhead" in REPLAYS_A_RECORDING
    assert (r["lab"], r["backend"], r["source"], r["recording"]) == ("reduce_overhead", "sim", "recorded", "decoder_h200.json")
    assert "NVIDIA H200" in r["device_name"]
    assert r["new_shapes"]["recordings_for_new_batches"] == 2 and r["signal"] is True
    assert r["kernels"]["reduce_overhead"]["ms_per_token"] < r["kernels"]["our_graph"]["ms_per_token"]
    assert {"kept_output", "mark_step", "skips", "kernels"} <= set(r["owed"])
    assert RECORD_COMMAND in r["verdict"] and "one per new shape" in r["verdict"]
    json.dumps(r)


def test_with_no_recording_at_all_the_lab_is_owed_and_the_page_says_so(tmp_path, monkeypatch):
    """No lab, labs or decoder recording: no numbers and no empty panel, but the owed notice the
    GPU-only labs show, with the command that records it."""
    import streamlit as st
    from conftest import open_page
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    st.cache_data.clear()  # the page caches a lab's recorded run per server process (lab_panels)
    r = run_lab("reduce_overhead", "sim")
    assert r["owed_recording"] and r["signal"] is False and RECORD_COMMAND in r["record_command"]
    at = open_page("pages/4_CUDA_graphs.py")
    at = at.button(key=next(b.key for b in at.button if b.key.startswith("lab_run_reduce_overhead"))).click().run()
    assert not at.exception
    assert any("Not recorded yet" in i.value for i in at.info)
    assert not any("Not recorded yet" in s.value for s in at.success)
    assert any(RECORD_COMMAND in c.value for c in at.code)
    st.cache_data.clear()


def test_a_shipped_reduce_overhead_recording_is_preferred(tmp_path, monkeypatch):
    lab = finish(gpu_like_points(), backend="cuda", source="live", device_name="a GPU")
    doc = {"meta": store.new_meta("reduce_overhead", "a GPU", "2.11.0", "cuda"), "points": [],
           "labs": {"reduce_overhead": lab, "cudagraph_trees": {}}}
    store.write(tmp_path / "reduce_overhead_test.json", doc)  # validates against the schema
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    r = run_lab("reduce_overhead", "sim")
    assert (r["source"], r["backend"], r["recording"]) == ("recorded", "sim", "reduce_overhead_test.json")
    assert r["owed"] == [] and r["kernels"]["reduce_overhead"]["kernels"] == 90 and r["signal"] is True


def test_the_verdict_says_each_point_in_words():
    r = finish(gpu_like_points(), backend="cuda", source="live", device_name="a GPU")
    v = r["verdict"]
    assert r["owed"] == [] and r["signal"] is True
    assert "gave eager's logits" in v and "our hand capture, given a fresh tensor, replayed the old token" in v
    assert "raised torch's error" in v and "a clone taken before step 2 kept the values" in v
    assert "same step still held step 1's values" in v
    assert "torch warned at batch 4" in v and "mutated inputs" in v
    assert "90 GPU kernels under reduce-overhead" in v and "against 250 in our capture" in v


def test_a_failed_point_is_listed_and_named_in_the_verdict():
    points = gpu_like_points()
    points["skips"] = {"error": "RuntimeError: boom"}
    points["errors"] = ["skips: RuntimeError: boom"]
    r = finish(points, backend="cuda", source="live", device_name="a GPU")
    assert "skips" in r["owed"] and "1 point(s) failed: skips: RuntimeError: boom" in r["verdict"]


def test_a_recording_with_a_broken_lab_is_refused(tmp_path):
    doc = {"meta": store.new_meta("reduce_overhead", "a GPU", "2.11.0", "cuda"), "points": [],
           "labs": {"reduce_overhead": {"lab": "reduce_overhead"}}}
    with pytest.raises(store.RecordingError, match="reduce_overhead"):
        store.write(tmp_path / "bad.json", doc)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "runtime_core", "lab", "reduce_overhead", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_lab_cli_on_the_simulator_prints_the_recorded_numbers():
    p = _cli("--backend", "sim", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["source"] == "recorded" and out["lab"] == "reduce_overhead"


def test_lab_cli_on_cuda_without_a_gpu_exits_2_with_one_line():
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    p = _cli("--backend", "cuda", "--json")
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.long
def test_every_point_runs_on_the_cpu_where_no_graph_is_recorded():
    """The live code, end to end, on a small decoder on this CPU (about half a minute: real
    torch.compile work from a cold cache, so it runs in make test-long)."""
    from runtime_core.aot.ro_lab import run_in_child
    r = run_in_child("cpu", small=True, timeout_s=600)
    assert r["errors"] == [], r["tracebacks"]
    assert r["fresh_inputs"]["matches_eager"] and r["fresh_inputs"]["graph_recorded"] is False
    assert r["fresh_inputs"]["distinct_input_addresses"] == 4
    assert r["kept_output"]["bug"]["behaviour"] == "kept"       # no graph on a CPU: nothing overwrites it
    assert r["kernels"] == {"skipped": "needs a CUDA device: there is no graph to count on a CPU"}
    shapes = r["new_shapes"]
    assert shapes["compiled_graphs"] >= 2 and shapes["recordings_total"] == 0 and shapes["warn_limit"] == 2
    for part in ("skips", "skips_partition_off"):  # on a CPU no region is graphed, partitioning or not
        regions = [s for s in r[part].values() if isinstance(s, dict)]
        assert len(regions) == 4 and all(s["skips"] >= 1 and s["result_correct"] for s in regions)
    assert (r["skips"]["graph_partition"], r["skips_partition_off"]["graph_partition"]) == (True, False)
    lab = finish(r, backend="cpu", source="cpu", device_name="cpu")
    assert "no CUDA graph was recorded on this device" in lab["verdict"]


def claims_that_fail(r: dict) -> list[str]:
    """The lesson's claims about reduce-overhead that a GPU run of the lab contradicts (empty:
    every claim held). tests/gpu_runs/session3.sh applies it to the recording it makes."""
    failed = []

    def claim(ok, text):
        if not ok:
            failed.append(text)
    fresh, kept, mark = r.get("fresh_inputs") or {}, r.get("kept_output") or {}, r.get("mark_step") or {}
    claim(fresh.get("matches_eager") and fresh.get("outputs_follow_inputs"), "a fresh input each call matches eager")
    claim(fresh.get("recordings_during_calls") == 0, "fresh inputs replay the one graph (no new recording)")
    claim(((fresh.get("manual_capture") or {}).get("fresh_tensor_max_abs_err") or 0) > 1e-2,
          "our hand capture reads a stale input")
    claim((kept.get("bug") or {}).get("behaviour") in ("raised", "changed"), "a kept output is overwritten")
    claim((kept.get("clone") or {}).get("behaviour") == "kept", "a clone keeps it")
    claim((mark.get("same_step") or {}).get("behaviour") == "kept", "two calls in one marked step keep outputs")
    claim((mark.get("next_step") or {}).get("behaviour") in ("raised", "changed"), "the next mark frees them")
    shapes = r.get("new_shapes") or {}
    claim(all(p["new_recordings"] >= 1 for p in shapes.get("per_batch") or [{"new_recordings": 0}]),
          "each new batch size records a graph")
    claim(shapes.get("warning") and shapes.get("warned_at_batch") is not None, "torch warns past the limit")
    claim("mutated" in (((r.get("skips") or {}).get("mutated_input") or {}).get("message") or ""),
          "a mutated input is skipped with its reason")
    k = r.get("kernels") or {}
    ours, ro = k.get("our_graph") or {}, k.get("reduce_overhead") or {}
    claim(ro.get("kernels") is not None and ours.get("kernels") is not None and ro["kernels"] < ours["kernels"],
          "reduce-overhead's graph has fewer kernels")
    claim(ro.get("ms_per_token") and ours.get("ms_per_token") and ro["ms_per_token"] < ours["ms_per_token"],
          "reduce-overhead is faster per token")
    return failed


def test_the_claims_check_passes_a_gpu_like_result_and_catches_a_contradiction():
    r = finish(gpu_like_points(), backend="cuda", source="live", device_name="a GPU")
    assert claims_that_fail(r) == []
    r["kept_output"]["bug"] = {"behaviour": "kept"}
    assert claims_that_fail(r) == ["a kept output is overwritten"]


@pytest.mark.gpu
def test_on_a_gpu_each_point_shows_what_the_lesson_says():
    r = run_lab("reduce_overhead", "cuda")
    assert (r["source"], r["errors"]) == ("live", []), r.get("tracebacks")
    assert claims_that_fail(r) == [], r["verdict"]
    assert r["signal"] is True and r["owed"] == []

def test_aot_reduce_overhead_record_writes_the_lab_and_the_tree_experiments(tmp_path, monkeypatch, capsys):
    """The recording path the GPU session uses, with the GPU parts stood in for."""
    import torch

    from runtime_core.aot import cli as aot_cli
    from runtime_core.cli import main
    monkeypatch.setattr(aot_cli, "_need_cuda", lambda what: None)
    monkeypatch.setattr("runtime_core.labs.run_lab",
                        lambda name, backend: finish(gpu_like_points(), backend="cuda", source="live", device_name="a GPU"))
    monkeypatch.setattr("runtime_core.aot.reduce_overhead.run_reduce_overhead", lambda tokens: {"tokens": tokens})
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=0: "a GPU")
    out = tmp_path / "reduce_overhead_h200.json"
    assert main(["aot", "reduce-overhead", "--json", "--record", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["tokens"] == 50 and printed["lab"]["source"] == "live"
    rec = store.load(out)
    assert (rec.meta.kind, rec.meta.complete) == ("reduce_overhead", True)
    assert rec.labs["reduce_overhead"]["owed"] == [] and rec.labs["cudagraph_trees"] == {"tokens": 50}
    assert main(["aot", "reduce-overhead", "--json", "--record", str(out)]) == 2  # never replaced without --force


def test_a_region_that_could_not_run_is_said_so_not_counted_as_zero_skips():
    points = gpu_like_points()
    points["skips"]["data_branch"] = {"error": "Unsupported: torch.cond"}
    v = finish(points, backend="cuda", source="live", device_name="a GPU")["verdict"]
    assert "a branch on data (torch.cond) was not measured: its run raised (Unsupported: torch.cond)" in v


def test_a_child_result_is_found_below_lines_a_library_printed():
    from runtime_core.child_process import last_json_object
    assert last_json_object('STAGE: profiler\n{"errors": []}\nW1130 a warning\n') == {"errors": []}
    assert last_json_object("no json here\n[1, 2]\n") is None


def test_each_skip_region_result_is_checked_before_the_next_call_overwrites_it(monkeypatch):
    """A graphed region's output buffer is overwritten by its next replay: the lab checks each
    call's result at once (its first GPU recording read call 1's output after call 3 and raised)."""
    import torch
    from runtime_core.aot import ro_shapes
    buf = torch.zeros(1)

    def replay_into_one_buffer(fn):
        def call(x):
            buf.copy_(fn(x))
            return buf  # like a CUDA graph's static output: the same tensor every replay
        return call
    monkeypatch.setattr(torch, "compile", lambda fn, mode=None: replay_into_one_buffer(fn))
    calls, seen = iter(range(1, 10)), [1.0, 2.0, 3.0]
    r = ro_shapes._one_skip(lambda x: x + next(calls), lambda: (torch.zeros(1),),
                            lambda out: [float(out)] == [seen.pop(0)])
    assert r["result_correct"] is True


def test_a_region_graphed_anyway_reads_as_not_skipped_not_as_skipped_zero_times():
    points = gpu_like_points()
    points["skips"]["cpu_tensor"] = {"skips": 0, "message": None, "result_correct": True}
    v = finish(points, backend="cuda", source="live", device_name="a GPU")["verdict"]
    assert "Graphs skipped with graph partitioning on:" in v and "Graphs skipped with graph partitioning off:" in v
    assert "a region with a CPU tensor was still graphed (0 skips, result correct)" in v
    assert "a region with a CPU tensor was skipped 1 time:" in v  # with partitioning off
    assert "skipped 0 time" not in v


def test_the_skip_table_shows_each_region_with_partitioning_on_and_off():
    from runtime_core.labs.reduce_overhead.text import skip_rows
    rows = {r["region"]: r for r in skip_rows(gpu_like_points())}
    cpu = rows["a region with a CPU tensor"]
    assert (cpu["skips, partitioning on"], cpu["skips, partitioning off"]) == ("0", "1")
    assert "cpu device" in cpu["reason logged"]
    assert rows["a region that mutates its input"]["skips, partitioning on"] == "1"
    only_on = gpu_like_points()
    del only_on["skips_partition_off"]
    assert {r["skips, partitioning off"] for r in skip_rows(only_on)} == {"not measured"}

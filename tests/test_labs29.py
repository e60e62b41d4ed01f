"""Issue 29's five labs. compile_cache runs on this CPU: its mechanisms are tested here for real
(the recompile limit, the package's metadata, and, marked slow, saved artifacts across two fresh
processes), and its CPU recording ships. The other four need CUDA: here, how their results are
reduced, judged and drawn, from tests/labs29_synthetic.py (SYNTHETIC numbers, written to a
temporary folder only), and what each panel says while its H200 recording is owed. On a GPU
(`gpu`), each lab runs live and shows its signal."""
import json
import lzma
from pathlib import Path

import pytest

from pages.ui.safe_text import unescape
from labs29_synthetic import SYNTHETIC_DEVICE, synthetic_results, synthetic_snapshot, write_synthetic_recordings
from runtime_core.labs import alloc_snapshot, compile_cache as cc, discover, gpu_recorded, run_lab
from runtime_core.recordings import store

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "lessons" / "recordings"
NAMES = ("trees_lifecycle", "compile_cache", "alloc_snapshot", "alloc_conf", "malloc_async")
CUDA_ONLY = ("trees_lifecycle", "alloc_snapshot", "alloc_conf", "malloc_async")
PAGES = {"trees_lifecycle": "pages/4_CUDA_graphs.py", "compile_cache": "pages/5_AOT_and_serving.py",
         "alloc_snapshot": "pages/3_Caching_allocator.py", "alloc_conf": "pages/3_Caching_allocator.py",
         "malloc_async": "pages/3_Caching_allocator.py"}


def test_the_five_labs_are_discovered_on_their_pages_with_their_texts():
    found = discover()
    for name in NAMES:
        assert found[name].page == PAGES[name] and found[name].panel == name, name
        assert found[name].renderer == f"pages.ui.labs29_panels:{name}"


# ---- compile_cache: the mechanisms, on this CPU --------------------------------------------------
def test_past_the_recompile_limit_calls_run_eagerly_with_the_right_answer():
    r = cc.recompile(limit=2, calls=4)
    assert [c["compiled"] for c in r["calls"]] == [True, True, False, False]
    assert all(c["correct"] for c in r["calls"])
    assert "recompile_limit" in (r["calls"][2]["logged"] or "")      # torch says so once, at the limit
    assert r["fail_on_limit"]["raised"] and "recompile" in r["fail_on_limit"]["error_type"].lower() + \
        r["fail_on_limit"]["error"].lower()


def test_the_cross_version_package_names_the_machine_it_was_built_for(tmp_path):
    pkg = tmp_path / "fixture.pt2"
    pkg.write_bytes(lzma.decompress(cc.PACKAGE_FIXTURE.read_bytes()))
    facts = cc.package_facts(str(pkg))
    built = json.loads(cc.FIXTURE_FACTS.read_text())
    assert facts["metadata"] == built["metadata"] and facts["metadata"]["AOTI_DEVICE_KEY"] == "cpu"
    assert facts["metadata"]["AOTI_CPU_ISA"] and facts["data_version"] == built["data_version"]
    assert "libtorch_cpu.so" in facts["so"]["needed"] and facts["so"]["aoti_shim_symbols"] > 0
    assert built["torch_version"].startswith("2.13") and len(built["expected_output"]) == 2
    assert cc.PACKAGE_FIXTURE.stat().st_size < 400_000    # it travels in the repository: kept small


def test_the_cpu_recording_ships_labelled_cpu_with_its_gpu_part_owed_or_recorded():
    rec = store.load(SHIPPED / "compile_cache_cpu2.json", "compile_cache")
    assert rec.meta.backend == "cpu" and "CPU" in rec.meta.device_name
    lab = rec.labs["compile_cache"]
    a, b = lab["without_artifacts"], lab["with_artifacts"]
    assert b["counters"]["fxgraph_cache_hit"] >= 1 and b["counters"]["fxgraph_cache_miss"] == 0
    assert a["counters"]["fxgraph_cache_miss"] >= 1 and b["loaded_artifacts"] == a["saved_artifacts"]
    assert b["first_call_s"] < a["first_call_s"]
    assert cc.finish(dict(lab))["verdict"] == lab["verdict"]   # the sentence is made from the numbers
    r = run_lab("compile_cache", "sim")
    assert r["source"] == "cpu_recorded" and r["device_name"].startswith("recorded on a CPU, not a GPU")
    assert r["gpu"]["source"] == "recorded" and not r["gpu"].get("owed_recording")   # its H200 run ships


@pytest.mark.slow
@pytest.mark.long
def test_saved_artifacts_make_a_fresh_processs_compile_a_cache_hit(tmp_path):
    """Two fresh processes, each with its own empty cache folder: the second loads what the
    first saved, and its compile hits the FX-graph and AOTAutograd caches (about a minute here)."""
    blob = tmp_path / "artifacts.bin"
    a = gpu_recorded.in_child("aot.cache_artifacts", "start", 600, env=cc._fresh_env(tmp_path, "a"),
                              device="cpu", artifacts_out=str(blob))
    b = gpu_recorded.in_child("aot.cache_artifacts", "start", 600, env=cc._fresh_env(tmp_path, "b"),
                              device="cpu", artifacts_in=str(blob))
    assert "error" not in a and "error" not in b, (a.get("error"), b.get("error"))
    assert a["counters"]["fxgraph_cache_miss"] == 1 and a["artifacts_bytes"] > 0
    assert b["counters"]["fxgraph_cache_hit"] == 1 and b["counters"]["autograd_cache_hit"] == 1
    assert b["max_abs_err_vs_eager"] < 1e-5


# ---- the CUDA-only labs: reduced, judged and drawn from SYNTHETIC results -----------------------
def test_a_snapshot_is_reduced_to_events_lifetimes_and_our_pools_replay():
    r = alloc_snapshot.reduce_snapshot(synthetic_snapshot())
    assert r["counts"]["alloc"] == 4 and r["counts"]["segment_alloc"] == 2
    assert [s[1] for s in r["over_time"]][-1] == 10 * 2**20 + 512   # allocated after the last event
    assert max(s[2] for s in r["over_time"]) == 22 * 2**20           # reserved: both segments
    freed = [iv for iv in r["intervals"] if iv["end"] is not None]
    assert len(freed) == 1 and freed[0]["bytes"] == 4 * 2**20
    assert {row["state"] for row in r["block_rows"]} == {"allocated", "free"}
    assert all("frames" not in e for e in r["events"])                # stacks are dropped
    ours = r["our_pool"]
    assert ours["segments"] >= 1 and ours["block_rows_end"] and ours["peak_allocated_bytes"] >= 12 * 2**20


def test_synthetic_results_are_judged_from_their_numbers():
    r = synthetic_results()
    assert r["trees_lifecycle"]["signal"] and "1 recorded a graph" in r["trees_lifecycle"]["verdict"]
    assert r["alloc_conf"]["signal"] and r["alloc_conf"]["oom_settings"] == ["default", "garbage_collection_threshold"]
    assert r["malloc_async"]["signal"] and "captured natively and captured with" in r["malloc_async"]["verdict"]
    assert r["alloc_snapshot"]["signal"]
    for name, lab in r.items():
        assert lab["device_name"] == SYNTHETIC_DEVICE, name


def test_without_their_recording_the_cuda_only_labs_say_they_are_owed(tmp_path, monkeypatch):
    from conftest import recordings_without
    monkeypatch.setenv(store.DIR_ENV, str(recordings_without(tmp_path, NAMES)))
    for name in CUDA_ONLY:
        r = run_lab(name, "sim")
        assert r.get("owed_recording"), name
        assert r["signal"] is False and r["source"] == "recorded" and "Not recorded yet" in r["verdict"]
        assert "session12_labs29.sh" in r["record_command"] and "merge_labs29.py" in r["merge_command"]
        assert not any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in r.values())


def test_without_any_recording_compile_cache_names_the_cpu_command_that_records_it(tmp_path, monkeypatch):
    from conftest import recordings_without
    monkeypatch.setenv(store.DIR_ENV, str(recordings_without(tmp_path, NAMES)))
    r = run_lab("compile_cache", "sim")
    assert r.get("owed_recording") and r["signal"] is False and "Not recorded yet" in r["verdict"]
    assert "runtime_core.labs.compile_cache --record" in r["record_command"]
    assert "needs a CUDA GPU" not in r["verdict"] and "CPU" in r["verdict"]
    # pasted whole, the block runs only the CPU route: the GPU route's lines are comments
    lines = [r["record_command"], r["merge_command"]]
    runnable = [line for block in lines for line in block.splitlines() if line and not line.startswith("#")]
    assert len(runnable) == 1 and runnable[0].startswith("python -m runtime_core.labs.compile_cache --record")


@pytest.fixture
def fresh_lab_cache():
    """The pages cache a lab's recorded run per server process (lab_panels._simulated): these
    tests swap the recordings folder, so each starts and ends with an empty cache."""
    import streamlit as st
    st.cache_data.clear()
    yield
    st.cache_data.clear()


@pytest.mark.slow
def test_the_pages_draw_each_synthetic_lab_and_label_it(monkeypatch, tmp_path, fresh_lab_cache):
    from conftest import open_page, tables_of
    write_synthetic_recordings(tmp_path, SHIPPED)
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "cache"))
    at = open_page("pages/3_Caching_allocator.py")
    captions = " ".join(unescape(c.value) for c in at.caption)
    assert captions.count(SYNTHETIC_DEVICE) >= 3
    titles = [unescape(m.value) for m in at.markdown]
    assert "**PyTorch's snapshot: each block's lifetime at its address**" in titles
    assert "**Our pool, the same allocations replayed: its segments at the end**" in titles
    cols = [set(df.columns) for df in tables_of(at)]
    assert any({"default", "max split", "gc threshold", "expandable"} <= c for c in cols)
    assert "max_split_size_mb:1024" in captions or "max_split_size_mb:1024" in " ".join(unescape(c.value) for c in at.caption)
    assert any({"native", "cudaMallocAsync"} <= c for c in cols)
    at = open_page("pages/4_CUDA_graphs.py")
    assert any("overwritten by a subsequent run" in c.value for c in at.code)
    calls = next(df for df in tables_of(at) if "cudagraph trees" in df.columns)
    assert list(calls["cudagraph trees"])[:3] == ["warm-up", "recorded", "replayed"]


def test_the_pages_show_what_is_owed_without_a_recording_and_the_cpu_numbers(monkeypatch, tmp_path, fresh_lab_cache):
    from conftest import open_page, tables_of
    for path in SHIPPED.glob("*.json"):   # the shipped recordings, without any lab of this issue's
        doc = json.loads(path.read_text())
        if doc["meta"]["kind"] == "compile_cache":   # the CPU recording stays; a GPU one would not
            if doc["meta"]["backend"] == "cpu":
                (tmp_path / path.name).write_text(json.dumps(doc))
            continue
        for name in NAMES:
            (doc.get("labs") or {}).pop(name, None)
        (tmp_path / path.name).write_text(json.dumps(doc))
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "cache"))
    at = open_page("pages/3_Caching_allocator.py")
    owed = [i.value for i in at.info if "Not recorded yet" in i.value]
    assert len(owed) == 3 and sum("session12_labs29.sh" in c.value for c in at.code) == 3
    at = open_page("pages/5_AOT_and_serving.py")
    assert any("CPU, RECORDED" in c.value and "recorded on a CPU, not a GPU" in unescape(c.value) for c in at.caption)
    cold = next(df for df in tables_of(at) if "artifacts loaded first" in df.columns)
    first = cold[cold.iloc[:, 0] == "first compiled call"].iloc[0]
    lab = json.loads((SHIPPED / "compile_cache_cpu2.json").read_text())["labs"]["compile_cache"]
    assert first["without artifacts"] == f"{lab['without_artifacts']['first_call_s']:.1f} s"
    assert any("Not recorded yet" in i.value for i in at.info)   # the GPU part is owed


# ---- on a GPU --------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("name", CUDA_ONLY)
def test_each_cuda_lab_shows_its_signal_live(name):
    r = run_lab(name, "cuda")
    assert (r["backend"], r["source"]) == ("cuda", "live") and not r.get("errors"), r.get("errors")
    assert r["signal"] is True, r["verdict"]
    if name == "alloc_conf":  # each order counts its own cudaMallocs: the growing one needs one per allocation
        from runtime_core.allocator.labs import ORDERS
        grows = sum(1 for step in ORDERS["growing"]["steps"] if step[0] == "malloc")
        assert r["settings"]["default"]["growing"]["num_driver_mallocs"] == grows, r["settings"]["default"]


def test_a_logged_line_reads_from_the_repository_root_and_says_where_the_recorder_cut_it():
    """What torch logged, as the labs show it: the recording machine's checkout (and torch's own cut
    of that path) is left out, and a line the recorder kept only the start of ends at a word and
    says so, instead of stopping mid-token."""
    from pages.ui.safe_text import RECORDED_CHARS, log_text
    doc = json.loads((SHIPPED / "labs_h200.json").read_text())
    logged = doc["labs"]["compile_cache"]["recompile"]["calls"][3]["logged"]
    assert len(logged) == RECORDED_CHARS and "/work/" in logged
    shown = log_text(logged)
    assert "/work/" not in shown and "ork/main" not in shown and "runtime_core/aot/cache_artifacts.py" in shown
    assert shown.endswith(" … (the recording keeps the start of this line)")
    assert logged.startswith(shown.split(" … ")[0].split(" (runtime_core")[0])
    short = 'File "/home/me/repo/runtime_core/x.py", line 3'
    assert log_text(short) == 'File "runtime_core/x.py", line 3'   # not cut: left whole


def test_a_static_input_marked_after_compiling_is_explained_from_the_recording():
    """The shipped H200 run marked six new tensors static after compiling: no graph recorded, each
    call replayed with eager's answer. Page 4 says why (the compiled code already copied that
    argument in) wherever the recording shows exactly that, and stays silent otherwise."""
    import json
    from conftest import open_page
    rec = json.loads((Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "labs_h200.json").read_text())
    rr = rec["labs"]["trees_lifecycle"]["rerecord"]
    marked = [r for r in rr["rows"] if r["call"].startswith("new static input")]
    expected = (bool(marked) and rr["records_for_static_inputs"] == 0 and all(r["replay"] for r in marked)
                and rr["max_abs_err"] < 1e-3)
    at = open_page("pages/4_CUDA_graphs.py")
    said = any("does not change code already compiled" in str(c.value) for c in at.caption)
    assert said == expected

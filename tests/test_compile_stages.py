"""A warm start still traces and builds guards; the caches skip Inductor's work. Per-stage times
and cache counters from the cold/warm compile children, and how the page's tables read them."""
from pathlib import Path

import pytest

from runtime_core.aot import compile_stages
from runtime_core.aot.compile_stages import NOT_REPORTED, STAGES, Stage
from runtime_core.aot.tables import cache_counter_rows, compile_stage_problems, compile_stage_rows

# What torch 2.13's compile_times() reported for the MLP on this CPU (trimmed), cold and warm.
COLD = {"_compile.compile_inner": 10.4, "bytecode_tracing": 0.10, "build_guards": 0.026,
        "OutputGraph.call_user_compiler": 10.3, "create_aot_dispatcher_function": 10.1,
        "GraphLowering.run": 0.046, "Scheduler.codegen": 8.47, "compile_file": 8.48,
        "async_compile.wait": 0.88, "PyCodeCache.load_by_key_path": 1.06}
WARM = {"_compile.compile_inner": 1.55, "bytecode_tracing": 0.09, "build_guards": 0.026,
        "OutputGraph.call_user_compiler": 1.41, "AOTAutogradCache.inductor_load": 1.24,
        "PyCodeCache.load_by_key_path": 1.24, "compile_file": 0.16, "async_compile.wait": 0.001}


def detail(stages, hit: bool):
    counters = {"fxgraph_cache_hit": int(hit), "fxgraph_cache_miss": int(not hit), "fxgraph_cache_bypass": 0,
                "autograd_cache_hit": int(hit), "autograd_cache_miss": int(not hit), "autograd_cache_bypass": 0}
    return {"stages": stages, "counters": counters, "fx_graph_cache": True, "autotune_best_configs": 0}


def test_a_stage_reads_its_first_present_timer_or_the_largest_matching_one():
    s = Stage("codegen", ("Scheduler.codegen", "GraphLowering.codegen"))
    assert s.seconds({"GraphLowering.codegen": 2.0}) == 2.0
    assert s.seconds({"Scheduler.codegen": 1.0, "GraphLowering.codegen": 2.0}) == 1.0
    assert s.seconds({"other": 1.0}) is None and s.seconds(None) is None
    tune = Stage("autotune", contains=("autotune",))
    assert tune.seconds({"select_algorithm.autotune": 0.5, "CachingAutotuner.autotune_x": 2.0}) == 2.0


def label(stage_cell: str) -> str:
    """A stage column's cell without its tree prefix (and the note on a timer that ran in two places)."""
    return stage_cell.lstrip("│├└─ \u00a0").split(" (part of its seconds ran")[0]


def test_warm_start_rows_say_what_ran_again_and_what_a_cache_skipped():
    rows = {label(r["stage"]): r for r in compile_stage_rows({"compile_cold_detail": detail(COLD, False),
                                                               "compile_warm_detail": detail(WARM, True)})}
    assert sorted(rows) == sorted(s.label for s in STAGES)
    assert rows["Dynamo traces the bytecode into an FX graph"]["on a warm start"].startswith("ran again")
    assert rows["Dynamo builds the guards"]["on a warm start"].startswith("ran again")
    for skipped in ("Inductor lowers the FX graph to its IR", "Inductor fuses and generates code",
                    "AOTAutograd traces and functionalizes the graph, then runs Inductor"):
        assert rows[skipped]["on a warm start"] == "skipped: a cache had the result", skipped
        assert rows[skipped]["warm s"] is None and rows[skipped]["cold s"] > 0
    assert rows["load the compiled graph from the caches"]["on a warm start"].startswith("only when warm")
    assert rows[compile_stages.AUTOTUNE]["on a warm start"] == "did not run here"


def test_a_torch_without_compile_times_reads_not_reported(monkeypatch):
    import torch._dynamo.utils as utils

    def broken(*a, **k):
        raise TypeError("compile_times() got an unexpected keyword argument 'aggregate'")
    monkeypatch.setattr(utils, "compile_times", broken)
    assert compile_stages.stage_times() is None
    rows = compile_stage_rows({"compile_cold_detail": detail(None, False), "compile_warm_detail": detail(WARM, True)})
    assert {r["on a warm start"] for r in rows} == {NOT_REPORTED}
    counters = cache_counter_rows({"compile_cold_detail": {"counters": None}, "compile_warm_detail": detail(WARM, True)})
    hits = next(r for r in counters if r["counter"] == "FX-graph cache hits")
    assert (hits["cold"], hits["warm"]) == (NOT_REPORTED, "1")


def test_old_results_without_details_still_render():
    rows = compile_stage_rows({"compile_cold_s": 10.0, "compile_warm_s": 2.0})
    assert len(rows) == len(STAGES) and rows[0]["on a warm start"] == NOT_REPORTED
    assert all(r["cold"] == NOT_REPORTED for r in cache_counter_rows({}))


def test_autotune_files_counts_best_configs(tmp_path):
    assert compile_stages.autotune_files(None) is None
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "k.best_config").write_text("{}")
    (tmp_path / "ab" / "k.py").write_text("")
    assert compile_stages.autotune_files(tmp_path) == 1


def test_the_stages_show_as_a_tree_each_under_the_stage_it_runs_in():
    rows = compile_stage_rows({"compile_cold_detail": detail(COLD, False), "compile_warm_detail": detail(WARM, True)})
    assert [r["stage"].replace("\u00a0", "_") for r in rows] == [
        "whole compile: Dynamo, AOTAutograd, Inductor",  # (an indent is no-break spaces: "_" below)
        "├─ Dynamo traces the bytecode into an FX graph",
        "├─ Dynamo builds the guards",
        "└─ backend: AOTAutograd + Inductor, or their caches",
        "___├─ AOTAutograd traces and functionalizes the graph, then runs Inductor",
        "___│__├─ Inductor lowers the FX graph to its IR",
        "___│__├─ Inductor fuses and generates code",
        "___│__│__└─ compile the generated C++ (a CPU's kernels) (part of its seconds ran inside "
        "'load the generated Python module' instead)",
        "___│__└─ load the generated Python module",
        "___│_____├─ compile the Triton kernels in worker processes (a GPU's kernels)",
        "___│_____└─ wait for the worker processes' kernel compiles (Triton's on a GPU, C++ on a CPU)",
        "___└─ load the compiled graph from the caches",
        compile_stages.AUTOTUNE]
    verdicts = {label(r["stage"]): r["on a warm start"] for r in rows}
    assert verdicts["load the generated Python module"].endswith(
        "inside 'load the compiled graph from the caches' this time")   # where a warm start ran it


def test_a_gpus_kernel_compile_has_its_own_row_and_a_warm_start_takes_a_sliver_of_it():
    """The H200 recording's Triton compile (async_compile.precompile, 0.30 s) had no row, so the
    only kernel row was the wait on the workers (0.2 ms cold, 5.8 ms warm: "ran again, 35x"),
    beside a caption saying a warm start's kernel compile takes a sliver of its cold time."""
    import json
    rec = json.loads((Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "aot_h200.json").read_text())
    row = next(r for r in compile_stage_rows(rec["aot"]) if "compile the Triton kernels" in r["stage"])
    stage = compile_stages.BY_LABEL[label(row["stage"])]
    cold = stage.seconds(rec["aot"]["compile_cold_detail"]["stages"])
    warm = stage.seconds(rec["aot"]["compile_warm_detail"]["stages"])
    assert cold > 0.1 and warm < 0.05 * cold


def test_siblings_add_up_to_no_more_than_their_parent_in_each_run():
    """The flat list's complaint: stages of 23 + 21 + 13.1 s against a 23.7 s whole. As a tree they
    nest; seconds that do not fit the nesting are named."""
    assert compile_stage_problems({"compile_cold_detail": detail(COLD, False),
                                   "compile_warm_detail": detail(WARM, True)}) == []
    nested = {"_compile.compile_inner": 23.7, "bytecode_tracing": 0.5, "OutputGraph.call_user_compiler": 21.0,
              "create_aot_dispatcher_function": 13.1}
    assert compile_stages.nesting_problems(nested) == []
    bad = {**nested, "bytecode_tracing": 3.5}                   # 3.5 + 21 > 23.7: siblings overflow
    assert compile_stages.nesting_problems(bad, "cold") == [
        "the stages inside 'whole compile: Dynamo, AOTAutograd, Inductor' took 24.5 s together, longer than it "
        "(23.7 s) (cold)"]
    longer = {**nested, "create_aot_dispatcher_function": 22.0}  # a child longer than its parent
    assert "longer than 'backend: AOTAutograd + Inductor, or their caches' (21 s)" in compile_stages.nesting_problems(longer)[0]


def test_a_stage_that_runs_in_two_places_is_bounded_by_both():
    """On a CPU the C++ compile runs inside code generation and again when the generated module
    loads (torch 2.13, cold: compile_file 19.7 s, Scheduler.codegen 11.4 s, the module's load
    9.8 s): its total fits the two together, and is too long only beyond their sum."""
    cold = {"_compile.compile_inner": 30.0, "OutputGraph.call_user_compiler": 29.0,
            "create_aot_dispatcher_function": 28.0, "Scheduler.codegen": 11.4,
            "PyCodeCache.load_by_key_path": 9.8, "compile_file": 19.7}
    assert compile_stages.nesting_problems(cold) == []
    assert compile_stages.nesting_problems({**cold, "compile_file": 22.0}, "cold") == [
        "'compile the generated C++ (a CPU's kernels)' took 22 s, longer than 'Inductor fuses and generates code' "
        "and 'load the generated Python module' (21.2 s together) it runs in (cold)"]
    alone = {k: v for k, v in cold.items() if k != "PyCodeCache.load_by_key_path"}  # one parent ran: its bound
    assert "longer than 'Inductor fuses and generates code' (11.4 s)" in compile_stages.nesting_problems(alone)[0]


def test_the_shipped_gpu_recording_fits_the_tree():
    import json
    from pathlib import Path
    rec = Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "aot_h200.json"
    if not rec.exists():
        pytest.skip("aot_h200.json is not shipped")
    res = json.loads(rec.read_text())["aot"]
    assert compile_stage_problems(res) == []
    assert sum(r["stage"].startswith(("├─ ", "└─ ")) for r in compile_stage_rows(res)) == 3  # under the whole


@pytest.mark.slow
@pytest.mark.long
def test_real_cold_and_warm_children_on_this_cpu(tmp_path):
    """Two fresh processes compile the MLP with one cache dir: the first misses both caches and
    runs Inductor, the second hits them, skips Inductor, and still traces and builds guards."""
    from runtime_core.aot.spawn import run_child
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")}
    cold, warm = (run_child(["compile", "compile", "cpu"], env=env) for _ in range(2))
    assert "error" not in cold and "error" not in warm, (cold, warm)
    assert cold["counters"]["fxgraph_cache_miss"] >= 1 and cold["counters"]["fxgraph_cache_hit"] == 0
    assert warm["counters"]["fxgraph_cache_hit"] >= 1 and warm["counters"]["fxgraph_cache_miss"] == 0
    rows = {label(r["stage"]): r for r in compile_stage_rows({"compile_cold_detail": cold, "compile_warm_detail": warm})}
    assert compile_stage_problems({"compile_cold_detail": cold, "compile_warm_detail": warm}) == []
    for stage in ("Dynamo traces the bytecode into an FX graph", "Dynamo builds the guards"):
        assert rows[stage]["on a warm start"].startswith("ran again"), rows[stage]
    assert rows["Inductor fuses and generates code"]["on a warm start"].startswith("skipped"), rows
    assert warm["first_call_s"] < cold["first_call_s"]
    print({k: (v["cold s"], v["warm s"]) for k, v in rows.items()})


def test_a_child_longer_than_its_drawn_parent_says_where_else_its_timer_ran():
    """Live on a CPU the C++ compile (8.48 s) is drawn under code generation (8.47 s): its timer
    also ran while the generated module loaded, and the row says so. A warm start that ran a
    stage under a different parent says "this time" instead; an ancestor adds no note."""
    rows = compile_stage_rows({"compile_cold_detail": detail(COLD, False), "compile_warm_detail": detail(WARM, True)})
    notes = {label(r["stage"]): r["stage"].split(label(r["stage"]))[1] for r in rows}
    assert notes["compile the generated C++ (a CPU's kernels)"] == \
        " (part of its seconds ran inside 'load the generated Python module' instead)"
    assert notes["load the generated Python module"] == ""   # warm ran it elsewhere: the verdict says so
    tuned = dict(COLD, **{"select_algorithm.autotune": 0.5})
    rows = compile_stage_rows({"compile_cold_detail": detail(tuned, False), "compile_warm_detail": detail(WARM, True)})
    assert all("part of its seconds" not in r["stage"] for r in rows if "autotuning" in r["stage"])  # backend is its ancestor


@pytest.mark.parametrize("warm,cold,said", [(0.0001, 0.076, "under 1% of its cold time"),
                                            (0.0058, 0.0002, "29× its cold time"),
                                            (1.0, 2.0, "50% of its cold time")])
def test_a_warm_stage_against_its_cold_time_reads_as_a_reader_takes_it(warm, cold, said):
    """"ran again (0% of its cold time)" for a stage that ran, "3464%" for one 35 times slower."""
    c = {"_compile.compile_inner": 1.0, "bytecode_tracing": cold}
    w = {"_compile.compile_inner": 1.0, "bytecode_tracing": warm}
    rows = {label(r["stage"]): r for r in compile_stage_rows({"compile_cold_detail": detail(c, False),
                                                               "compile_warm_detail": detail(w, True)})}
    assert rows["Dynamo traces the bytecode into an FX graph"]["on a warm start"] == f"ran again ({said})"


def test_a_package_step_that_did_not_run_has_no_seconds_not_zero():
    """The recording's torch.export and AOTInductor rows read "0" seconds: instant, to a reader."""
    from runtime_core.aot.tables import coldwarm_rows
    res = {"export_s": 0.0, "aot_compile_s": 0.0, "package_cached": True, "compile_cold_s": 2.0}
    rows = {r["step"]: r for r in coldwarm_rows(res)}
    for step in ("torch.export", "AOTInductor package"):
        assert rows[step]["seconds"] is None and rows[step]["note"].startswith("not run")
    built = {r["step"]: r for r in coldwarm_rows(dict(res, export_s=1.5, package_cached=False))}
    assert built["torch.export"]["seconds"] == 1.5 and built["torch.export"]["note"] == "built in this measurement"


def test_an_older_result_without_package_cached_shows_no_seconds_for_a_zero_package_step():
    from runtime_core.aot.tables import coldwarm_rows
    rows = {r["step"]: r for r in coldwarm_rows({"export_s": 0.0, "aot_compile_s": 3.0})}
    assert rows["torch.export"]["seconds"] is None and rows["AOTInductor package"]["seconds"] == 3.0
    assert "no seconds means" in rows["torch.export"]["note"]


def test_a_second_parent_nested_under_the_drawn_one_adds_no_note():
    """Drawn under the backend (the cold run loaded no module), autotuning's warm timer also ran
    inside the module load: that load is inside the backend, so nothing needs saying."""
    cold = {"_compile.compile_inner": 3.0, "OutputGraph.call_user_compiler": 2.9, "select_algorithm.autotune": 0.5}
    warm = {"_compile.compile_inner": 1.0, "OutputGraph.call_user_compiler": 0.9, "AOTAutogradCache.inductor_load": 0.8,
            "PyCodeCache.load_by_key_path": 0.7, "select_algorithm.autotune": 0.1}
    rows = compile_stage_rows({"compile_cold_detail": detail(cold, False), "compile_warm_detail": detail(warm, True)})
    tune = next(r for r in rows if "autotuning" in r["stage"])
    assert "part of its seconds" not in tune["stage"], tune


def test_the_gpus_module_load_holds_its_children_and_autotuning_is_not_one_of_them():
    """The H200 recording: under 'load the generated Python module' (0.317 s cold) the Triton
    compile (0.304 s) and the wait (0.0002 s) fit; autotuning (0.076 s) was drawn there too and
    broke the sum the caption invites. A Triton kernel benchmarks its configurations on its first
    launch, after the compile, so autotuning is a row of its own, under no compile stage."""
    import json
    rec = json.loads((Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "aot_h200.json").read_text())
    cold = rec["aot"]["compile_cold_detail"]["stages"]
    nest = compile_stages.parents_in(cold)
    assert compile_stages.AUTOTUNE in nest and nest[compile_stages.AUTOTUNE] is None
    inside = [label for label, parent in nest.items() if parent == compile_stages.LOAD_MODULE]
    total = sum(compile_stages.BY_LABEL[label].seconds(cold) for label in inside)
    assert 0 < total <= compile_stages.BY_LABEL[compile_stages.LOAD_MODULE].seconds(cold)
    assert compile_stage_problems(rec["aot"]) == []

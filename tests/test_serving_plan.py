"""Serving with one ranged AOT package: a request inside the range runs as it is, outside it pads
or is rejected with the guard's message. Stand-ins for the packages (no compiling), the
orchestration with the child processes faked, and the tables the page shows."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from runtime_core.aot import serving_measure
from runtime_core.aot.export import BATCH_MAX, BATCH_MIN
from runtime_core.aot.serving_plan import RANGED, SERVING_PLAN, ServingPlan, loop_artifacts, serve_requests
from runtime_core.aot.serving_run import CHECK_ENV, THREADS_ENV
from runtime_core.aot.tables import (serving_cpp_errors, serving_cpp_rows, serving_rows, serving_time_rows,
                                     timing_contradictions, unchecked_line)

ROOT = Path(__file__).resolve().parents[1]


def stand_ins(plan: ServingPlan, calls: list):
    """One callable per package that logs (package, batch) and doubles its input."""
    def make(key):
        def fn(x):
            calls.append((key, x.shape[0]))
            return x * 2
        return fn
    return {key: make(key) for key in plan.packages()}


def serve(plan=SERVING_PLAN, check=None):
    calls = []
    rows = serve_requests(plan, stand_ins(plan, calls), lambda b: torch.ones(b, 64), lambda x: x * 2,
                          package_check=check)
    return {r["batch"]: r for r in rows}, calls


def test_the_ranged_package_is_checked_first_and_covers_its_whole_range():
    arts = loop_artifacts(SERVING_PLAN, {k: None for k in SERVING_PLAN.packages()})
    assert (arts[0].guard.batch_min, arts[0].guard.batch_max) == (BATCH_MIN, BATCH_MAX) == (2, 64)
    assert [a.name for a in arts] == ["ranged package, batch 2..64", "exact package, batch 128"]
    assert SERVING_PLAN.packages() == [RANGED, 8, 64, 128]


def test_inside_the_range_runs_as_is_outside_it_pads_or_rejects():
    rows, calls = serve(ServingPlan(repeats=1))
    for b in (8, 37, 64):
        assert rows[b]["path"] == "hit" and rows[b]["served_by"] == "ranged package, batch 2..64", rows[b]
        assert rows[b]["padded_to"] is None and rows[b]["matches_reference"] is True
    assert (rows[1]["path"], rows[1]["padded_to"], rows[1]["served_by"]) == ("miss -> pad", 2, "ranged package, batch 2..64")
    assert (rows[100]["path"], rows[100]["padded_to"], rows[100]["served_by"]) == ("miss -> pad", 128, "exact package, batch 128")
    assert rows[128]["path"] == "hit" and rows[128]["served_by"] == "exact package, batch 128"
    assert rows[200]["path"] == "rejected" and "guard miss: batch 200 outside batch 2..64" in rows[200]["verdict"]
    assert rows[200]["served_ms"] is None and rows[200]["matches_reference"] is None
    assert (RANGED, 2) in calls and (128, 128) in calls and not any(b == 200 for _, b in calls)


def test_each_package_is_timed_only_at_sizes_it_serves_as_is():
    rows, _ = serve(ServingPlan(repeats=2))
    assert [b for b, r in rows.items() if r["ranged_ms"] is not None] == [8, 37, 64]
    assert [b for b, r in rows.items() if r["exact_ms"] is not None] == [8, 64, 128]
    assert [b for b, r in rows.items() if r["padded_ms"] is not None] == [1, 100]  # the padded call, at 2 and 128
    assert all(r["served_ms"] > 0 and r["guard_ms"] > 0 for r in rows.values() if r["path"] != "rejected")


def test_the_cells_of_a_row_are_timed_in_turns_not_one_after_the_other():
    from runtime_core.aot.serving_plan import interleaved_ms
    order = []
    ms = interleaved_ms({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeats=3)
    assert order == ["a", "b"] + ["a", "b"] * 3 and set(ms) == {"a", "b"}  # one untimed call each, then turns


def test_a_burst_of_load_lands_on_every_cell_of_a_row_alike():
    """A stand-in whose calls get slow for a while (someone else's load): timed in turns, the
    loop per request still contains the package call it dispatches to."""
    import time
    plan = ServingPlan(loop_exact=(128,), compare_exact=(), requests=(37,), repeats=40, unchecked=None)
    calls = {"n": 0}

    def package(x):
        calls["n"] += 1
        if 44 <= calls["n"] < 84:   # a burst: 40 of the calls are slow
            time.sleep(0.002)
        return x * 2
    rows = serve_requests(plan, {RANGED: package, 128: package}, lambda b: torch.ones(b, 64), lambda x: x * 2)
    assert timing_contradictions({"rows": rows}) == [], rows


# ---- the timing table: each row says what it times, and no row contradicts another ---------------------
REPORTED = {  # the table issue 27 reported (2-core CPU, two OpenMP threads, each cell timed on its own)
    "rows": [{"batch": 64, "path": "hit", "served_by": "ranged package, batch 2..64", "padded_to": None,
              "served_ms": 0.0704, "ranged_ms": 0.0979, "exact_ms": 0.07},
             {"batch": 128, "path": "hit", "served_by": "exact package, batch 128", "padded_to": None,
              "served_ms": 0.128, "ranged_ms": None, "exact_ms": 20.9},
             {"batch": 37, "path": "hit", "served_by": "ranged package, batch 2..64", "padded_to": None,
              "served_ms": 0.075, "ranged_ms": 0.069, "exact_ms": None}],
    "cpp": [{"package": "ranged package, batch 2..64", "batch": 37, "input_check": "off", "load_s": 0.002,
             "run_ms": 30.6, "matches_reference": True, "error": None}]}


def test_the_reported_contradictions_are_each_found():
    found = timing_contradictions(REPORTED)
    assert len(found) == 3, found
    assert found[0].startswith("batch 64: the loop per request (0.0704 ms) is faster than one call of the ranged")
    assert found[1].startswith("batch 128: the loop per request (0.128 ms) is faster than one call of the exact batch-128")
    assert found[2].startswith("batch 37: the C++ runner's one call") and "443 times Python's" in found[2]


def test_a_runner_process_shorter_than_its_load_and_a_call_contradicts_them():
    cpp = {"package": "ranged package, batch 2..64", "batch": 37, "load_s": 0.5, "run_ms": 0.02, "runs": 50,
           "process_ms": 400.0, "error": None}
    assert "shorter than its load and one call" in timing_contradictions({"cpp": [cpp]})[0]
    assert timing_contradictions({"cpp": [{**cpp, "process_ms": 900.0}]}) == []


def test_every_timing_row_says_what_it_times():
    res = {"rows": [{"batch": 100, "path": "miss -> pad", "served_by": "exact package, batch 128", "padded_to": 128,
                     "served_ms": 0.07, "guard_ms": 0.004, "padded_ms": 0.05, "ranged_ms": None, "exact_ms": None}],
           "cpp": [{"package": "ranged package, batch 2..64", "batch": 37, "load_s": 0.002, "run_ms": 0.02, "runs": 50,
                    "process_ms": 450.0, "error": None}]}
    assert [(r["batch"], r["timed"], r["ms"]) for r in serving_time_rows(res)] == [
        (100, "the loop, per request: guard check, pad to 128, package call", 0.07),
        (100, "the loop's guard check alone (nothing runs)", 0.004),
        (100, "exact package, batch 128, one call at batch 128 (the padded request)", 0.05),
        (37, "C++ runner: ranged package, batch 2..64, one call (median of 50)", 0.02),
        (37, "C++ runner process, ranged package, batch 2..64: start, load, 51 calls, exit", 450.0)]
    assert timing_contradictions(res) == []
    hit = dict(res["rows"][0], batch=37, path="hit", served_by="ranged package", padded_to=None)
    assert serving_time_rows({"rows": [hit]})[0]["timed"] == "the loop, per request: guard check, package call"


def test_the_runners_rows_come_in_order_of_batch():
    cpp = [{"package": p, "batch": b, "load_s": 0.002, "run_ms": 0.02, "runs": 5, "error": None}
           for p, b in (("ranged", 37), ("exact 8", 8), ("ranged", 64), ("ranged", 8), ("exact 128", 128))]
    assert [r["batch"] for r in serving_time_rows({"cpp": cpp})] == [8, 8, 37, 64, 128]


def test_the_packages_own_check_is_reported_per_request():
    rows, _ = serve(ServingPlan(repeats=1), check=lambda x: None if 2 <= x.shape[0] <= 64 else f"refused {x.shape[0]}")
    assert rows[37]["package_check"] is None and rows[200]["package_check"] == "refused 200"
    table = {r["batch"]: r for r in serving_rows({"rows": list(rows.values())})}
    assert table[37]["the ranged package's own check, asked of this batch"] == "accepts"
    assert table[200]["the ranged package's own check, asked of this batch"] == "refused 200"
    assert table[1]["guard's verdict"].startswith("miss (batch 1 outside batch 2..64, batch 128): padded 1 up to")


def test_plan_round_trips_through_json():
    plan = ServingPlan(loop_exact=(), compare_exact=(8,), requests=(1, 8), repeats=3)
    assert ServingPlan.from_dict(json.loads(json.dumps(plan.as_dict()))) == plan
    assert plan.packages() == [RANGED, 8]


# ---- the orchestration, with the child processes and the C++ runner faked --------------------------
@pytest.fixture
def faked(monkeypatch, tmp_path):
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "aot"))
    seen = {"children": [], "cpp": []}

    def run_child(args, env=None, timeout_s=300.0):
        seen["children"].append((args[0], [str(a) for a in args[1:]], env))
        if args[0] == "package":
            return {"package": f"/pk/{args[2] if len(args) == 3 else 'ranged'}.pt2", "cached": True, "package_s": 0.0}
        if args[0] == "serve":
            return seen.get("serve_reply", {"rows": [{"batch": 8, "verdict": "hit", "path": "hit"}]})
        return {"ran": True, "batch": 12, "max_abs_err": 0.69, "rows_wrong": 4, "output_shape": [12, 32]}

    def run_cpp(package, x, device, work_dir, env=None, timeout_s=120.0):
        seen["cpp"].append((str(package), x.shape[0], env))
        if env and env.get(CHECK_ENV) == "1":
            return {"error": "C++ runner exited with status 1: aot_runner: dim value is too large"}
        from runtime_core.aot.models import make_mlp
        with torch.no_grad():
            return {"output": make_mlp()(torch.from_numpy(x)).numpy(), "load_s": 0.001, "run_s": 2e-5}
    monkeypatch.setattr(serving_measure, "run_child", run_child)
    monkeypatch.setattr("runtime_core.aot.cpp_runner.run_cpp", run_cpp)
    return seen


def test_measure_builds_every_package_then_serves_with_the_input_check_on(faked):
    res = serving_measure.measure_serving("cpu")
    steps = [c[0] for c in faked["children"]]
    assert steps == ["package"] * 4 + ["serve", "unchecked"]
    assert [c[1] for c in faked["children"][:4]] == [["cpu"], ["cpu", "8"], ["cpu", "64"], ["cpu", "128"]]
    serve_env, unchecked_env = faked["children"][4][2], faked["children"][5][2]
    assert serve_env == {CHECK_ENV: "1", THREADS_ENV: "1"}           # one OpenMP thread on a CPU
    assert unchecked_env == {CHECK_ENV: None, THREADS_ENV: "1"}         # None: removed
    assert [(b, env[CHECK_ENV], env[THREADS_ENV]) for _, b, env in faked["cpp"]] == [(37, None, "1"), (100, "1", "1")]
    cpp = serving_cpp_rows(res)
    assert cpp[0]["matches eager"] is True and cpp[1]["result"] == "refused by its check: outside batch 2..64"
    errors = serving_cpp_errors(res)
    assert "too large" in errors[0] and errors[0].startswith("ranged package, batch 2..64 at batch 100, in the runner's own words: ")
    assert "4 of 12 output rows are wrong" in unchecked_line(res)
    assert serving_measure.cached_serving("cpu")["rows"] == res["rows"]


def test_a_crashed_python_loader_leaves_the_cpp_runner_timing_every_package(faked):
    faked["serve_reply"] = {"error": "child step 'serve' crashed: SIGSEGV", "crashed": True}
    res = serving_measure.measure_serving("cpu", save=False)
    assert res["rows"] == [] and res["errors"] == ["serving child: child step 'serve' crashed: SIGSEGV"]
    timed = {(Path(p).stem, b) for p, b, env in faked["cpp"] if not (env and env.get(CHECK_ENV))}
    assert {("ranged", 8), ("ranged", 37), ("ranged", 64), ("8", 8), ("64", 64), ("128", 128)} <= timed
    assert serving_measure.cached_serving("cpu") is None  # save=False wrote nothing


def test_serving_cli_refuses_a_bad_record_path_and_a_bad_device_in_one_line(tmp_path):
    existing = tmp_path / "serving.json"
    existing.write_text("{}")
    for args in (["serving", "--record", str(existing)], ["serving", "--record", str(tmp_path / "no" / "x.json")],
                 ["serving", "--device", "tpu"]):
        p = subprocess.run([sys.executable, "-m", "runtime_core", "aot", *args], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_the_cpp_rows_say_which_request_the_package_refused_and_which_ran():
    res = {"cpp": [{"package": "ranged package, batch 2..64", "batch": 37, "input_check": "off", "load_s": 0.003,
                    "run_ms": 0.07, "matches_reference": True, "error": None},
                   {"package": "ranged package, batch 2..64", "batch": 100, "input_check": "on",
                    "error": "C++ runner exited with status 1: aot_runner: run_func_( ... API call failed"},
                   {"package": "exact package, batch 8", "batch": 8, "input_check": "off", "error": "boom"}]}
    assert [r["result"] for r in serving_cpp_rows(res)] == ["ran (check off)", "refused by its check: outside batch 2..64",
                                                            "failed (check off)"]


def test_a_crashed_unchecked_child_still_names_the_batch_it_was_called_at():
    res = {"plan": SERVING_PLAN.as_dict(),
           "unchecked": {"package_batch": 8, "error": "child step 'unchecked' crashed: SIGSEGV", "crashed": True}}
    assert unchecked_line(res).startswith(f"The exact batch-8 package, called at batch {SERVING_PLAN.unchecked[1]} ")


def test_a_crashed_python_loader_is_explained_and_the_outputs_line_says_what_ran():
    from runtime_core.aot.tables import outputs_line, python_loader_note
    res = {"python_loader_crashed": True, "aot_load_python_s": None, "aot_load_cpp_s": 0.004,
           "cpp_output_matches": True, "cpp_max_abs_err": 2.98e-08, "device_name": "NVIDIA H200",
           "torch_version": "2.11.0+cu130", "outputs_match": False}
    assert "NVIDIA H200, torch 2.11.0+cu130" in python_loader_note(res) and "SIGSEGV" in python_loader_note(res)
    assert outputs_line(res) == "Python: not run; C++: matches eager (max abs error 2.98e-08)."
    assert "as usual" in python_loader_note(res) and "the machine that measured" in python_loader_note(res)
    cached = python_loader_note(dict(res, package_cached=True))  # the table shows no export or package seconds
    assert "were not timed" in cached and "as usual" not in cached
    older = python_loader_note(dict(res, export_s=0.0, aot_compile_s=0.0))  # no package_cached: 0 s, not built
    assert "were not timed" in older
    assert python_loader_note({"errors": [], "python_loader_crashed": False}) is None
    assert "crashed" in python_loader_note({"errors": ["serving child: child step 'serve' crashed: SIGSEGV"]})


def test_the_cpp_runner_error_is_the_input_checks_line_not_the_generic_last_one():
    import sys
    from runtime_core.aot.cpp_runner import _input_check
    from runtime_core.child_process import run

    def fails_saying(stderr: str) -> str:
        code = f"import sys; sys.stderr.write({stderr!r}); sys.exit(1)"
        return run("C++ runner", [sys.executable, "-c", code], timeout_s=60, pick_stderr=_input_check).error
    got = fails_saying("Error: input_handles[0]: dim value is too large at 0, expected to be <= 64, but got: 100\n"
                       "aot_runner: run_func_( ... ) API call failed at x.cpp\n")
    assert got == ("C++ runner exited with status 1: Error: input_handles[0]: dim value is too large at 0, "
                   "expected to be <= 64, but got: 100")
    assert fails_saying("first\nlast line\n") == "C++ runner exited with status 1: last line"


def test_crash_reports_are_split_from_other_problems():
    from runtime_core.aot.tables import split_crashes
    lines = ["serving child: child step 'serve' crashed: SIGSEGV", "exact package, batch 8: compile failed"]
    assert split_crashes(lines) == (lines[:1], lines[1:])

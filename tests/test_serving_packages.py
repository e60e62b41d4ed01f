"""The real thing, once: the ranged .pt2 and an exact-shape one, served on this CPU.

The ranged package is the one the other AOT tests build (in the shared_aot_cache folder that
test_aot_class.py and test_aot_cli.py leave full; built here when this runs alone); this adds one
exact-shape package (~10-40 s the first time on 2 cores). The requests are served in a child
process with AOTInductor's own input check on; the C++ runner serves the ranged package too.
"""
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.long]


def test_one_ranged_package_serves_its_range_and_its_own_check_names_the_bounds(shared_aot_cache, monkeypatch):
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(shared_aot_cache))
    from runtime_core.aot.serving_measure import measure_serving
    from runtime_core.aot.serving_plan import ServingPlan
    plan = ServingPlan(loop_exact=(), compare_exact=(8,), requests=(1, 8, 37, 100), repeats=25, cpp_batch=37,
                       unchecked=(8, 12))
    res = measure_serving("cpu", plan=plan, save=False)
    assert res["errors"] == [], res["errors"]
    rows = {r["batch"]: r for r in res["rows"]}
    for b in (8, 37):  # inside the range: runs as it is, on the one ranged package
        assert rows[b]["path"] == "hit" and rows[b]["matches_reference"] is True and rows[b]["ranged_ms"] > 0
        assert rows[b]["package_check"] is None
    assert rows[8]["exact_ms"] > 0
    assert rows[1]["path"] == "miss -> pad" and rows[1]["padded_to"] == 2 and rows[1]["matches_reference"]
    assert "expected it to be >= 2" in rows[1]["package_check"]        # sizes 0 and 1 are specialized
    assert rows[100]["path"] == "rejected" and "batch 100 outside batch 2..64" in rows[100]["verdict"]
    assert "expected to be <= 64, but got: 100" in rows[100]["package_check"]
    unchecked = res["unchecked"]
    assert unchecked["ran"] is True and unchecked["rows_wrong"] > 0     # no check: wrong rows, no error
    cpp_in, cpp_above = res["cpp"]
    assert (cpp_in["batch"], cpp_in["matches_reference"]) == (37, True) and cpp_in["run_ms"] > 0
    assert "expected to be <= 64, but got: 100" in cpp_above["error"]
    assert cpp_in["runs"] == 50 and cpp_in["process_ms"] > 1e3 * cpp_in["load_s"] + cpp_in["run_ms"]
    assert res["threads"] == 1                                          # one OpenMP thread on a CPU
    from runtime_core.aot.tables import timing_contradictions
    assert timing_contradictions(res) == [], timing_contradictions(res)
    print({b: (r["served_ms"], r["ranged_ms"], r["exact_ms"]) for b, r in rows.items()})

"""The AOT page renders, and an off-size request shows a guard miss -> pad, and -> reject."""
from pathlib import Path

import pytest

pytest.importorskip("streamlit")  # the GPU machine has no streamlit unless its wheels are carried
from conftest import open_page, tables_of  # noqa: E402
from pages.ui.safe_text import unescape  # noqa: E402
from pages.ui.tables import plain  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PAGE = "pages/5_AOT_and_serving.py"


@pytest.fixture
def page():
    return open_page(PAGE)


def send(at, batch: int, policy: str):
    at.text_input(key="aot_batch").input(str(batch))
    at.selectbox(key="aot_policy").set_value(policy)
    at.button(key="aot_send").click().run()
    assert not at.exception, at.exception
    return at


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_page_renders_lesson_and_live_panels(page):
    titles = " ".join(t.value for t in page.title)  # the section title comes first, above the columns
    assert "Ahead-of-time compilation and serving" in titles
    subheaders = [s.value for s in page.subheader]
    assert "Lab: the serving loop" in subheaders and "Cold start, warm start, AOT load" in subheaders
    assert [metric(page, k) for k in ("hits", "misses", "pads", "rejects")] == ["0"] * 4


def test_one_ranged_package_serves_its_range_and_pads_or_rejects_outside_it(page):
    """Changed with the ranged package: batch 5 used to pad to an exact batch-8 bucket; now the
    one package for batch 2..64 serves it as it is."""
    at = send(page, 5, "pad")
    assert any(unescape(s.value).startswith("Batch 5: guard hit") and "ranged package, batch 2..64" in unescape(s.value)
               for s in at.success)
    at = send(at, 100, "pad")
    assert any("Batch 100: guard miss (batch 100 outside batch 2..64, batch 128)" in unescape(s.value)
               and "padded batch 100 up to 'exact package, batch 128'" in unescape(s.value) for s in at.success), \
        [s.value for s in at.success]
    at = send(at, 1, "pad")
    assert any("padded batch 1 up to 'ranged package, batch 2..64'" in unescape(s.value) for s in at.success)
    assert (metric(at, "hits"), metric(at, "misses"), metric(at, "pads")) == ("1", "2", "2")
    at = send(at, 200, "pad")
    assert any(unescape(e.value).startswith("Batch 200 rejected") and "padding cannot fix it" in unescape(e.value)
               for e in at.error)
    at = send(at, 100, "reject")
    assert any("guard miss: batch 100" in unescape(e.value) and "cannot recompile" in e.value for e in at.error)
    assert (metric(at, "misses"), metric(at, "rejects"), metric(at, "pads")) == ("4", "2", "2")


def test_measured_packages_show_verdicts_the_packages_own_check_and_the_cpp_runner(page, tmp_path, monkeypatch):
    import json

    from runtime_core.aot import serving_measure
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path))
    res = {"device": "cpu", "device_name": "x86_64", "torch_version": "2.13.0", "measured_at": "2026-11-30T09:00:00Z",
           "errors": [], "builds": [],
           "rows": [{"batch": 200, "path": "rejected", "verdict": "rejected: guard miss: batch 200 outside batch 2..64",
                     "package_check": "input_handles[0]: dim value is too large at 0, expected to be <= 64, but got: 200",
                     "served_ms": None, "ranged_ms": None, "exact_ms": None, "matches_reference": None}],
           "unchecked": {"package_batch": 8, "batch": 12, "ran": True, "max_abs_err": 0.69, "rows_wrong": 4},
           "cpp": [{"package": "ranged package, batch 2..64", "batch": 37, "input_check": "off", "load_s": 0.003,
                    "run_ms": 0.03, "matches_reference": True, "error": None}]}
    serving_measure.results_path("cpu").write_text(json.dumps(res))
    at = page.run()
    assert not at.exception
    frames = tables_of(at)
    served = next(f for f in frames if "guard's verdict" in f.columns)
    assert "expected to be <= 64, but got: 200" in served["the ranged package's own check, asked of this batch"][0]
    assert any("package" in f.columns and "load s" in f.columns for f in frames)
    timed = next(f for f in frames if "timed" in f.columns)    # every time says what it times
    assert list(timed["timed"]) == ["C++ runner: ranged package, batch 2..64, one call (median of the runner's timed calls)"]
    assert any("4 of 12 output rows are wrong" in unescape(w.value) for w in at.warning)


def test_cold_and_warm_stages_and_cache_counters_are_shown(page, tmp_path, monkeypatch):
    import json

    from runtime_core.aot import coldwarm
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path))

    def detail(stages, hit):
        return {"stages": stages, "fx_graph_cache": True, "autotune_best_configs": 0,
                "counters": {"fxgraph_cache_hit": int(hit), "fxgraph_cache_miss": int(not hit)}}
    res = {"device": "cpu", "device_name": "x86_64", "torch_version": "2.13.0", "measured_at": "2026-11-30T09:00:00Z",
           "outputs_match": True, "compile_cold_s": 10.5, "compile_warm_s": 1.6,
           "compile_cold_detail": detail({"bytecode_tracing": 0.1, "build_guards": 0.03, "Scheduler.codegen": 8.0}, False),
           "compile_warm_detail": detail({"bytecode_tracing": 0.1, "build_guards": 0.03}, True)}
    coldwarm.results_path("cpu").write_text(json.dumps(res))
    at = page.run()
    assert not at.exception
    frames = tables_of(at)
    stages = next(f for f in frames if "on a warm start" in f.columns)
    verdicts = dict(zip((plain(s).lstrip("│├└─ \u00a0") for s in stages["stage"]), stages["on a warm start"]))
    assert plain(stages["stage"][1]).startswith("├─ ")  # a tree: the stages under the whole compile
    assert verdicts["Dynamo builds the guards"] == "ran again (100% of its cold time)"
    assert verdicts["Inductor fuses and generates code"] == "skipped: a cache had the result"
    counters = next(f for f in frames if "counter" in f.columns)
    hits = counters[counters["counter"] == "FX-graph cache hits"].iloc[0]
    assert (hits["cold"], hits["warm"]) == ("0", "1")
    # a result read back from the cache is labelled by when it was measured, never as "now"
    badge = next(c.value for c in at.caption if c.value.startswith(":violet-badge[CPU]"))
    assert "09\\:00 UTC" in badge
    assert "measured now" not in badge and "the last measurement that finished" in badge


def _gpu_serving_result():
    return {"device": "cuda", "device_name": "NVIDIA Test GPU", "torch_version": "2.11.0+cu130",
            "measured_at": "2026-11-30T09:00:00Z", "errors": [], "builds": [], "unchecked": None,
            "rows": [{"batch": 37, "path": "hit", "verdict": "hit: ranged package, batch 2..64",
                      "served_ms": 0.081, "ranged_ms": 0.07, "exact_ms": None, "matches_reference": True}],
            "cpp": [{"package": "ranged package, batch 2..64", "batch": 37, "input_check": "off", "load_s": 0.2,
                     "run_ms": 0.05, "matches_reference": True, "error": None}]}


def test_without_a_gpu_the_recorded_gpu_serving_and_cold_warm_are_shown(tmp_path, monkeypatch):
    """Items 4 and 5 of the expert's corrections, recorded on a GPU, for a student without one:
    the shipped serving and cold/warm recordings are drawn under their own "recorded" badge, and
    without them the panel names the command that records them."""
    import json

    from runtime_core.recordings import store
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "cache"))
    at = open_page(PAGE)
    text = " ".join(c.value for c in at.caption)
    assert "aot serving --device cuda --json --record lessons/recordings/serving_h200.json" in text
    assert "aot --device cuda --json --record lessons/recordings/aot_h200.json" in text
    meta = store.new_meta("serving", "NVIDIA Test GPU", "2.11.0+cu130", "cuda")
    store.write(tmp_path / "serving_test.json", {"meta": meta, "points": [], "serving": _gpu_serving_result()})
    at = open_page(PAGE)
    assert not at.exception
    served = next(f for f in tables_of(at) if "guard's verdict" in f.columns)
    assert [str(b) for b in served["batch"]] == ["37"]
    captions = " ".join(c.value for c in at.caption)
    assert ":orange-badge[RECORDED]" in captions and "NVIDIA Test GPU" in captions
    assert "serving_h200.json" not in captions  # the recording is shown, not the command


def test_aot_serving_record_writes_a_serving_recording_and_refuses_to_overwrite(tmp_path, monkeypatch, capsys):
    from runtime_core.aot import serving_measure
    from runtime_core.cli import main
    from runtime_core.recordings import store
    calls = []
    monkeypatch.setattr(serving_measure, "measure_serving", lambda device: calls.append(device) or _gpu_serving_result())
    out = tmp_path / "serving_h200.json"
    assert main(["aot", "serving", "--json", "--record", str(out)]) == 0
    rec = store.load(out, kind="serving")
    assert rec.meta.backend == "cuda" and rec.meta.complete and rec.data["serving"]["rows"][0]["batch"] == 37
    capsys.readouterr()
    assert main(["aot", "serving", "--json", "--record", str(out)]) == 2 and len(calls) == 1  # refused first
    assert "exists" in capsys.readouterr().err


def test_the_shipped_h200_recordings_explain_the_crashed_python_loader_and_show_the_cpp_rows(monkeypatch, tmp_path):
    """torch 2.11's Python loader segfaulted on the H200: the page says so, and shows the C++ runner's
    rows (every package, the out-of-range request refused) instead of an empty table and a bare error."""
    from runtime_core.recordings import store
    shipped = ROOT / "lessons" / "recordings"
    for name in ("serving_h200.json", "aot_h200.json"):
        if not (shipped / name).exists():
            pytest.skip(f"{name} is not shipped")
    monkeypatch.setenv(store.DIR_ENV, str(shipped))
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "cache"))
    at = open_page(PAGE)
    assert not at.exception
    infos = " ".join(i.value for i in at.info)
    assert unescape(infos).count("torch._inductor.aoti_load_package, crashed") == 2  # cold/warm and serving
    cpp = next(f for f in tables_of(at) if "result" in f.columns and "load s" in f.columns)
    results = [plain(r) for r in cpp["result"]]
    assert "refused by its check: outside batch 2..64" in results and results.count("ran (check off)") >= 5
    outputs = " ".join(unescape(m.value) for m in at.markdown if "Outputs against eager" in m.value)
    assert "Python: not run" in outputs and "C++: matches eager" in outputs
    assert "batch None" not in " ".join(w.value for w in at.warning)
    assert not [e.value for e in at.error if "crashed" in e.value]  # explained in the note, not an error
    assert "The child's report: serving child: child step" in unescape(infos)
    timed = next(f for f in tables_of(at) if "timed" in f.columns)  # the runner's times, each saying what
    assert sum(plain(t).startswith("C++ runner: ") and "one call" in plain(t) for t in timed["timed"]) >= 5


def test_the_send_button_names_the_batch_it_will_send(page):
    """The button's label says which batch goes out, before it is pressed: the one the box last took."""
    assert page.button(key="aot_send").label == "send a request of batch 5"
    page.text_input(key="aot_batch").input("17").run()
    assert page.button(key="aot_send").label == "send a request of batch 17"


def test_the_serving_loops_knobs_survive_a_trip_to_another_page():
    """A student typed batch 100 and a policy, looked at page 6, came back: the box read 5 again."""
    at = open_page(PAGE)
    at.text_input(key="aot_batch").input("100").run()
    first = at.selectbox(key="aot_policy").options[0]
    at.selectbox(key="aot_policy").set_value(first).run()
    at.switch_page("pages/6_Launch_overhead_killer.py").run()
    at.switch_page(PAGE).run()
    assert at.text_input(key="aot_batch").value == "100"
    assert at.selectbox(key="aot_policy").value == first


def test_a_large_second_call_gap_is_not_left_to_read_as_the_artifacts_effect():
    """The compile-cache table's second call differed 68x between the children in the shipped CPU
    run; the page says the artifacts' saving is in the first call, whenever the gap is 2x or more."""
    import json
    doc = json.loads((Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "compile_cache_cpu2.json").read_text())
    r = doc["labs"]["compile_cache"]
    a, b = (r.get("without_artifacts") or {}).get("second_call_s"), (r.get("with_artifacts") or {}).get("second_call_s")
    if not (a and b):
        pytest.skip("the shipped compile-cache run has no second-call timings")
    at = open_page(PAGE)
    said = any("second call differs by about" in str(c.value) for c in at.caption)
    assert said == (max(a, b) / min(a, b) >= 2)


def test_the_compile_cache_verdict_says_it_is_the_cpus_run_not_the_gpus_folded_above_it():
    """The CPU recording folds the GPU's run in an expander, and the verdict box comes right
    after it: 37.7 s and 23.1 s read as the GPU's, whose own table says 3.1 s and 1.2 s."""
    at = open_page(PAGE)
    boxes = [w.value for w in at.warning if "A fresh process" in w.value]
    assert boxes and all("This verdict is the CPU run's, whose tables are at the top (the GPU's run is folded just above). " in b for b in boxes), boxes


def test_artifacts_the_recompile_policy_built_are_named_while_they_shadow_the_other_policies(page):
    """Recompile at batch 100, then switch to pad: batch 100 now hits the artifact the recompile
    built, never padding. The page says the loop keeps it and how to start over."""
    at = page
    at.selectbox(key="aot_policy").set_value("recompile").run()
    at.text_input(key="aot_batch").input("100").run()
    at = at.button(key="aot_send").click().run()
    assert "recompiled" in at.success[0].value
    at.selectbox(key="aot_policy").set_value("pad").run()
    at = at.button(key="aot_send").click().run()
    assert "guard hit" in at.success[0].value
    kept = next(c.value for c in at.caption if "still holds what the recompile policy built" in c.value)
    assert "100" in kept and "Reset the serving loop" in kept
    at = at.button(key="aot_reset").click().run()
    assert not any("still holds" in c.value for c in at.caption)


@pytest.mark.parametrize("typed, says", [("", "an empty box"), ("0", "“0”"), ("300", "“300”"), ("2.5", "“2.5”"),
                                         ("abc", "“abc”"), ("inf", "“inf”"), ("nan", "“nan”"),
                                         ("2,0", "“2,0”"), ("1,5", "“1,5”"), ("1\u200b2", "“1⟨U+200B⟩2”")])
def test_a_batch_the_loop_cannot_take_is_refused_in_words_and_the_box_goes_back(page, typed, says):
    """A number box's browser side turned a cleared box, or 1e2, into 1 with no word, and the button
    then sent batch 1; "2,0" (a decimal comma) was read as batch 20. The text box says why it
    refused and keeps the batch it had."""
    page.text_input(key="aot_batch").input("17").run()
    at = page.text_input(key="aot_batch").input(typed).run()
    assert not at.exception
    assert at.text_input(key="aot_batch").value == "17" and at.button(key="aot_send").label == "send a request of batch 17"
    assert any(says in w.value.replace("\\", "") and "back at 17" in w.value for w in at.warning)


def test_a_send_after_a_refusal_clears_it(page):
    """The refusal names a batch that never went out: once a request of the kept batch is sent, it
    no longer stands above the send's result (a review saw it stay through every later send)."""
    at = page.text_input(key="aot_batch").input("abc").run()
    assert any("Not taken" in w.value for w in at.warning)
    at = at.button(key="aot_send").click().run()
    assert not any("Not taken" in w.value for w in at.warning)
    assert any("Batch 5" in s.value for s in at.success)


def test_a_refused_batch_typed_then_sent_without_enter_sends_nothing_and_says_so(page):
    """A click on send that leaves a box holding "abc" (never Entered) refuses the box and sends
    nothing in that run: the refusal stays and says that nothing went out (it once vanished while
    batch 5 went out unsaid). The next click sends the kept batch."""
    page.text_input(key="aot_batch").input("abc")
    at = page.button(key="aot_send").click().run()
    assert not at.exception
    assert any("Not taken" in w.value and "Nothing was sent" in w.value for w in at.warning)
    assert not any("Batch 5" in s.value for s in at.success)
    assert at.metric[0].label == "hits" and at.metric[0].value == "0" and at.metric[1].value == "0"
    at = at.button(key="aot_send").click().run()
    assert not any("Not taken" in w.value for w in at.warning)
    assert any("Batch 5" in s.value for s in at.success)


def test_a_batch_in_any_form_python_reads_is_taken(page):
    at = page.text_input(key="aot_batch").input("1e2").run()
    assert at.button(key="aot_send").label == "send a request of batch 100" and at.text_input(key="aot_batch").value == "100"
    at = at.text_input(key="aot_batch").input(" 64 ").run()
    assert at.button(key="aot_send").label == "send a request of batch 64"
    assert not any("Not taken" in w.value for w in at.warning)


def test_a_recording_whose_python_serving_loop_crashed_is_not_captioned_with_its_missing_rows(tmp_path, monkeypatch):
    """The H200 serving recording's Python child crashed (SIGSEGV): it has C++ rows only, and the
    caption under them no longer explains loop and one-call rows that are not there."""
    import json
    from pathlib import Path
    from runtime_core.lesson.page_text import text as prose
    rec = json.loads((Path(__file__).resolve().parents[1] / "lessons" / "recordings" / "serving_h200.json").read_text())
    assert not rec["serving"]["rows"]
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "cache"))   # nothing served on this machine
    at = open_page("pages/5_AOT_and_serving.py")
    captions = [c.value for c in at.caption]
    assert prose("aot", "serving_times_cpp_only") in captions
    assert prose("aot", "serving_times") not in captions   # nothing on this CPU has served yet

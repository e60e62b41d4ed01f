"""The "Will graphs help my model?" page as a student uses it: without a GPU recording it says so
and shows the simulated demo; every knob changes what it shows; the planner takes a typed list."""
import re
import shutil
from pathlib import Path

import pytest
from conftest import open_page

from pages.ui.safe_text import unescape

PAGE = "pages/7_Will_graphs_help_my_model.py"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def _without_diagnose(tmp_path_factory) -> Path:
    """The shipped recordings but the diagnose ones, copied once for the tests here that only read
    them (a folder per test had each file in it parsed and validated again: store caches a file by
    path and mtime)."""
    folder = tmp_path_factory.mktemp("no-gpu-recording")
    for path in (ROOT / "lessons" / "recordings").glob("*.json"):
        if not path.name.startswith("diagnose_"):
            shutil.copy(path, folder / path.name)
    return folder


@pytest.fixture
def no_gpu_recording(_without_diagnose, monkeypatch):
    """The recordings folder without a GPU diagnose recording (a clone before the H200 ran)."""
    from runtime_core.recordings import store
    monkeypatch.setenv(store.DIR_ENV, str(_without_diagnose))


def _first_metrics(at) -> dict:
    """Each metric label's first value and delta on the page: the external grid's targets come
    before the held-out networks', which carry the same labels."""
    out = {}
    for m in at.metric:
        out.setdefault(m.label, (m.value, m.delta))
    return out


def _text(at) -> str:
    """The page's text as a reader sees it (values from a recording or typed are escaped)."""
    kinds = ("markdown", "caption", "warning", "success", "info", "error")
    return "\n".join(unescape(str(e.value)) for kind in kinds for e in getattr(at, kind))


def _headline(at) -> str:
    """The verdict box as a reader sees it (the recording's headline is escaped)."""
    boxes = [unescape(e.value) for e in (*at.success, *at.warning) if str(e.value).startswith("### ")]
    return boxes[0]


def test_without_a_gpu_recording_the_page_says_so_and_shows_a_simulated_demo(no_gpu_recording):
    at = open_page(PAGE)
    text = _text(at)
    assert "No GPU recording of real models is shipped yet" in text
    assert "diagnose --sweep --record lessons/recordings/diagnose_" in text
    assert ":blue-badge[SIMULATED]" in text and "fake-" in text
    assert _headline(at).startswith("### Launch-bound")  # the verdict comes first: fake-mlp at batch 1
    labels = [m.label for m in at.metric]
    assert {"GPU operations per step", "GPU busy / step", "host dispatch H / step", "predicted speedup",
            "measured speedup"} <= set(labels)
    assert len(at.get("plotly_chart")) >= 3 and len(at.get("download_button")) == 3


def test_every_knob_changes_what_the_page_shows(no_gpu_recording):
    at = open_page(PAGE)
    at.selectbox(key="dg_model").set_value("fake-cnn").run()
    assert _headline(at).startswith("### Launch-bound")
    at.select_slider(key="dg_batch").set_value(512).run()
    assert "GPU-bound" in _headline(at)
    at.radio(key="dg_dtype").set_value("bf16").run()   # recorded at batch 1 only: shown as text, no slider
    assert not at.exception and not [s for s in at.select_slider if s.key == "dg_batch"]
    assert "**1** · the only one recorded" in [m.value for m in at.markdown]
    at.radio(key="dg_dtype").set_value("fp32").run()
    at.selectbox(key="dg_model").set_value("fake-encoder").run()
    at.select_slider(key="dg_seq").set_value(256).run()
    assert "**1** · the only one recorded" in [m.value for m in at.markdown] and "256 tokens" in _text(at)
    at.radio(key="dg_tl_variant").set_value("our_graph").run()
    assert '"one driver call (graph launch)"' in at.get("plotly_chart")[0].proto.spec
    assert not at.exception


def test_the_planner_knobs_and_a_typed_list(no_gpu_recording):
    at = open_page(PAGE)
    at.selectbox(key="dg_model").set_value("fake-encoder").run()
    at.radio(key="dg_plan_kind").set_value("sequence lengths (tokens)").run()
    at.radio(key="dg_plan_preset").set_value("uniform").run()
    assert "uniform over 1..256" in _text(at)
    at.radio(key="dg_plan_preset").set_value("Zipf").run()
    at.slider(key="dg_plan_zipf").set_value(1.6).run()
    assert "exponent 1.6" in _text(at)
    at.number_input(key="dg_plan_max").set_value(64).run()
    at.slider(key="dg_plan_budget").set_value(5).run()
    at.number_input(key="dg_plan_requests").set_value(1000).run()
    at.radio(key="dg_plan_preset").set_value("my list").run()
    at.text_input(key="dg_plan_list").set_value("1, 1, 3, 9, 40").run()
    assert "your 5 requests" in _text(at) and not at.exception
    at.text_input(key="dg_plan_list").set_value("1, two").run()
    assert "'two' is not a whole number of 1 or more" in _text(at) and not at.exception
    at.text_input(key="dg_plan_list").set_value("1, 100").run()  # a whole number: the limit is the knob's
    assert "'100' is above the largest request size, 64: raise that (to at most " in _text(at) and not at.exception
    at.text_input(key="dg_plan_list").set_value("1, 77777777").run()  # beyond the box's own top: no raise helps
    assert "the largest size the recording measured" in _text(at) and "raise that" not in _text(at)


def test_the_planner_budget_follows_the_largest_size_until_moved_and_says_when_it_is_lowered(no_gpu_recording):
    at = open_page(PAGE)
    first = at.slider(key="dg_plan_budget").value
    at.number_input(key="dg_plan_max").set_value(4).run()
    small = at.slider(key="dg_plan_budget").value
    at.number_input(key="dg_plan_max").set_value(256).run()
    assert at.slider(key="dg_plan_budget").value == first != small   # untouched: back to the default
    top = int(at.slider(key="dg_plan_budget").max)
    at.slider(key="dg_plan_budget").set_value(top).run()                # moved by hand: kept, and told
    at.number_input(key="dg_plan_max").set_value(4).run()
    assert f"Lowered from {top:,} MiB" in _text(at) and at.slider(key="dg_plan_budget").value < top
    at.number_input(key="dg_plan_max").set_value(256).run()             # the cap rises again: the hand's value is back
    assert at.slider(key="dg_plan_budget").value == top and "Lowered from" not in _text(at)
    assert not at.exception


def test_a_gpu_recording_replaces_the_demo_and_shows_every_variant(tmp_path, monkeypatch):
    """A recording of a (here: pretend) GPU in the recordings folder is what the page shows."""
    import json

    from runtime_core.diagnose.records import SIM_FIXTURE
    from runtime_core.recordings import store
    doc = json.loads(SIM_FIXTURE.read_text())
    doc["meta"].update(backend="cuda", device_name="Test GPU (a test file, not a measurement)")
    first = doc["points"][0]
    for name in ("graphed_callables", "compile", "reduce_overhead"):
        first["variants"][name] = dict(first["variants"]["our_graph"], setup_s=12.0)
    (tmp_path / "diagnose_test.json").write_text(json.dumps(doc))
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page(PAGE)
    text = _text(at)
    assert "No GPU recording" not in text and ":orange-badge[RECORDED]" in text and "Test GPU" in text
    from pages.ui.tables import plain
    table = next(t.value for t in at.table if "variant" in t.value.columns)  # predicted and measured µs per step, one row per way to run the step
    assert len(table) == 5 and "torch.cuda.make_graphed_callables" in {plain(v) for v in table["variant"]}


def test_the_shipped_h200_recording_is_what_the_page_shows():
    at = open_page(PAGE)
    text = _text(at)
    assert "No GPU recording of real models is shipped yet" not in text and "NVIDIA H200" in text
    models = [o.split(":")[0] for o in at.selectbox(key="dg_model").options]
    assert {"decoder", "mlp", "cnn", "encoder"} <= set(models)
    at.selectbox(key="dg_model").set_value("cnn").run()
    assert _headline(at).startswith("### ") and not at.exception
    at.select_slider(key="dg_batch").set_value(512).run()
    assert not at.exception


def test_the_verdict_names_the_busy_time_the_metric_shows_and_the_gaps_beside_it():
    """The GPU side of the verdict (B plus the gaps between separately launched kernels) is split
    so that it agrees with the "GPU busy / step" metric under it, for the shipped recording too."""
    at = open_page(PAGE)
    busy = next(m.value for m in at.metric if m.label == "GPU busy / step")
    assert f"{busy} of kernels" in _headline(at), (busy, _headline(at))


def test_the_table_shows_the_same_eager_and_graph_times_as_the_headline(tmp_path, monkeypatch):
    """Eager and our graph in the table are the measurement the prediction is judged against; the
    torch variants, timed in a later run beside an eager of their own, say so with that eager."""
    import json

    from pages.ui.tables import plain
    from runtime_core.diagnose.records import SIM_FIXTURE
    from runtime_core.recordings import store
    doc = json.loads(SIM_FIXTURE.read_text())
    doc["meta"].update(backend="cuda", device_name="Test GPU (a test file, not a measurement)")
    first = doc["points"][0]
    later_eager = dict(first["variants"]["eager"], us=first["eager_us"] * 1.5)  # a slower host later on
    first["variants"] = {"eager": later_eager, "our_graph": first["variants"]["our_graph"],
                         "compile": dict(later_eager, us=first["eager_us"], speedup=1.5, setup_s=10.0)}
    (tmp_path / "diagnose_test.json").write_text(json.dumps(doc))
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page(PAGE)
    table = next(t.value for t in at.table if "variant" in t.value.columns)
    from pages.ui.diagnose_view import RUN_A, RUN_B
    cols = [c for c in table.columns if plain(str(c)).startswith("run ")]
    assert [plain(str(c)) for c in cols] == [RUN_A, RUN_B]  # one run per column: this diagnosis's, the later one's
    rows = {plain(v): (plain(a), plain(b)) for v, a, b in zip(table["variant"], table[cols[0]], table[cols[1]])}
    measured = next(m.value for m in at.metric if m.label == "measured speedup")
    graph_a = rows["our graph capture (static inputs, one replay)"][0]
    assert graph_a.endswith(f"({measured})")
    assert rows["PyTorch eager (asynchronous)"][0] == f"{first['eager_us']:,.0f} (1.00x)"
    assert rows["torch.compile, default mode (fusion, no graphs)"] == ("—", f"{first['eager_us']:,.0f} (1.50x)")
    # each measured column is one run: run B's eager is the later, slower one, not run A's
    assert rows["PyTorch eager (asynchronous)"][1].startswith(f"{later_eager['us']:,.0f} ")
    # the later run timed our graph again: its speedup there sits in the same column as the torch variants'
    assert rows["our graph capture (static inputs, one replay)"][1].endswith(
        f"({first['variants']['our_graph']['speedup']:.2f}x)")
    assert "The last row was timed in run B only" in _text(at)


def test_the_external_grid_shows_its_targets_the_band_and_the_explanation():
    """Page 7 with the shipped recordings: the external grid's four target metrics, a point's band
    beside its prediction, what the prediction used, and a network that cannot be captured."""
    import json
    from runtime_core.diagnose.accuracy import external_accuracy
    at = open_page(PAGE, timeout_s=180)
    doc = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())
    acc = external_accuracy(doc["points"])
    metrics = _first_metrics(at)
    assert metrics["speedup within ±15%"][0] == f"{acc['within']} of {acc['eligible']}"
    assert metrics["verdict right"][0] == f"{acc['verdict_right']} of {acc['points']}"
    assert metrics["band holds the measurement"][0] == f"{acc['band_holds']} of {acc['banded']}"
    # a one-process grid: its fresh-process re-checks are counted on their own, beside it
    r = doc["rechecks"]["accuracy"]
    value, delta = metrics["fresh-process re-checks within ±15%"]
    assert value == f"{r['within']} of {r['eligible']}" and delta.startswith(f"those measured ≥ 1.2x, of {len(doc['rechecks']['points'])} processes (12 asked)")
    assert f"band {r['band_holds']}/{r['banded']}" in delta and "fresh-process re-checks" not in metrics
    assert any("ran in turn in one process" in c.value for c in at.caption)   # how the grid was measured
    from runtime_core.diagnose.accuracy import graph_step_accuracy
    g = graph_step_accuracy(doc["points"])    # the graph step alone, from the points the page shows
    assert any(f"within ±10% at **{g['within']} of {g['points']}** points" in c.value for c in at.caption)
    from runtime_core.diagnose.accuracy import repeatability
    twice = repeatability(doc["points"], doc["repeat"]["points"])   # the whole grid against itself
    from pages.ui.diagnose_external import _gap
    gap = _gap(doc["meta"]["recorded_at"], doc["repeat"]["recorded_at"])
    assert gap.endswith("earlier")
    t = doc["repeat"]["points"][0]["timing"]   # how the repeat was timed, in its own words
    assert any(f"{len(doc['repeat']['points'])} of its points were measured a second time {gap}, all of them in "
               f"one process, one after another (H and the steps in {t['host_rounds']} rounds over "
               f"{t['host_window_s']:g} s)" in c.value and
               f"agree within ±15% at {twice['speedup_within']}; the eager steps at {twice['eager_within']}, "
               f"the graph steps at {twice['graph_within']}" in c.value for c in at.caption)
    title = f"Predicted against measured speedup: {len(doc['points'])} points of the grid on NVIDIA H200"
    assert f"**{title}**" in [unescape(m.value) for m in at.markdown]   # the chart of every point, its title as text
    spec = next(c.proto.spec for c in at.get("plotly_chart") if '"the same point, measured again"' in c.proto.spec)
    assert all(f'"name":"{net}"' in spec.replace(" ", "") for net in {p["model"].split(":")[-1] for p in doc["points"]})
    assert any(c.value.startswith("How to read it") and "other recording of the grid" in c.value for c in at.caption)
    first = doc["points"][0]
    lo, hi = first["predicted_speedup_band"]
    deltas = [m.delta for m in at.metric if m.label == "predicted speedup"]
    assert f"band {lo:.2f}–{hi:.2f}x" in deltas  # the band beside the point prediction
    assert len(deltas) >= 2 and all(d and d.startswith("band ") for d in deltas)  # the zoo's too (its passes' H)
    text = _text(at)
    node = first["explanation"]["node_cost_us"]
    assert f"{node:.2f} µs per node" in text and "three biggest host-time consumers" in text
    rel = first["explanation"]["node_cost_rel_spread"]   # a long kernel's share, from our own kernels
    assert rel > 0 and f"±{rel:.1%} of its duration as a graph node" in text
    assert "Where the predicted saving" in text
    assert "Cannot be captured whole" in text and "pinned" in text and "uncapturable_model.py" in text
    assert "What usually fixes it" in text
    # its lines agree with its verdict: counted in words, labelled with its dtype, no graph promised
    assert "1 copy from pageable host memory" in text and "copy(ies)" not in text
    assert any(unescape(c.value).startswith("Recorded: uncapturable_model:make, fp32, batch 4") for c in at.caption)
    assert any(c.value.startswith("Regime:") and "cannot be captured whole" in c.value for c in at.caption)
    # a point is found by network, dtype and batch as a number (1, 4, 16, 64), not in the order measured
    options = at.selectbox(key="dg_ext_point").options
    bert_bf16 = [o for o in options if o.startswith("bert_base, bf16, ")]
    assert bert_bf16 == [f"bert_base, bf16, batch {b}" for b in (1, 4, 16, 64)], bert_bf16
    # the targets paragraph names the GPU-bound points from their verdicts, never a launch-bound one
    targets = next(unescape(c.value) for c in at.caption if c.value.startswith("Targets:"))
    bound = [p for p in doc["points"] if p["verdict"]["launch_bound"] is False]
    assert f"Where the GPU sets the pace ({len(bound)} of {len(doc['points'])} points: " in targets
    listed = targets.split("Where the GPU sets the pace (", 1)[1].split(")", 1)[0]
    for p in doc["points"]:
        name = p["model"].split(":")[-1]
        assert (f"; {name} " in f"; {listed.split(': ', 1)[1]}") == any(q["model"] == p["model"] for q in bound), name


def test_a_one_process_grid_shows_its_fresh_re_checks_beside_it(tmp_path, monkeypatch):
    """A grid recorded in one process (as the shipped one was until 2026-12-02) judges its fresh
    re-checks on their own, and says how often a point agrees with its own re-check."""
    import json
    from external_grids import one_process_grid
    from runtime_core.diagnose.accuracy import repeatability
    from runtime_core.recordings import store
    doc = json.loads(one_process_grid(tmp_path).read_text())
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page(PAGE, timeout_s=180)
    r = doc["rechecks"]["accuracy"]
    metrics = _first_metrics(at)
    assert metrics["fresh-process re-checks within ±15%"] == (
        f"{r['within']} of {r['eligible']}",
        f"those measured ≥ 1.2x, of 12 processes (12 asked) · verdicts {r['verdict_right']}/{r['points']} · "
        f"band {r['band_holds']}/{r['banded']}")
    assert any("ran in turn in one process" in c.value for c in at.caption)
    # no second recording of the whole grid here: the chart draws no lines to one, and says none
    assert not any('"the same point, measured again"' in c.proto.spec for c in at.get("plotly_chart"))
    assert any(c.value.startswith("How to read it") and "other recording" not in c.value for c in at.caption)
    again = repeatability(doc["points"], doc["rechecks"]["points"])
    assert any(f"at {again['pairs']} points measured twice" in c.value and
               f"agree within ±15% at {again['speedup_within']} of them" in c.value for c in at.caption)
    # where a graph step moved between the long process and its fresh re-check, the page names it
    moved = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("Where a graph step did move")]
    assert len(moved) == (1 if again["graph_moved"] else 0)
    for m in again["graph_moved"]:
        assert f"{m['model'].split(':')[-1]} {m['dtype']} batch {m['batch']} (×{m['ratio']:.2f})" in moved[0]


def test_a_transformer_point_says_it_runs_other_work_under_capture():
    at = open_page(PAGE, timeout_s=180)
    label = next(o for o in at.selectbox(key="dg_ext_point").options if o.startswith("bert_base, bf16, batch 64"))
    at.selectbox(key="dg_ext_point").set_value(label).run()
    assert not at.exception
    assert "takes another branch when it is captured" in _text(at)


def test_a_point_with_small_memsets_says_what_they_add_and_where_its_node_cost_comes_from():
    """GPT-2's fp32 prompt zeroes split-K workspace before 36 of its GEMMs: the explanation prices
    those memsets and names the per-node cost's source (the node-cost recording's kernels)."""
    import json
    doc = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())
    p = next(q for q in doc["points"] if q["model"].endswith("gpt2_prompt") and q["dtype"] == "fp32" and q["batch"] == 1)
    ex = p["explanation"]
    assert ex["memset_nodes"] > 0 and ex["memsets_us"] > 0 and ex["node_cost_source"] == "node_costs"
    at = open_page(PAGE, timeout_s=180)
    label = next(o for o in at.selectbox(key="dg_ext_point").options if o == "gpt2_prompt, fp32, batch 1")
    at.selectbox(key="dg_ext_point").set_value(label).run()
    assert not at.exception
    text = _text(at)
    assert f"Its {ex['memset_nodes']} memset nodes add" in text, text[-3000:]
    assert f"{ex['node_cost_us']:.2f} µs per node" in text and "kernels of our own making" in text
    # the eager side: op by op, with the stream gap measured behind a sleep on the same kernels
    assert ex["eager_op_by_op"] is True and ex["stream_gap_source"] == "node_costs"
    assert "operation by operation" in text
    assert f"{ex['stream_gap_us']:.2f} µs between separately launched kernels" in text.replace("**", "")
    assert f"± {ex['stream_gap_spread_us']:.2f} µs for the band" in text and "behind a sleep" in text


def test_an_explanation_with_a_junk_stream_gap_leaves_the_eager_line_out(tmp_path, monkeypatch):
    """A recording whose explanation holds a string for the gap still opens; the eager line is left
    out rather than printed as 0.00 µs."""
    import json
    from hostile import copy_shipped
    from runtime_core.recordings import store
    copy_shipped(tmp_path)
    path = tmp_path / "diagnose_external_h200.json"
    doc = json.loads(path.read_text())
    for q in doc["points"]:
        if "explanation" in q:
            q["explanation"]["stream_gap_us"] = "fast"
    path.write_text(json.dumps(doc))
    for held in tmp_path.glob("diagnose_heldout_*.json"):   # its own explainer would show an eager line
        held.unlink()
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page(PAGE, timeout_s=180)
    assert not at.exception
    text = _text(at)
    assert "µs per node" in text and "operation by operation" not in text   # the external point's eager line


def test_an_explanation_whose_ready_times_came_from_the_launch_calls_says_so(tmp_path, monkeypatch):
    """A point predicted from the profiled launch times (a recording made after they were kept)
    says the operations became ready when their launch calls returned, not at an even pace."""
    import json
    from hostile import copy_shipped
    from runtime_core.recordings import store
    copy_shipped(tmp_path)
    path = tmp_path / "diagnose_external_h200.json"
    doc = json.loads(path.read_text())
    for q in doc["points"]:
        if "explanation" in q:
            q["explanation"]["eager_ready_profiled"] = True
    path.write_text(json.dumps(doc))
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page(PAGE, timeout_s=180)
    assert not at.exception
    text = _text(at)
    assert "operation by operation" in text and "host call that queued it returned" in text
    assert "at its average pace" not in text


def test_the_measured_delta_says_which_way_the_prediction_missed_and_one_baseline_per_column():
    at = open_page(PAGE, timeout_s=180)
    deltas = [m.delta for m in at.metric if m.label == "measured speedup"]
    assert deltas and all(d.startswith("the prediction was") for d in deltas)
    assert all(("high" in d or "low" in d or "on it" in d) for d in deltas)
    from conftest import tables_of
    from pages.ui.diagnose_view import RUN_A, RUN_B
    heads = [list(t.columns) for t in tables_of(at) if "variant" in t.columns and RUN_A in t.columns]
    assert heads, "the variants table"
    assert [c for c in heads[0] if c.startswith("run ")] in ([RUN_A], [RUN_A, RUN_B])
    assert "Run A** is this diagnosis's" in _text(at) or "eager A**, " in _text(at)


def test_the_band_help_says_how_its_rounds_were_timed_and_how_likely_it_holds():
    from pages.ui.diagnose_timing import _band_help
    spread = _band_help({"host_rounds_us": [float(i) for i in range(1, 20)]})
    assert "19 H rounds" in spread and "spread over two seconds" in spread and "90%" in spread
    old = _band_help({"host_rounds_us": [5.0, 6.0, 5.5, 7.0, 6.5]})
    assert "5 H rounds" in old and "recorded before the rounds were spread" in old and "67%" in old
    assert "virtual clock" in _band_help({"host_rounds_us": [864.0] * 5})
    passes = _band_help({"host_dispatch_us": 5.0, "passes": [{"host_dispatch_us": h} for h in (5.0, 6.0, 7.0)]})
    assert "3 H rounds" in passes and "one per pass" in passes and "50%" in passes  # the zoo's: (3+1-2)/4


def test_a_point_whose_h_rounds_moved_warns_that_one_timing_can_land_anywhere_in_the_band():
    from pages.ui.diagnose_timing import host_moved
    assert host_moved({"host_rounds_us": [5000.0, 5100.0, 5300.0]}) is None
    assert host_moved({"host_rounds_us": [864.0] * 5}) is None and host_moved({}) is None
    text = host_moved({"host_rounds_us": [5000.0, 9500.0, 6000.0]})
    assert "1.9x" in text and "3 H rounds" in text
    import json
    rec = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())
    first = rec["points"][0]  # ResNet-18 fp32 batch 1 on the H200: rounds from 1.4 to 3.0 ms
    assert max(first["host_rounds_us"]) > 1.5 * min(first["host_rounds_us"]) and host_moved(first)


def test_a_zoo_point_whose_passes_timed_h_far_apart_says_so():
    """A point recorded before rounds keeps its median pass: where its passes' H spread widely, the
    page says so, or a student reads the H per operation as the model's (decoder fp32 batch 64)."""
    from pages.ui.diagnose_timing import host_moved
    point = {"host_dispatch_us": 8626.0, "passes": [{"host_dispatch_us": h} for h in (8626.0, 4758.0, 9081.0)]}
    text = host_moved(point)
    assert "3 passes" in text and "4,758 µs" in text and "9,081 µs" in text and "1.9x" in text and "8,626 µs" in text
    calm = {"host_dispatch_us": 4254.0, "passes": [{"host_dispatch_us": h} for h in (4254.0, 4300.0, 4400.0)]}
    assert host_moved(calm) is None


def _floor_point():
    """A point timed by the host's floor, as the H200 recorded it (host_floor.py)."""
    import json
    doc = json.loads((ROOT / "tests" / "gpu_runs" / "results" / "diagnose_external_floor_h200.json").read_text())
    return doc["points"][0]


def test_a_floor_point_says_its_h_is_the_fastest_round_and_its_band_how_far_the_floor_moved():
    from pages.ui.diagnose_timing import _band_help, _measured_help, h_how, host_moved
    from runtime_core.diagnose import host_floor
    p = _floor_point()
    assert p["timing"]["statistic"] == "floor" and len(p["host_rounds_us"]) == 40  # timed with ten-second windows
    band = _band_help(p)
    lo, hi = host_floor.floor_interval(p["host_rounds_us"])
    assert "fastest of 40 rounds" in band and "ten seconds" in band and f"{lo:,.0f} µs" in band
    measured = _measured_help(p)
    assert "fastest round of 40" in measured and "median" in measured
    how = h_how([p])
    assert "40 rounds spread over the ten seconds" in how and "lowest" in how
    now = dict(p, timing=host_floor.timing_fields(virtual=False))  # as a diagnosis times it now
    assert "60 rounds spread over the 15 seconds" in h_how([now])
    assert "19 rounds" in h_how([{"host_rounds_us": [1.0] * 19}])  # a recording made before the floor
    moved = host_moved(dict(p, host_rounds_us=[5000.0, 9500.0] * 20))
    assert "1.9x" in moved and "its floor" in moved and "graph helps more" in moved
    gpu_bound = host_moved(dict(p, host_rounds_us=[5000.0, 9500.0] * 20, verdict={"gpu_us": 30000.0}))
    assert "GPU-bound" in gpu_bound and "graph helps more" not in gpu_bound and "30,000 µs" in gpu_bound
    assert _measured_help({"host_rounds_us": [1.0]}) is None  # medians: nothing more to say


def test_the_sweep_csv_keeps_its_columns_and_leaves_a_missing_field_empty():
    from pages.ui.diagnose_view import SWEEP_COLUMNS, sweep_csv
    rows = sweep_csv([{"model": "mlp", "batch": 1, "eager_us": 12.5}, {"model": "mlp", "batch": 4}]).splitlines()
    assert rows[0].split(",") == SWEEP_COLUMNS
    first = dict(zip(SWEEP_COLUMNS, rows[1].split(",")))
    assert first["model"] == "mlp" and first["eager_us"] == "12.5" and first["graph_us"] == ""
    assert len(rows) == 3


def _ext_point(at, label: str):
    at.selectbox(key="dg_ext_point").set_value(label).run()
    assert not at.exception
    return _text(at)


def test_a_point_view_says_where_the_prediction_missed_its_targets(tmp_path, monkeypatch):
    """The external grid's point view judges its point: a wrong verdict, a miss beyond ±15% and a
    band that misses are named beside the numbers, never left for the student to work out. The
    shipped grid has every verdict right, so one point of a copy is measured at 1.1x instead
    (its graph step made slower), which its prediction of "graphs help" gets wrong."""
    import json
    from runtime_core.diagnose.accuracy import band_holds, speedup_error, verdict_right
    from hostile import copy_shipped
    from runtime_core.recordings import store
    copy_shipped(tmp_path)
    doc = json.loads((tmp_path / "diagnose_external_h200.json").read_text())
    if all(verdict_right(p) for p in doc["points"]):
        q = next(p for p in doc["points"] if p["predicted_graph_speedup"] >= 2.0)
        q["graph_us"] = round(q["eager_us"] / 1.1, 3)
        q["measured_graph_speedup"] = round(q["eager_us"] / q["graph_us"], 4)
        (tmp_path / "diagnose_external_h200.json").write_text(json.dumps(doc))
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    wrong = next(p for p in doc["points"] if not verdict_right(p))
    outside = next(p for p in doc["points"] if band_holds(p) is False and verdict_right(p))
    good = next(p for p in doc["points"] if verdict_right(p) and band_holds(p) and p["measured_graph_speedup"] >= 1.2
                and abs(speedup_error(p)) <= 0.15)
    at = open_page(PAGE, timeout_s=180)
    label = lambda p: f"{p['model'].split(':')[-1]}, {p['dtype']}, batch {p['batch']}"  # noqa: E731
    warned = lambda: "\n".join(unescape(w.value) for w in at.warning)  # noqa: E731
    _ext_point(at, label(wrong))
    assert "**Verdict wrong:**" in warned() and f"measured {wrong['measured_graph_speedup']:.2f}x" in warned()
    _ext_point(at, label(outside))
    lo, hi = outside["predicted_speedup_band"]
    assert f"**Band:** {lo:.2f}–{hi:.2f}x misses the measured" in warned()
    _ext_point(at, label(good))
    assert "**Verdict right:**" in _text(at) and "**Verdict wrong:**" not in _text(at)
    assert "holds the measured" in _text(at)


def test_the_saving_split_removes_only_waiting_and_names_what_the_graph_adds():
    """A captured branch that runs more GPU work (BERT fp32, batch 64) shows that work as a part
    of its own: the host part is what the GPU waited for, never negative."""
    import json
    doc = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())
    p = next(q for q in doc["points"] if q["model"].endswith("bert_base") and q["dtype"] == "fp32" and q["batch"] == 64)
    sv = p["explanation"]["saving"]
    assert sv["work_added_us"] > 0 and sv["host_dispatch_removed_us"] >= 0 and sv["saving_us"] < 0
    at = open_page(PAGE, timeout_s=180)
    text = _ext_point(at, "bert_base, fp32, batch 64")
    boxes = [unescape(e.value) for e in (*at.success, *at.warning) if str(e.value).startswith("### ")]
    assert any("a CUDA graph would make this step slower" in b and "more GPU work" in b for b in boxes)
    from conftest import tables_of
    from pages.ui.tables import plain
    parts = next(t for t in tables_of(at) if "part" in t.columns and any(
        "captured step adds" in plain(str(x)) for x in t["part"]))
    names = [plain(str(x)) for x in parts["part"]]
    assert names[0] == "host time the GPU waited for, removed" and "the graph's launch, a cost" in names
    assert "less the GPU's own work launched one by one" in text


def test_the_saving_rows_add_up_to_the_saving_at_every_shipped_point():
    """The split's table, as the page builds it, adds up to its last row at every point of every
    shipped diagnose recording (GPT-2's prompt in fp32 at batch 64 once hid an 88 µs part)."""
    import json
    from pages.ui.diagnose_view import saving_rows
    checked = 0
    for path in (ROOT / "lessons" / "recordings").glob("diagnose_*.json"):
        for p in json.loads(path.read_text())["points"]:
            sv = (p.get("explanation") or {}).get("saving")
            if not sv or "launch_added_us" not in sv:
                continue
            *parts, (last, saving) = saving_rows(sv)
            assert last == "predicted saving per step"
            assert sum(us for _, us in parts) == pytest.approx(saving, abs=0.06), (path.name, p["model"], p["batch"])
            checked += 1
    assert checked >= 60


def test_a_band_from_three_passes_is_read_as_a_coin_toss_not_a_missed_target():
    """The zoo's bands come from its three passes' H (a new one falls inside half the time): a
    measurement outside one is said to be expected, and alone raises no warning; the external
    grid's floor band is judged as a target."""
    import json
    from pages.ui.diagnose_view import judgement
    from runtime_core.diagnose.accuracy import point_targets
    zoo = json.loads((ROOT / "lessons" / "recordings" / "diagnose_h200.json").read_text())["points"]
    outside = [p for p in zoo if p.get("predicted_speedup_band") and not
               p["predicted_speedup_band"][0] <= p["measured_graph_speedup"] <= p["predicted_speedup_band"][1]]
    assert len(outside) >= 10
    for p in outside:
        missed, text = judgement(p)
        assert "misses the measured" in text and "about 50% of the time" in text and "no failed target" in text
        t = point_targets(p)
        assert missed == (not t["verdict_right"] or t["within"] is False)
    one = dict(outside[0], passes=outside[0]["passes"][:1])  # one H: its odds are not 0%, they are unknown
    missed, text = judgement(one)
    assert "a single H timing" in text and "0%" not in text
    ext = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())["points"]
    p = next(q for q in ext if q.get("predicted_speedup_band") and not
             q["predicted_speedup_band"][0] <= q["measured_graph_speedup"] <= q["predicted_speedup_band"][1])
    missed, text = judgement(p)
    assert missed and "no failed target" not in text


def test_every_point_table_is_four_columns_and_judges_each_target():
    """The "every point" table fits a phone (four columns) and names each target's outcome."""
    import json
    from pages.ui.diagnose_external import point_row
    from runtime_core.diagnose.accuracy import verdict_right
    doc = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())
    rows = [point_row(p) for p in doc["points"]]
    assert all(len(r) == 4 for r in rows)
    for p, r in zip(doc["points"], rows):
        assert ("verdict WRONG" in r["targets"]) == (not verdict_right(p))
        if p["measured_graph_speedup"] < 1.2:
            assert "±15% not judged" in r["targets"]


def test_the_repeat_caption_names_its_rounds_only_from_numbers():
    """_how says how the grid's second recording was timed where its points carry a sane `timing`,
    and leaves the rounds out (never fails) where that timing is junk."""
    from pages.ui.diagnose_external import _how
    one = "one process: the points in turn"
    good = {"protocol": one, "points": [{"timing": {"host_rounds": 40, "host_window_s": 10.0}}]}
    assert _how(good).endswith("one after another (H and the steps in 40 rounds over 10 s)")
    for junk in ("x", float("nan"), -1, True, None):
        bad = {"protocol": one, "points": [{"timing": {"host_rounds": junk, "host_window_s": 10.0}}]}
        assert _how(bad) == "all of them in one process, one after another"
    assert _how({"protocol": None, "points": "junk"}) == "in another process"


def test_a_choice_the_recording_holds_once_is_text_not_a_widget_and_the_planner_says_which_is_faster():
    """The shipped zoo recording holds the decoder at one KV-cache size and no token sweep: those
    show as text (a slider or radio with one choice does nothing), and the planner's sentence puts
    the saving on the planner's side, not on powers of two's."""
    at = open_page(PAGE, timeout_s=180)
    assert at.selectbox(key="dg_model").value == "decoder"
    assert not [s for s in at.select_slider if s.key == "dg_seq"]
    assert not [r for r in at.radio if r.key == "dg_plan_kind"]
    shown = [m.value for m in at.markdown]
    assert "**128** · the only one recorded" in shown and "**batch sizes** · the only kind recorded for this model" in shown
    gain = next(c.value for c in at.caption if "Under the same budget" in c.value)
    assert "than powers of two (" in gain and ("% less than" in gain or "% more than" in gain)


def test_a_real_steps_own_copies_are_not_called_static_buffer_copies():
    """The decoder's eager step has twelve device-to-device copies of its own: its legend called them
    "copy into static buffer", which an eager step does not have."""
    at = open_page(PAGE)
    at.radio(key="dg_tl_variant").set_value("eager").run()
    spec = next(c.proto.spec for c in at.get("plotly_chart") if '"GPU kernel work"' in c.proto.spec)
    assert "copy into static buffer" not in spec
    assert "memory copy (the model's" in spec


def test_the_knobs_are_kept_across_a_visit_to_another_page():
    """A student picked the CNN, looked at the Claims page and came back to the decoder."""
    at = open_page(PAGE)
    models = at.selectbox(key="dg_model").options
    other = next(m for m in models if m != at.selectbox(key="dg_model").value)
    at.selectbox(key="dg_model").set_value(other).run()
    at.switch_page("pages/11_Claims.py").run()
    at.switch_page(PAGE).run()
    assert at.selectbox(key="dg_model").value == other and not at.exception


def test_the_planner_and_timeline_knobs_are_kept_across_a_visit_to_another_page():
    """An instructor's prepared planner (uniform up to 100, 1,000 requests a capture) and the
    timeline's graph replay are still set after a look at another page, with no warning."""
    at = open_page(PAGE)
    at.radio(key="dg_tl_variant").set_value("our_graph").run()
    at.toggle(key="dg_tl_close").set_value(True).run()
    at.slider(key="dg_plan_zipf").set_value(1.6).run()
    at.radio(key="dg_plan_preset").set_value("uniform").run()
    at.number_input(key="dg_plan_max").set_value(100).run()
    at.number_input(key="dg_plan_requests").set_value(1000).run()
    at.switch_page("pages/11_Claims.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception and not [w for w in at.warning if "Session State API" in w.value]
    assert at.radio(key="dg_tl_variant").value == "our_graph"
    assert at.toggle(key="dg_tl_close").value is True
    assert at.radio(key="dg_plan_preset").value == "uniform"
    assert at.number_input(key="dg_plan_max").value == 100
    assert at.number_input(key="dg_plan_requests").value == 1000
    assert at.slider(key="dg_plan_zipf").value == 1.6
    assert "uniform over 1..100" in _text(at)


def test_a_planner_that_picks_the_powers_of_two_is_not_called_0_percent_less_than_them():
    """My list "1;2" on the page's defaults: the planner's buckets are powers of two's, and the
    caption said "0.0% less than powers of two" before saying they are the same buckets."""
    at = open_page(PAGE)
    at.radio(key="dg_plan_preset").set_value("my list").run()
    at.text_input(key="dg_plan_list").set_value("1;2").run()
    assert any("Planner and powers of two are the same buckets" in c.value for c in at.caption)
    gain = next(c.value for c in at.caption if "the planner's set costs a request" in c.value)
    assert "the same as powers of two" in gain and "0.0%" not in gain, gain


def test_a_planner_within_a_rounding_of_the_powers_of_two_is_not_called_0_percent_less():
    """My list "1, 2, 2, 8": other buckets than powers of two's, at a cost that rounds to the same
    (645.3 against 645.4 µs on the demo), and the caption said "0.0% less"."""
    at = open_page(PAGE)
    at.radio(key="dg_plan_preset").set_value("my list").run()
    at.text_input(key="dg_plan_list").set_value("1, 2, 2, 8").run()
    gain = next(c.value for c in at.caption if "the planner's set costs a request" in c.value)
    assert "0.0%" not in gain, gain


def test_the_planners_caption_and_chart_count_the_captures_it_weighs():
    """At one request per capture the planner picks no buckets, since capturing costs more than it
    saves: the caption and chart compare the step plus the capture share (what it minimizes), so
    the planner is not shown as the slowest choice."""
    at = open_page(PAGE)
    at.number_input(key="dg_plan_requests").set_value(1).run()
    assert not at.exception
    cap = next(c.value for c in at.caption if "the planner's set costs a request" in c.value)
    assert "% less than powers of two" in cap or "0.0% more" in cap, cap
    spec = next(c.proto.spec for c in at.get("plotly_chart") if "its share of the captures" in c.proto.spec)
    assert '"barmode":"stack"' in spec.replace(" ", "")


def test_a_point_without_a_host_profile_says_why_its_host_table_is_missing():
    """The zoo's recording kept no host profile: the explanation says so instead of leaving out
    the three biggest host-time consumers without a word."""
    import json
    rec = json.loads((ROOT / "lessons" / "recordings" / "diagnose_h200.json").read_text())
    if any((p.get("explanation") or {}).get("top_host") for p in rec["points"]):
        pytest.skip("the shipped zoo recording has host profiles now")
    at = open_page(PAGE)
    assert any("kept no host profile" in c.value for c in at.caption) and not at.exception


def test_a_gpu_bound_step_does_not_say_the_gpu_waits_for_the_host():
    """The recorded encoder at batch 512 is GPU-bound ("The host runs ahead of the GPU"); the
    saving's prose then explains its small host part as the GPU's occasional waits, not as
    "the GPU waits for the host" of a launch-bound step."""
    at = open_page(PAGE)
    at.selectbox(key="dg_model").set_value("encoder").run()
    at.select_slider(key="dg_batch").set_value(512).run()
    assert any("The host runs ahead of the GPU" in m.value for m in at.warning)
    saving = [unescape(c.value) for c in at.caption if c.value.startswith("Where the predicted saving")]
    # the first is this point's (the external grid's explained point follows, launch-bound)
    assert saving and "Here the GPU is the slower side" in saving[0]
    assert "Eagerly, the GPU waits for the host" not in saving[0]


def test_a_judged_band_and_error_read_the_way_they_were_judged():
    """Encoder batch 512 measured just outside its band, and the decoder at batch 64 missed ±15% by
    a hair: each line's printed figures show what it says ("misses", "no"), never "1.01–1.02x
    misses 1.01x" or "no, +15% off"."""
    import re
    at = open_page(PAGE)
    at.selectbox(key="dg_model").set_value("encoder").run()
    at.select_slider(key="dg_batch").set_value(512).run()
    line = next(unescape(m.value) for m in (*at.warning, *at.caption) if "**Band:**" in m.value)
    band = re.search(r"\*\*Band:\*\* ([0-9.]+)–([0-9.]+)x (holds|misses) the measured ([0-9.]+)x", line)
    lo, hi, said, meas = float(band[1]), float(band[2]), band[3], float(band[4])
    assert said == "misses" and not lo <= meas <= hi
    at.selectbox(key="dg_model").set_value("decoder").run()
    at.select_slider(key="dg_batch").set_value(64).run()
    line = next(unescape(m.value) for m in (*at.warning, *at.caption) if "**Within ±15%:**" in m.value)
    err = re.search(r"\*\*Within ±15%:\*\* (yes|no), the point prediction was (just over 15%|[-+][0-9.]+%) off", line)
    assert err, line
    assert err[1] == "no" and (err[2] == "just over 15%" or abs(float(err[2].rstrip("%"))) > 15)


def test_the_simulated_demo_explains_its_prediction_and_judges_no_band_it_lacks(no_gpu_recording):
    """On the simulator nothing varies, so the band has no width: it is not judged (no "5.74–5.74x
    misses 5.76x"). The prediction is still explained, the step is called simulated, and the
    variants line names no figure the demo lacks."""
    at = open_page(PAGE)
    text = _text(at)
    assert "**Band:**" not in text and "-0%" not in text
    assert "no band: its H and node cost do not vary" in [m.delta for m in at.metric if m.label == "predicted speedup"]
    assert "per graph node" in text and "Where the predicted saving" in text   # the explanation, computed
    # in the simulator's words: no framework to rank, no calibrated chain, no band of ± 0
    assert "no host operations to rank" in text and "public networks' points" not in text
    assert "grids from a single block to thousands" not in text and "± 0.00" not in text
    assert "One simulated step, two lanes" in text and "One real step" not in text
    assert "(not recorded)" not in text and "Not on the simulator:" in text


def test_the_host_consumers_table_gives_the_shares_its_caption_says_to_read():
    """The profiler slows the host (resnet18's three biggest ops add up to about twice its H), so
    the table gives each one's share of the profiled step and that share of the unprofiled H."""
    import json
    doc = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())
    first = doc["points"][0]
    span, h, top = first["profile"]["eager_span_us"], first["host_dispatch_us"], first["top_host"][0]
    at = open_page(PAGE, timeout_s=180)
    tables_ = [t.value for t in at.table if "host operation" in t.value.columns]
    assert tables_
    row = tables_[0].iloc[0]
    assert row["share of the step"] == f"{top['total_us'] / span:.0%}"
    assert row["≈ µs of H"] == f"{top['total_us'] / span * h:,.0f}"
    assert any("share of the profiled step, applied to H" in c.value for c in at.caption)


def test_a_batch_the_new_dtype_lacks_is_named_and_comes_back_with_the_old_dtype():
    """bf16 is recorded at fewer batches: switching to it moved batch 512 to 1 with no word on
    the page, under a timeline still labelled fp32."""
    at = open_page(PAGE)
    at = at.select_slider(key="dg_batch").set_value("512").run()
    at = at.radio(key="dg_dtype").set_value("bf16").run()
    assert not at.exception
    notes = [c.value for c in at.caption if "is not recorded for this model" in c.value]
    assert notes and "batch size 512" in notes[0]
    at = at.radio(key="dg_dtype").set_value("fp32").run()
    assert at.select_slider(key="dg_batch").value == 512
    assert not [c.value for c in at.caption if "is not recorded for this model" in c.value]


def test_the_replay_timeline_compares_itself_with_the_table_only_when_they_are_one_step():
    """The graph replay's caption said the drawn replay is longer than the measured step in the
    table below, while the timeline drawn was batch 64's and the table batch 512's."""
    at = open_page(PAGE)
    at.radio(key="dg_tl_variant").set_value("our_graph").run()
    caps = lambda: [str(c.value) for c in at.caption if "profiler slows the graph launch" in str(c.value)]  # noqa: E731
    batches = at.select_slider(key="dg_batch").options
    assert caps() and "in the table below" in caps()[0]          # batch 1: a timeline of this very step
    at.select_slider(key="dg_batch").set_value(batches[-1]).run()
    said = caps()
    assert said and ("in the table below" in said[0]) == ("showing batch" not in _text(at))


def test_the_evidence_timeline_names_every_way_it_differs_from_the_verdicts_setting():
    """cnn at bf16 showed the fp32 timeline under a caption that named only the batch: it names the
    dtype too, and the chart's title says fp32."""
    at = open_page("pages/7_Will_graphs_help_my_model.py")
    at.selectbox(key="dg_model").set_value("cnn").run()
    at.select_slider(key="dg_batch").set_value(64).run()
    at = at.radio(key="dg_dtype").set_value("bf16").run()
    said = next(c.value for c in at.caption if c.value.startswith("Timelines were recorded at"))
    assert "showing batch 1 in fp32" in said and "not your bf16" in said
    assert any(unescape(m.value).lstrip("*").startswith("cnn, fp32, batch 1") for m in at.markdown)


def test_the_decoder_at_batch_1_warns_that_other_pages_time_it_with_another_harness():
    """Page 7's run has reduce-overhead about 1.1x ahead of our graph, the claims page 1.6x: the
    variants table says the decoder bench elsewhere is another harness."""
    at = open_page("pages/7_Will_graphs_help_my_model.py")
    at = at.selectbox(key="dg_model").set_value("decoder").run()
    assert any("compare variants within one table, never across pages" in c.value for c in at.caption)
    at = at.selectbox(key="dg_model").set_value("mlp").run()
    assert not any("never across pages" in c.value for c in at.caption)


def test_the_evidence_timeline_draws_its_first_operations_close_up_on_request():
    """Drawn whole, the decoder's 267 GPU operations are drawn in slices (the title says so); close
    up, the first 30 are drawn span by span over the window they take."""
    at = open_page("pages/7_Will_graphs_help_my_model.py")
    at = at.selectbox(key="dg_model").set_value("decoder").run()
    def title(at):  # the bold first line, and the drawing notes in the caption under it (charts.show)
        bold = next(unescape(m.value) for m in at.markdown if unescape(m.value).startswith("**decoder, fp32, batch 1"))
        return " ".join([bold] + [unescape(c.value) for c in at.caption if "drawn" in unescape(c.value)])
    assert "lanes drawn in 150 slices" in title(at)
    at = at.toggle(key="dg_tl_close").set_value(True).run()
    assert "its first" in title(at) and "slices" not in title(at) and not at.exception


def test_a_negative_gap_saving_is_named_a_cost_not_a_removal(no_gpu_recording):
    """The simulator's eager stream has no gaps, while each graph node costs its node gap: the
    graph adds GPU gaps, so the row says so instead of "removed" beside a negative number."""
    at = open_page(PAGE)
    rows = [r for t in at.table if "part" in t.value.columns for r in t.value["part"]]
    assert "GPU gaps the graph's nodes add beyond eager's, a cost" in rows
    assert "GPU gaps between kernels removed" not in rows


def test_a_crossover_past_the_sweep_names_no_line_the_chart_lacks():
    """mlp's graphs pay at every batch of the sweep: its caption said "> 512 measured (solid line)"
    over a chart with no crossover line."""
    at = open_page(PAGE)
    at = at.selectbox(key="dg_model").set_value("mlp").run()
    line = next(unescape(c.value) for c in at.caption if "graphs stop paying" in c.value)
    for which, drawn in (("measured", "solid line"), ("predicted", "dashed")):
        past = re.search(rf"> \d+ {which}", line)
        assert (f"{which} (past the sweep: no line)" in line) == bool(past)
        assert (f"{which} ({drawn})" in line) == (not past)


def test_a_cleared_planner_box_goes_back_to_its_value_not_to_one(no_gpu_recording):
    """A number box drawn without a default goes back to its min_value when a student clears it: the
    largest request size became 1 and the budget slider shrank with it. Each box's default is its value."""
    at = open_page(PAGE)
    at.number_input(key="dg_plan_max").set_value(64).run()
    at.number_input(key="dg_plan_requests").set_value(1000).run()
    boxes = {k: at.number_input(key=k).proto for k in ("dg_plan_max", "dg_plan_requests")}
    assert (boxes["dg_plan_max"].default, boxes["dg_plan_requests"].default) == (64, 1000)


def test_a_sweep_whose_h_bumped_says_the_bumps_are_the_host():
    """The lesson says H hardly moves with the batch; the decoder's recorded sweep has H (and the eager
    step) jump at single batches and fall back at the next. The page names those batches under the chart."""
    from runtime_core.diagnose.records import best_recording
    from runtime_core.diagnose.sweep import host_bumps
    at = open_page(PAGE, timeout_s=180)
    at.selectbox(key="dg_model").set_value("decoder").run()
    bumps = host_bumps(best_recording().sweep("decoder"))
    assert bumps, "the shipped decoder sweep has host bumps"
    said = [c.value for c in at.caption if "The host changed pace along this sweep" in c.value]
    batches = [str(b) for b, _ in bumps]
    named = batches[0] if len(batches) == 1 else ", ".join(batches[:-1]) + " and " + batches[-1]
    assert said and f"At batch{'es' if len(bumps) > 1 else ''} {named}, H came out" in said[0], said
    at.selectbox(key="dg_model").set_value("mlp").run()      # a sweep without bumps says nothing
    assert not host_bumps(best_recording().sweep("mlp"))
    assert not any("The host changed pace" in c.value for c in at.caption)


def test_the_graph_step_caption_counts_which_step_each_speedup_miss_comes_from():
    import json
    from runtime_core.diagnose.accuracy import miss_sources
    doc = json.loads((ROOT / "lessons" / "recordings" / "diagnose_external_h200.json").read_text())
    m = miss_sources(doc["points"])
    at = open_page(PAGE, timeout_s=180)
    line = [c.value for c in at.caption if c.value.startswith("The graph step on its own")]
    assert line and "mostly from the eager step" not in line[0]
    assert (f"At the {m['missed']} points whose speedup misses ±15% or its band, neither step is off by more "
            f"than {m['worst']:.1%}: the eager step is the further off at {m['eager']}, the graph step at "
            f"{m['graph']}") in line[0], line
    assert f"At {m['opposite']} of them the two errors lie on opposite sides" in line[0]
    assert m["missed"] == m["eager"] + m["graph"] + m["tied"] and m["missed"] > 0


def test_a_shape_the_new_dtype_lacks_is_named_in_the_knobs_words():
    """The encoder's 1024 tokens, then bf16: the note said "not recorded for this model, dtype and
    shape" about the shape itself, and the verdict's line said "shape 64" beside a knob called
    tokens. Both now use the knob's own words."""
    at = open_page(PAGE)
    at = at.selectbox(key="dg_model").set_value("encoder").run()
    at = at.select_slider(key="dg_seq").set_value(at.select_slider(key="dg_seq").options[-1]).run()
    at = at.radio(key="dg_dtype").set_value("bf16").run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any(c.startswith("tokens 1024 is not recorded for this model and dtype") for c in captions), captions
    assert any("encoder, bf16, batch 1, 64 tokens on" in c for c in captions)
    assert not any(", shape 64" in c for c in captions)


def test_the_misses_name_a_shape_in_the_words_of_the_models_own_knob():
    """"Misses, and why" said "shape 128" where the knob, verdict and captions say "128 KV-cache slots"."""
    at = open_page("pages/7_Will_graphs_help_my_model.py")
    misses = [unescape(m.value) for m in at.markdown if unescape(m.value).startswith("- **decoder,")]
    assert misses and all("KV-cache slots" in m and "shape 128" not in m for m in misses), misses


def test_the_held_out_networks_show_their_targets_and_each_miss_in_words():
    """Page 7's held-out panel reads the shipped held-out recording: its four target metrics after
    the grid's, one line for every point that misses a target (and none for a point that meets
    them), the first miss explained by default, and every point in the table."""
    from runtime_core.diagnose.accuracy import external_accuracy, point_targets
    from runtime_core.diagnose.records import best_recording
    doc = best_recording(grid="heldout").doc   # the one the page shows: complete before partial
    acc = external_accuracy(doc["points"])
    at = open_page(PAGE, timeout_s=180)
    i = [s.value for s in at.subheader].index("On networks no rule saw")
    assert [s.value for s in at.subheader][i - 1] == "On networks nobody here wrote"   # after the grid
    held = [(m.label, m.value) for m in at.metric if m.label == "band holds the measurement"]
    assert held[-1][1] == f"{acc['band_holds']} of {acc['banded']}"   # the held-out set's, after the grid's
    vals = {m.label: m.value for m in at.metric if m.label in ("speedup within ±15%", "verdict right")}  # the last
    assert vals["speedup within ±15%"] == f"{acc['within']} of {acc['eligible']}"
    assert vals["verdict right"] == f"{acc['verdict_right']} of {acc['points']}"
    text = _text(at)
    missed = [p for p in doc["points"] if point_targets(p)["missed"]]
    label = lambda p: f"{p['model'].split(':')[-1]}, {p['dtype']}, batch {p['batch']}"
    assert f"{len(missed)} of {len(doc['points'])} points miss a target" in text
    for p in doc["points"]:
        assert (f"**{label(p)}**: measured" in text) == (p in missed), label(p)
    for p in missed:   # each miss names the step further from its prediction, with both times
        e = abs(p["predicted_eager_us"] / p["eager_us"] - 1)   # as the speedup's error is counted
        g = abs(p["predicted_graph_us"] / p["graph_us"] - 1)
        step, key = ("eager", "eager_us") if e >= g else ("graph", "graph_us")
        line = text.split(f"**{label(p)}**", 1)[1].split("\n", 1)[0]
        assert f"its {step} step's prediction was" in line
        assert f"({p['predicted_' + key]:,.0f} µs predicted, {p[key]:,.0f} measured)" in line
    acc_text = next(unescape(m.value) for m in at.markdown if m.value.startswith("The targets are the grid's"))
    assert ("**Here every target is met.**" in acc_text) == (acc["meets_speedup_target"] and
                                                            acc["meets_verdict_target"] and acc["meets_band_target"])
    assert ("the band target is missed" in acc_text) == (not acc["meets_band_target"])
    helped = sum(p["measured_graph_speedup"] >= 1.2 for p in doc["points"])   # one side of the verdict only
    one_sided = f"At {helped} of the {len(doc['points'])} points graphs measured 1.2x or more, so the verdict"
    assert any(c.value.startswith(one_sided) for c in at.caption) == (helped >= 0.9 * len(doc["points"]))
    # a held-out point ran on another card than the kernels the explanation quotes: the page says so
    assert any(c.value.startswith("The figures quoted here from kernels of our own making") and
               doc["meta"]["device_name"] in unescape(c.value) for c in at.caption) == \
        (doc["meta"]["device_name"] != "NVIDIA H200")
    assert at.selectbox(key="dg_held_point").value == label(missed[0])
    assert any(unescape(c.value) == f"Recorded: {label(missed[0])} on {doc['meta']['device_name']}."
               for c in at.caption)
    last = label(doc["points"][-1])
    at.selectbox(key="dg_held_point").set_value(last).run()
    assert not at.exception and any(unescape(c.value).startswith(f"Recorded: {last} on ") for c in at.caption)
    tables = [t.value for t in at.table if "network" in t.value.columns]   # st.table: cells escaped
    cell = lambda v: unescape(v).replace("\u200b", "")   # long names carry break points
    assert any(sorted(map(cell, t["network"])) == sorted(label(p) for p in doc["points"]) for t in tables)


def test_the_held_out_miss_line_says_what_missed_and_which_step(monkeypatch):
    """A point outside its band and past ±15%: the band printed so the measurement visibly falls
    outside it, how far the prediction was and which way, and the step further off."""
    from pages.ui.diagnose_heldout import miss_line
    p = {"model": "validation.heldout:vit_b_16", "dtype": "bf16", "batch": 16,
         "predicted_graph_speedup": 1.7713, "measured_graph_speedup": 2.638,
         "predicted_speedup_band": [1.7148, 1.8317], "verdict": {"launch_bound": True, "graphs_help": True},
         "eager_us": 4903.2, "predicted_eager_us": 3337.4, "graph_us": 1858.7, "predicted_graph_us": 1884.1}
    line = unescape(miss_line(p))
    assert line.startswith("**vit_b_16, bf16, batch 16**: measured 2.64x, outside its band of 1.71–1.83x")
    assert "a prediction 33% too low, past ±15%" in line
    assert "its eager step's prediction was 32% too low (3,337 µs predicted, 4,903 measured)" in line
    q = dict(p, measured_graph_speedup=1.84, eager_us=3337.4, graph_us=1800.0)   # just outside, within ±15%
    line = unescape(miss_line(q))
    assert "outside its band of 1.7148–1.8317x" not in line and "1.83x" in line and "too low" not in line
    assert "its graph step's prediction was 5% too high (1,884 µs predicted, 1,800 measured)" in line
    # a wrong verdict is said; a point with nothing measured (it could not be captured) still reads
    wrong = dict(p, verdict={"launch_bound": False, "graphs_help": False})
    assert ", and its verdict was wrong" in unescape(miss_line(wrong))
    bare = {k: v for k, v in p.items() if k not in ("measured_graph_speedup", "graph_us")}   # "helps", unmeasured
    line = unescape(miss_line(bare))
    assert "no speedup was measured, and its verdict was wrong" in line and "graph step" not in line


def test_without_a_held_out_recording_the_panel_says_how_to_make_one(tmp_path, monkeypatch):
    """A clone whose recordings folder has no held-out file: the panel says so and gives the
    command, and the rest of the page still runs."""
    from runtime_core.recordings import store
    for path in (ROOT / "lessons" / "recordings").glob("*.json"):
        if not path.name.startswith("diagnose_heldout_"):
            shutil.copy(path, tmp_path / path.name)
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    at = open_page(PAGE, timeout_s=180)
    assert any("No held-out recording ships yet" in i.value and "--set heldout --fresh-processes" in i.value
               for i in at.info)
    assert "On networks no rule saw" in [s.value for s in at.subheader]


@pytest.mark.parametrize("meets, words", [
    ((True, True, True), "**Here every target is met.**"),
    ((True, True, False), "**Here the band target is missed; the speedup and verdict targets are met.**"),
    ((False, True, False), "**Here the speedup and band targets are missed; the verdict target is met.**"),
    ((False, False, False), "**Here every target is missed.**"),
])
def test_the_held_out_outcome_names_each_target_met_or_missed(meets, words):
    from pages.ui.diagnose_heldout import outcome
    acc = dict(zip(("meets_speedup_target", "meets_verdict_target", "meets_band_target"), meets))
    assert outcome(acc) == words
    assert outcome({}) == ""   # a recording without a summary says nothing rather than guess


def test_an_explanation_on_the_card_its_kernels_were_timed_on_names_no_other_card():
    """The grid's points ran on the card the node costs and the sweep were timed on: no caption;
    a point from another card gets one naming both cards."""
    from pages.ui.diagnose_view import _timed_elsewhere
    from runtime_core.lesson.figures import shipped_recordings
    card = shipped_recordings()["node_costs"].meta.device_name
    assert _timed_elsewhere(card) == "" and _timed_elsewhere(None) == ""
    other = unescape(_timed_elsewhere("Some Other GPU"))
    assert other.endswith("this point ran on Some Other GPU.") and card in other


def test_the_setting_rides_in_the_url_so_a_reload_or_a_shared_link_opens_on_it():
    """A student picks the encoder in bf16; the URL then names it, and a page opened on that URL
    (a reload, a link an instructor shares) shows the same setting."""
    at = open_page(PAGE)
    at.selectbox(key="dg_model").set_value("encoder").run()
    at.radio(key="dg_dtype").set_value("bf16").run()
    url = {k: at.query_params[k] for k in ("model", "dtype", "batch", "shape")}
    url = {k: v if isinstance(v, str) else v[0] for k, v in url.items()}
    assert url["model"] == "encoder" and url["dtype"] == "bf16"
    again = open_page(PAGE, url)
    assert again.selectbox(key="dg_model").value == "encoder" and again.radio(key="dg_dtype").value == "bf16"
    assert not [w for w in again.warning if "The link asks for" in w.value]


def test_a_link_naming_what_is_not_recorded_says_so_and_shows_the_default():
    at = open_page(PAGE, {"model": "<b>resnet</b>", "dtype": "fp64", "batch": "abc"})
    assert not at.exception and at.selectbox(key="dg_model").value == "decoder"
    said = [unescape(w.value) for w in at.warning if "The link asks for" in w.value]
    assert any("model=<b>resnet</b>" in w and "showing model=decoder" in w for w in said)
    assert any("dtype=fp64" in w for w in said)
    assert any("batch size abc is not recorded" in unescape(c.value) for c in at.caption)


@pytest.mark.parametrize("query", [{"batch": "²"}, {"shape": "①"}, {"batch": ""}, {"model": "mlp", "shape": "64"}])
def test_odd_url_values_never_crash_the_page(query):
    at = open_page(PAGE, query)
    assert not at.exception


def test_a_url_value_the_page_did_not_take_is_said_once_and_then_dropped():
    """A link asking for the encoder at 256 tokens and batch 64 in bf16: both are said not to be
    recorded, and after a switch to fp32 neither comes back as if the reader had chosen it."""
    at = open_page(PAGE, {"model": "encoder", "dtype": "bf16", "batch": "64", "shape": "256"})
    said = [unescape(c.value) for c in at.caption if "is not recorded" in c.value]
    assert any("tokens 256" in c for c in said) and any("batch size 64" in c for c in said)
    at.radio(key="dg_dtype").set_value("fp32").run()
    assert not [c for c in at.caption if "is not recorded" in c.value]
    assert at.select_slider(key="dg_seq").value != 256


def test_a_hand_typed_link_is_read_without_regard_to_case():
    at = open_page(PAGE, {"model": "Encoder", "dtype": "BF16"})
    assert at.selectbox(key="dg_model").value == "encoder" and at.radio(key="dg_dtype").value == "bf16"
    assert not [w for w in at.warning if "The link asks for" in w.value]


def test_a_link_with_the_clis_seq_reads_it_as_the_shape_and_says_it_one_way():
    """?seq=512 (the CLI's --seq) was ignored, and the link then carried seq=512 beside shape=64."""
    at = open_page(PAGE, {"model": "encoder", "batch": "1", "seq": "512"})
    assert not at.exception
    assert at.select_slider(key="dg_seq").value == 512
    assert "seq" not in at.query_params and at.query_params["shape"] in ("512", ["512"])
    empty = open_page(PAGE, {"": "7"})               # the empty key names no knob
    assert empty.selectbox(key="dg_model").value == "decoder" and not [w for w in empty.warning
                                                                       if "The link asks for" in w.value]


def test_the_simulated_demo_calls_its_numbers_simulated_and_its_score_no_test(no_gpu_recording):
    """The demo's sweep said "eager, measured" and scored itself 42 of 42 with no word that the
    device runs the model's own formulas."""
    import json as _json
    at = open_page(PAGE)
    names = [t.get("name", "") for c in at.get("plotly_chart") for t in _json.loads(c.proto.spec)["data"]]
    assert "eager, simulated" in names and not [n for n in names if n.endswith(", measured")]
    assert "not the prediction being right" in _text(at)


def test_the_external_grid_says_which_target_it_misses():
    at = open_page(PAGE)
    text = _text(at)
    said = "Here the band target is missed; the speedup and verdict targets are met."
    assert text.count(said) == 2, text.count(said)   # the grid (H200) and the held-out networks (H100)


def test_a_bare_visit_writes_no_url_and_the_defaults_leave_it_again():
    """Page 7 opened on a bare URL writes nothing (a history entry per visit, not two); another
    model writes the setting; the defaults again leave the URL bare."""
    at = open_page(PAGE)
    assert not dict(at.query_params), dict(at.query_params)
    first = at.selectbox(key="dg_model").value
    at.selectbox(key="dg_model").set_value("encoder").run()
    assert at.query_params["model"] in ("encoder", ["encoder"])
    at.selectbox(key="dg_model").set_value(first).run()
    assert not dict(at.query_params), dict(at.query_params)


def test_a_shared_link_shows_the_timeline_view_the_sharer_saw():
    """An instructor review: the step drawn (eager or graph replay) and the close-up lived in the
    session only, so a shared link opened on the eager, full-length timeline."""
    at = open_page(PAGE)
    at.radio(key="dg_tl_variant").set_value("our_graph").run()
    at.toggle(key="dg_tl_close").set_value(True).run()
    url = {k: (v if isinstance(v, str) else v[0]) for k, v in at.query_params.items()}
    assert url["step"] == "graph" and url["closeup"] == "1", url
    again = open_page(PAGE, url)
    assert again.radio(key="dg_tl_variant").value == "our_graph" and again.toggle(key="dg_tl_close").value is True
    at.radio(key="dg_tl_variant").set_value("eager").run()
    at.toggle(key="dg_tl_close").set_value(False).run()
    assert "step" not in at.query_params and "closeup" not in at.query_params
    junk = open_page(PAGE, {"step": "<b>warp</b>", "closeup": "yes"})
    said = " ".join(w.value for w in junk.warning)
    assert "step=" in said and "closeup=" in said and "<b>" not in said
    assert junk.radio(key="dg_tl_variant").value == "eager" and "step" not in junk.query_params

"""Where the new labs appear: failure-modes page buttons, §4's graph-bug section and replay-cost
table, §3's stream-reuse lab and playground, interview cards with their labs, and one meaning
of "eager" per screen."""
import json
from pathlib import Path

import pytest
from conftest import open_page, tables_of

ROOT = Path(__file__).resolve().parents[1]
NEW_LABS = ("stream_reuse", "output_overwrite", "frozen_scalar", "broadcast_copy", "unmasked_padding", "no_warmup")


def _text(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "warning", "success", "info", "subheader", "code")
             for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)


@pytest.mark.slow
def test_failure_modes_page_runs_each_new_lab_and_shows_its_signal():
    at = open_page("pages/8_Failure_modes.py")
    for lab in NEW_LABS:
        at = at.button(key=f"lab_run_{lab}_s7").click().run()
        assert not at.exception, at.exception
    # each simulated run, and the same lab recorded on the H200 beside it (labs_h200.json)
    assert " ".join(w.value for w in at.warning).count("**Signal seen.**") == 2 * len(NEW_LABS)
    text = _text(at)
    assert "Twelve ways the runtime goes wrong" in text
    assert "race on buffer" in text  # the detector's message, shown by the stream-reuse panel
    # the labs past the lesson's twelve sit under a heading of their own, which says they replay recordings here
    subheaders = [s.value for s in at.subheader]
    assert subheaders.index("More failures, inside torch's own machinery") > subheaders.index("See each failure happen")
    assert any(c.value.startswith("Labs 1 to 12 follow the lesson's list") for c in at.caption)
    # the caption names both badges its labs wear here: the H200's RECORDED and a CPU run's CPU, RECORDED
    heading = next(c.value for c in at.caption if c.value.startswith("These go past the lesson's list"))
    assert "labelled RECORDED" in heading and "labelled CPU, RECORDED" in heading
    at = at.button(key="lab_run_compile_cache_s7").click().run()  # ... and a lab below does wear it:
    others = [c.value for c in at.caption if c.value != heading]  # the compile-cache lab's CPU run
    assert any(":violet-badge[CPU, RECORDED]" in c for c in others) and not at.exception


def test_cuda_graphs_page_has_the_replay_costs_and_the_graph_bug_labs():
    at = open_page("pages/4_CUDA_graphs.py")
    subheaders = [s.value for s in at.subheader]
    assert "What a replay costs, CPU and GPU" in subheaders and "Labs: bugs a replay does not report" in subheaders
    costs = tables_of(at)[0]
    assert any(c.startswith("GPU: gap between two graph nodes") for c in costs["cost"])
    unmeasured = "(not measured in this recording)" in set(costs["value"]) | set(tables_of(at)[1]["value"])
    assert any("holds as 0" in c.value for c in at.caption) == unmeasured  # the note only where it applies
    at = at.button(key="lab_run_broadcast_copy_s4").click().run()
    assert not at.exception
    assert "must match the size" in _text(at)
    decoder = [f for f in tables_of(at) if "variant" in f.columns][0]
    assert "PyTorch eager (async)" in list(decoder["variant"])


def test_cuda_graphs_lesson_renders_its_figures_and_citations():
    at = open_page("pages/4_CUDA_graphs.py")
    text = _text(at)
    assert "{{" not in text and "(not recorded)" not in text
    assert ":gray[‹seed›]" in text and "Sources:" in text


def test_allocator_page_runs_the_stream_reuse_lab_and_the_playground_race():
    at = open_page("pages/3_Caching_allocator.py")
    at = at.button(key="lab_run_stream_reuse_s3").click().run()
    assert not at.exception and any("**Signal seen.**" in w.value for w in at.warning)
    at = at.button(key="alloc_pg_malloc").click().run()
    at = at.button(key="alloc_pg_side_norec").click().run()
    assert any("awaiting events 0" in c.value for c in at.caption)  # no record_stream: no event
    at = at.button(key="alloc_pg_malloc").click().run()
    assert any("RACE" in c.value for c in at.caption)  # the new owner wrote it before the side read
    # said under the buttons on the press that raced (the full report sits two charts below)
    assert [e.value for e in at.error if "**Race.**" in e.value]
    at = at.button(key="alloc_pg_adv").click().run()
    assert not [e.value for e in at.error if "**Race.**" in e.value]  # a later press that raced nothing


def test_interview_cards_3_4_7_link_their_labs():
    cards = json.loads((ROOT / "lessons" / "interview.json").read_text())["cards"]
    by_id = {c["id"]: c for c in cards}
    assert by_id["caching_allocator"]["live_labs"] == ["stream_reuse"]
    # card 2 (launch-bound at batch 1) is about gaps between tiny kernels, shown by the page's
    # 120-kernel panel; the d2h-hazard lab (a copy read too early) answers another question
    assert by_id["launch_bound_async"]["live_labs"] == [] and "120 kernels" in by_id["launch_bound_async"]["live_hint"]
    assert by_id["cuda_graph_reduce_overhead"]["live_labs"] == ["reduce_overhead", "partial_capture", "training_step"]
    assert by_id["cuda_graph_reduce_overhead"]["live_page"] == "CUDA_graphs"
    assert set(NEW_LABS[1:]) | {"training_step", "graph_rng"} <= set(by_id["graph_wrong_outputs"]["live_labs"])
    at = open_page("pages/10_Interview.py")
    for _ in range(2):  # to card 3
        at = at.button(key="iv_next").click().run()
    at = at.button(key="iv_reveal").click().run()
    at = at.button(key="lab_run_stream_reuse_iv_caching_allocator").click().run()
    assert not at.exception and any("**Signal seen.**" in w.value for w in at.warning)
    at = at.button(key="iv_next").click().run()
    at = at.button(key="iv_reveal").click().run()
    # card 4's lab exists now: without a GPU it shows the H200 recording (it used to say "not built yet")
    at = at.button(key="lab_run_reduce_overhead_iv_cuda_graph_reduce_overhead").click().run()
    assert not at.exception and "not built yet" not in _text(at)
    assert ":orange-badge[RECORDED]" in _text(at) and "Inputs are copied in for you" in _text(at)


def test_every_interview_lab_is_a_lab():
    from runtime_core.labs import LABS
    for card in json.loads((ROOT / "lessons" / "interview.json").read_text())["cards"]:
        for lab in card.get("live_labs", []):
            assert lab in LABS, lab


def test_cuda_graphs_page_has_the_reduce_overhead_box():
    at = open_page("pages/4_CUDA_graphs.py")
    assert "What the reduce-overhead mode really does" in [s.value for s in at.subheader]
    at = at.button(key="lab_run_reduce_overhead_s4").click().run()
    assert not at.exception
    text = _text(at)
    assert ":orange-badge[RECORDED]" in text and "Inputs are copied in for you" in text
    kernels = next(f for f in tables_of(at) if "reduce-overhead" in f.columns and "our capture" in f.columns)
    assert "ms / token" in list(kernels["per step"]) and "mean kernel event µs" in list(kernels["per step"])
    skips = next(f for f in tables_of(at) if "reason logged" in f.columns)
    assert not any("\\" in v for v in skips["reason logged"])  # a reader sees no Markdown escapes
    # torch's warning says 3 distinct sizes after 4 batches: the page says why, next to it
    assert "Why 3 distinct sizes and not 4 batches" in text and "batches 2, 3 and 4" in text


def test_the_size_warning_is_explained_only_where_the_recording_bears_it_out():
    from pages.ui.ro_lab_panel import warned_sizes
    p = {"batches": [1, 2, 3, 4, 5], "warned_at_batch": 4, "compiled_graphs": 2, "warn_limit": 2,
         "warning": "... We have observed 3 distinct sizes. ..."}
    assert warned_sizes(p)["dynamic"] == "2, 3 and 4"
    assert warned_sizes(dict(p, warning="... We have observed 4 distinct sizes. ...")) is None
    assert warned_sizes(dict(p, compiled_graphs=1)) is None and warned_sizes(dict(p, warning="")) is None


def test_the_reduce_overhead_box_names_what_is_not_recorded_yet(tmp_path, monkeypatch):
    import shutil

    from runtime_core.recordings import store
    for path in (ROOT / "lessons" / "recordings").glob("*.json"):
        if json.loads(path.read_text())["meta"]["kind"] != "reduce_overhead":
            shutil.copy(path, tmp_path)  # everything but the lab's own recording
    monkeypatch.setenv(store.DIR_ENV, str(tmp_path))
    import streamlit as st
    st.cache_data.clear()  # the page caches lab results across runs of this process
    at = open_page("pages/4_CUDA_graphs.py").button(key="lab_run_reduce_overhead_s4").click().run()
    assert not at.exception
    assert "aot reduce-overhead --json --record" in _text(at)  # what is owed, and the command that records it


def test_the_widgets_eager_is_labelled_blocking():
    at = open_page("pages/6_Launch_overhead_killer.py")
    radio = at.radio(key="w_mode")
    assert "eager (blocking: sync after each launch)" in radio.options
    at = radio.set_value("eager").run()
    assert any("Side by side: eager (blocking: sync after each launch)" in m.value for m in at.markdown)


def test_the_decoder_table_calls_its_eager_pytorch_eager_async():
    from runtime_core.aot.tables import decoder_rows
    from runtime_core.recordings import best
    rows = decoder_rows(best("decoder"))
    assert rows[0]["variant"] == "PyTorch eager (async)"
    assert all("eager" not in r["variant"] or r["variant"] == "PyTorch eager (async)" for r in rows)

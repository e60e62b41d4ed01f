"""The caching-allocator page renders beside its lesson, and the OOM button explains itself."""
import json
from pathlib import Path

import pytest
from conftest import open_page
from pages.ui.safe_text import unescape

ROOT = Path(__file__).resolve().parents[1]
PAGE = "pages/3_Caching_allocator.py"


@pytest.fixture
def page():
    return open_page(PAGE)


def test_page_renders_lesson_and_live_panels(page):
    titles = " ".join(t.value for t in page.title)  # the section title comes first, above the columns
    assert "The caching allocator" in titles  # from lessons/03_caching_allocator.md
    subheaders = [s.value for s in page.subheader]
    for title in ("A pool you can poke", "Fragmentation lab: OOM with free memory",
                  "empty_cache() on the hot path", "The lesson-06 plan, realized",
                  "What a buffer costs, measured"):
        assert title in subheaders


def test_oom_button_shows_the_typed_error_and_why(page):
    page.radio(key="alloc_frag_order").set_value("fragmenting")
    page.radio(key="alloc_frag_mode").set_value("default").run()
    at = page.button(key="alloc_oom_button").click().run()
    assert not at.exception, at.exception
    errors = [unescape(e.value) for e in at.error]
    assert any("AllocatorOOM" in e and "2.00 GiB free" in e and "largest free block 512.00 MiB" in e
               for e in errors), errors
    why = " ".join(m.value for m in at.markdown)
    assert "**Why:**" in why and "largest free block is only 512.00 MiB" in why


def test_expandable_segments_let_the_same_request_fit(page):
    page.radio(key="alloc_frag_order").set_value("fragmenting")
    page.radio(key="alloc_frag_mode").set_value("expandable").run()
    at = page.button(key="alloc_oom_button").click().run()
    assert not at.error and any("request fit" in s.value for s in at.success)


def test_playground_state_persists_across_reruns(page):
    at = page.button(key="alloc_pg_malloc").click().run()
    at = at.button(key="alloc_pg_side").click().run()  # free while a side-stream kernel runs
    assert any("awaiting events 1" in c.value for c in at.caption)
    at = at.button(key="alloc_pg_adv").click().run()
    assert any("awaiting events 0" in c.value for c in at.caption)
    assert not at.exception


def test_an_out_of_memory_malloc_keeps_every_button_that_frees_memory(page):
    page.select_slider(key="alloc_pg_size").set_value(12288).run()
    at = page
    for _ in range(6):  # 6 x 12 MiB in a 64 MiB pool: the last one does not fit
        at = at.button(key="alloc_pg_malloc").click().run()
    assert any("out of memory" in e.value.lower() or "oom" in e.value.lower() for e in at.error), [e.value for e in at.error]
    assert any(c.value.startswith("Last: malloc 12,582,912 B failed") for c in at.caption)  # not the one before
    keys = {b.key for b in at.button}
    assert {"alloc_pg_free", "alloc_pg_adv", "alloc_pg_empty", "alloc_pg_side", "alloc_pg_side_norec"} <= keys
    at = at.button(key="alloc_pg_empty").click().run()
    assert not at.error and any("released" in c.value and c.value.startswith("Last:") for c in at.caption)


def test_the_race_stays_on_the_page_in_full_after_the_next_click(page):
    at = page.button(key="alloc_pg_malloc").click().run()
    at = at.button(key="alloc_pg_side_norec").click().run()
    at = at.button(key="alloc_pg_malloc").click().run()  # writes the block the side stream still reads
    at = at.button(key="alloc_pg_adv").click().run()       # the log moves on
    warned = [w.value for w in at.warning if "race detector" in w.value]
    assert len(warned) == 1 and "more characters" not in warned[0] and "caught 1 race so far" in warned[0], warned
    assert any(c.value.startswith("Last: advance") for c in at.caption)


def test_freeing_an_empty_pool_says_there_is_nothing_to_free(page):
    at = page.button(key="alloc_pg_free").click().run()
    assert any("nothing to free" in c.value for c in at.caption)
    at = at.button(key="alloc_pg_side_norec").click().run()
    assert any("nothing to free" in c.value for c in at.caption)


def test_empty_cache_on_a_fresh_pool_tells_no_history_it_never_had(page):
    """empty_cache before any malloc: the pool held nothing, so nothing "went back to the driver"
    and no one-point chart of zeros is drawn."""
    at = page.button(key="alloc_pg_empty").click().run()
    assert not at.exception
    assert not any("went back to the driver" in i.value for i in at.info)
    assert any("The pool holds nothing yet (empty_cache had nothing to give back)" in i.value for i in at.info)
    assert not [c for c in at.get("plotly_chart") if "alloc_pg_mem" in str(c.proto.id) + str(getattr(c, "key", ""))]


def test_pytorchs_own_allocator_is_shown_beside_ours_from_the_recording():
    """The corrections issue: record_stream reuse, empty_cache and memory_stats, measured on
    torch.cuda's allocator (not our CachingPool) and shown without a GPU."""
    from conftest import open_page, tables_of
    at = open_page("pages/3_Caching_allocator.py")
    assert "PyTorch's own allocator, beside ours" in [s.value for s in at.subheader]
    tables = tables_of(at)
    reuse = next(t for t in tables if "next allocation got its block" in t.columns)
    assert list(reuse["safe"]) == ["NO: the new owner can overwrite it first", "yes"]
    empty = next(t for t in tables if "memory_reserved (MiB)" in t.columns)
    before, after = (float(x) for x in empty["memory_reserved (MiB)"])
    assert after < before and len(set(empty["memory_allocated (MiB)"])) == 1
    counters = next(t for t in tables if "memory_stats key" in t.columns)
    assert "num_device_alloc" in list(counters["memory_stats key"])
    shown = dict(zip(counters["memory_stats key"], counters["value"]))   # byte counters read in binary units
    assert shown["active_bytes.all.peak"].endswith(("KiB", "MiB", "GiB")) and shown["num_device_alloc"].isdigit()


def test_the_cost_table_does_not_say_pytorch_needs_no_memory(page):
    """PyTorch's row is timed on a cache that earlier allocations warmed: the 0 B it reserves is
    what the loop added, and the table says so instead of a bare "peak reserved 0 B"."""
    from conftest import tables_of
    costs = [t for t in tables_of(page) if "µs per alloc + free" in t.columns]
    assert costs, "the recorded cost table"
    for t in costs:
        torch_row = t[t["allocator"].str.startswith("PyTorch")]
        assert torch_row["memory reserved"].str.endswith("added to a warm cache").all()
        assert "peak reserved" not in t.columns
    assert any("already warm" in c.value for c in page.caption)


def test_the_simulated_comparison_does_not_call_the_simulator_pytorch(page):
    """Pressed on a CPU, the simulated table's row read "PyTorch: SimDevice (simulated)'s own
    allocator … added to a warm cache", under a caption about PyTorch's warm cache."""
    from conftest import tables_of
    at = page.button(key="alloc_measure").click().run()
    sim = [t for t in tables_of(at) if "µs per alloc + free" in t.columns and t["allocator"].str.contains("SimDevice").any()]
    assert sim, "the simulated cost table"
    rows = list(sim[-1]["allocator"])
    assert not any(r.startswith("PyTorch") for r in rows) and any(r.startswith("the device's own buffers") for r in rows)
    assert not sim[-1]["memory reserved"].str.endswith("added to a warm cache").any()
    assert any("The simulator keeps no cache of its own" in c.value for c in at.caption)
    # a zero on the virtual clock says why (it read "0" like a timer that failed, 2026-12-05)
    us = list(sim[-1]["µs per alloc + free"])
    assert any(u == "0 (no driver call)" for u in us) and "0" not in us, us


def test_the_realized_plan_carries_the_cpu_source_badge(page):
    """Numbers measured on this CPU when the page opens wear the CPU badge, like every other
    measured block, not only a grey caption."""
    heads = [s.value for s in page.subheader]
    assert "The lesson-06 plan, realized" in heads
    captions = [c.value for c in page.caption]
    assert any(c.startswith(":violet-badge[CPU]") and "plan built and run on this CPU" in c for c in captions)


def test_the_expandable_tables_say_why_driver_mallocs_read_zero_where_they_first_show():
    """The recorded expandable column reads 0 driver mallocs beside gigabytes reserved: the caption
    just above those tables says expandable segments reserve through virtual-memory calls."""
    from conftest import open_page
    at = open_page("pages/3_Caching_allocator.py")
    intro = next(c.value for c in at.caption if "same allocation orders as the lab" in c.value)
    assert "virtual-memory calls" in intro and "read 0" in intro


def test_empty_cache_says_it_waited_for_parked_blocks_and_start_over_empties_the_pool(page):
    at = page.button(key="alloc_pg_malloc").click().run()
    at = at.button(key="alloc_pg_side").click().run()          # a block parked behind a side-stream kernel
    at = at.button(key="alloc_pg_empty").click().run()
    last = [unescape(c.value) for c in at.caption if c.value.startswith("Last:")]
    assert last and "waited for the side-stream events of 1 parked block first" in last[0], last
    at = at.button(key="alloc_pg_malloc").click().run()
    at = at.button(key="alloc_pg_reset").click().run()
    assert any("allocated 0 B · reserved 0 B · driver mallocs 0" in c.value for c in at.caption)
    assert any("holds nothing yet" in i.value for i in at.info) and not at.exception


def test_after_empty_cache_the_memory_chart_still_shows_reserved_falling_to_zero(page):
    """empty_cache leaves no segment to map, but the event chart is what the button is for:
    it stays, and its last point reads 0 reserved."""
    at = page.button(key="alloc_pg_malloc").click().run()
    at = at.button(key="alloc_pg_free").click().run()
    at = at.button(key="alloc_pg_empty").click().run()
    assert not at.exception
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    mem = [f for f in figs if any(str(t.get("name", "")).startswith("reserved") for t in f["data"])]
    assert mem, "the memory chart is gone after empty_cache"
    reserved = next(t for t in mem[0]["data"] if t["name"].startswith("reserved"))
    assert reserved["y"][-1] == 0 and max(reserved["y"]) > 0
    assert any("no segment now" in i.value for i in at.info)
    assert not any("holds nothing yet" in i.value for i in at.info)


def test_a_one_kib_block_in_a_two_mib_segment_is_drawn_where_it_can_be_seen():
    """The playground at 1 KiB: the block awaiting record_stream's event is 1/2048 of its segment,
    too thin to see at its true width. It is drawn SEEN_SHARE of the map wide (its hover keeps the
    true size), and a caption says so, and names the allocated peak that lies on the memory
    chart's axis against 2 MiB reserved; at 256 KiB nothing is said."""
    from pages.ui import alloc_charts
    from runtime_core.allocator.playground import Playground
    pg = Playground()
    pg.malloc(1024)
    pg.use_on_side_then_free(1000.0, record_stream=True)
    rows = pg.pool.snapshot()
    fig = alloc_charts.block_map(rows)
    extent = max(r["offset_bytes"] + r["size_bytes"] for r in rows)
    scale = alloc_charts.byte_unit(extent)[1]
    waiting = next(t for t in fig.data if t.name == alloc_charts.STATE_LABELS["awaiting_event"])
    assert waiting.x and waiting.x[0] >= alloc_charts.SEEN_SHARE * extent / scale * 0.999
    assert waiting.customdata[0][0] == 1024
    samples = [(i, s.allocated_bytes, s.reserved_bytes, s.what) for i, s in enumerate(pg.pool.timeline(), 1)]
    notes = " ".join(alloc_charts.scale_notes(rows, samples))
    assert "1 block too narrow to see is drawn wider" in notes and "Allocated peaks at 1.00 KiB" in notes, notes
    three = Playground()       # three 1 KiB blocks side by side, inside their segment, not one bar
    for _ in range(3):
        three.malloc(1024)
    spans = alloc_charts.drawn_spans(three.pool.snapshot())
    drawn = sorted(sp for r, sp in zip(three.pool.snapshot(), spans) if r["state"] == "allocated")
    assert len(drawn) == 3 and all(a[0] + a[1] <= b[0] + 1e-6 for a, b in zip(drawn, drawn[1:]))
    assert drawn[-1][0] + drawn[-1][1] <= extent
    assert "3 blocks too narrow to see are drawn wider" in " ".join(alloc_charts.scale_notes(three.pool.snapshot(), []))
    big = Playground()
    big.malloc(256 * 1024)
    assert alloc_charts.scale_notes(big.pool.snapshot(), [(1, 256 << 10, 2 << 20, "m")]) == []


def test_a_snapshot_with_many_small_blocks_keeps_every_block_in_its_place():
    """A 2 MiB segment of eight small allocations and three free gaps, beside 16 and 32 MiB
    segments (PyTorch's snapshot after a training step): the small blocks are widened but stay in
    offset order, lie on nothing, stay inside their segment, and the free gap between them still
    shows. The segments are listed in number order, 2 before 10."""
    from pages.ui import alloc_charts
    mib = 1 << 20
    layout = [(0, 16384, "allocated"), (16384, 4096, "allocated"), (20480, 262144, "allocated"),
              (282624, 1572864, "free"), (1855488, 512, "allocated"), (1856000, 20992, "free"),
              (1876992, 16384, "allocated"), (1893376, 16384, "allocated"), (1909760, 4096, "allocated"),
              (1913856, 4096, "allocated"), (1917952, 179200, "free")]
    assert sum(size for _, size, _ in layout) == 2 * mib
    row = dict(kind="small", stream=0, used_on=[])
    rows = [dict(row, segment=13, offset_bytes=o, size_bytes=n, state=st) for o, n, st in layout]
    rows += [dict(row, segment=g, kind="large", offset_bytes=0, size_bytes=n * mib, state="allocated")
             for g, n in ((10, 16), (2, 32), (1, 16))]
    spans = alloc_charts.drawn_spans(rows)
    seg = [(r, sp) for r, sp in zip(rows, spans) if r["segment"] == 13]
    for (r, (start, width)), (_, (nxt, _w)) in zip(seg, seg[1:]):
        assert width > 0 and abs(start + width - nxt) < 1e-6, (r, start, width, nxt)
    assert seg[0][1][0] == 0 and abs(seg[-1][1][0] + seg[-1][1][1] - 2 * mib) < 1e-6
    for r, (start, width) in seg:
        assert width >= r["size_bytes"] * (1 - alloc_charts.GIVE_SHARE) - 1e-6
        if r["state"] == "allocated":
            assert width >= r["size_bytes"] and width > 8192, (r, width)
    gap = next(sp for r, sp in seg if r["size_bytes"] == 1572864)
    assert gap[1] >= 0.25 * 2 * mib                     # the big free gap still reads as one
    big = [sp for r, sp in zip(rows, spans) if r["segment"] != 13]
    assert big == [(0.0, float(r["size_bytes"])) for r in rows if r["segment"] != 13]  # to scale
    fig = alloc_charts.block_map(rows)
    assert list(fig.layout.yaxis.categoryarray) == [
        "segment 1 (large)", "segment 2 (large)", "segment 10 (large)", "segment 13 (small)"]
    notes = " ".join(alloc_charts.scale_notes(rows, []))
    assert "8 blocks too narrow to see are drawn wider" in notes, notes


def test_the_playground_page_says_what_it_drew_wider():
    at = open_page("pages/3_Caching_allocator.py")
    at.select_slider(key="alloc_pg_size").set_value(1).run()
    at.button(key="alloc_pg_malloc").click().run()
    at.button(key="alloc_pg_side").click().run()
    assert not at.exception
    assert any("too narrow to see is drawn" in c.value for c in at.caption)


def test_the_knobs_outlive_a_visit_to_another_page(page):
    """Pages 2 and 5 kept their knobs across a page switch; page 3 put them back to their defaults
    while its playground pool stayed, so a 256 KiB slider sat beside a pool of 12 MiB blocks."""
    page.select_slider(key="alloc_pg_size").set_value(12288).run()
    page.radio(key="alloc_frag_order").set_value("fragmenting")
    page.radio(key="alloc_frag_mode").set_value("expandable")
    page.toggle(key="alloc_hot_toggle").set_value(False).run()
    page.switch_page("pages/2_Streams_and_async.py").run()
    page.switch_page(PAGE).run()
    assert not page.exception
    assert page.select_slider(key="alloc_pg_size").value == 12288
    assert page.radio(key="alloc_frag_order").value == "fragmenting"
    assert page.radio(key="alloc_frag_mode").value == "expandable"
    assert page.toggle(key="alloc_hot_toggle").value is False

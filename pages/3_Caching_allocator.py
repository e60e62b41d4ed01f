"""§3 The caching allocator: a pool playground, the fragmentation lab, empty_cache on the hot
path, the realized memory plan, and measured costs. UI only: the logic is runtime_core.allocator."""
from pages.ui.torch_alloc_panel import torch_allocator_panel
from pages.ui.common import lesson_columns, metric_row, recordings_of, render_lesson, setup_page, source_badge

import streamlit as st

from pages.ui import alloc_charts, charts, gpu_turn, lab_panels, labs29_panels, tables
from pages.ui.kept_state import keep, restore
from pages.ui.safe_text import esc
from runtime_core.lesson.page_text import text as prose
from runtime_core.allocator import AllocatorOOM, BadAllocSize, fmt_bytes
from runtime_core.allocator import compare, hot_path, labs, plan_report
from runtime_core.allocator.playground import Playground
from runtime_core.allocator.torch_expandable import comparison_per_order

ctx = setup_page("Caching allocator")
state = st.session_state


def playground_panel() -> None:
    st.subheader("A pool you can poke")
    source_badge("simulated", "our caching pool on a simulated 64 MiB device, with simulated streams")
    pg = state.setdefault("alloc_playground", Playground())
    sizes = [1, 4, 64, 256, 1024, 3072, 12288]
    restore("alloc_pg_size", 256, valid=lambda v: v in sizes)  # the knobs outlive a visit to another page
    size_kib = st.select_slider("request size (KiB)", sizes, key="alloc_pg_size")
    keep("alloc_pg_size")
    # every button is drawn before any of them acts: an out-of-memory malloc must not hide the
    # buttons that would free memory
    pressed = []
    with st.container(horizontal=True):  # the buttons wrap onto a new line where the screen is narrow
        if st.button("malloc", key="alloc_pg_malloc", help="allocate on the default stream and write the block"):
            pressed.append(lambda: pg.malloc(size_kib * 1024))
        if st.button("free newest", key="alloc_pg_free",
                     help="free on its own stream: reusable at once, no event (the stream runs in order)"):
            pressed.append(pg.free_newest)
        if st.button("advance 1 ms", key="alloc_pg_adv"):
            pressed.append(lambda: pg.advance(1000.0))
        if st.button("empty_cache", key="alloc_pg_empty"):
            pressed.append(pg.empty_cache)
        if st.button("start over", key="alloc_pg_reset", help="a new, empty pool on a new simulated device"):
            state["alloc_playground"] = pg = Playground()
    st.caption(prose("caching_allocator", "side_stream", kernel_ms=1))
    with st.container(horizontal=True):
        if st.button("with record_stream", key="alloc_pg_side",
                     help="record_stream(side) makes the free wait for an event on the side stream"):
            pressed.append(lambda: pg.use_on_side_then_free(1000.0, record_stream=True))
        if st.button("without record_stream", key="alloc_pg_side_norec",
                     help="the block is reusable at once, and the next malloc writes it before the "
                          "side stream has read it"):
            pressed.append(lambda: pg.use_on_side_then_free(1000.0, record_stream=False))
    races_before = len(pg.races)
    for act in pressed:
        try:
            act()
        except (AllocatorOOM, BadAllocSize) as e:
            st.error(esc(e, max_chars=600))  # quotes the size the student asked for: text, not Markdown
    if len(pg.races) > races_before:  # said where the button was pressed, not only two charts below
        st.error(prose("caching_allocator", "playground_race_now"))
    rows = pg.pool.snapshot()
    samples = [(i, s.allocated_bytes, s.reserved_bytes, s.what) for i, s in enumerate(pg.pool.timeline(), 1)]
    if not any(reserved for _, _, reserved, _ in samples):  # empty_cache on a pool that never held a byte
        samples = []
    if rows:
        charts.show(alloc_charts.block_map(rows, "Block map: segments as rows"), key="alloc_pg_map")
    elif samples:  # emptied: no block to map, but the history shows reserved falling to zero
        st.info(prose("caching_allocator", "playground_emptied"))
    if samples:
        # by event, not by virtual time: malloc and free take none, so a clock axis piles them on one x
        charts.show(alloc_charts.memory_over_time(samples, "Memory, event by event: allocated vs reserved",
                                                  time_axis="pool event, in order (malloc, free, empty_cache)",
                                                  events=True),
                    key="alloc_pg_mem")
        for note in alloc_charts.scale_notes(rows, samples):
            st.caption(note)
    else:
        st.info("The pool holds nothing yet" + (" (empty_cache had nothing to give back)" if pg.pool.timeline() else "")
                + ". Press **malloc**.")
    s = pg.pool.stats()
    st.caption(f"allocated {fmt_bytes(s['allocated_bytes.current'])} · reserved "
               f"{fmt_bytes(s['reserved_bytes.current'])} · driver mallocs {s['num_driver_mallocs']} · "
               f"awaiting events {s['blocks_awaiting_events']}")
    if pg.log:
        st.caption("Last: " + esc(pg.log[-1], max_chars=1000))  # our own message: a race report runs long
    if pg.races:  # the lesson of the side-stream buttons: kept in full for the session
        st.warning(prose("caching_allocator", "playground_race",
                         races=f"{len(pg.races)} race" + ("s" if len(pg.races) != 1 else ""))
                   + esc(pg.races[-1], max_chars=None))


def stream_reuse_panel() -> None:
    st.subheader("Lab: a block reused across streams")
    st.caption("A tensor read late by a side stream is freed on the host, and the next allocation on "
               "the main stream is written at once: without record_stream, and with it.")
    lab_panels.lab_section("stream_reuse", ctx.live, "s3")


def fragmentation_panel() -> None:
    st.subheader("Fragmentation lab: OOM with free memory")
    source_badge("simulated", "our CachingPool, PyTorch's size rules, host memory never touched")
    names = list(labs.ORDERS)
    restore("alloc_frag_order", names[0], valid=lambda v: v in names)
    restore("alloc_frag_mode", "default", valid=lambda v: v in ("default", "expandable"))
    order = st.radio("allocation order", names, format_func=lambda n: labs.ORDERS[n]["label"],
                     key="alloc_frag_order")
    mode = st.radio("segments", ["default", "expandable"], horizontal=True, key="alloc_frag_mode")
    keep("alloc_frag_order")
    keep("alloc_frag_mode")
    result = labs.run_order(order, expandable=mode == "expandable")
    s = result["stats"]
    row = metric_row()
    row.metric("reserved", fmt_bytes(s["reserved_bytes.current"]), width="content")
    row.metric("free (cached)", fmt_bytes(s["free_bytes"]), width="content",
               help="reserved by the pool but not allocated")
    row.metric("largest free block", fmt_bytes(s["largest_free_block_bytes"]), width="content")
    row.metric("fragmentation", f"{s['fragmentation']:.2f}", width="content",
               help="1 - largest free block / free bytes")
    charts.show(alloc_charts.block_map(result["snapshot"], f"After the order ({mode} segments)"), key="alloc_frag_map")
    request = labs.ORDERS[order]["request_bytes"]
    if request is None:
        st.caption("This order shows reserved bytes, not an OOM: compare default and expandable.")
        return
    if st.button(f"request {fmt_bytes(request)} now", key="alloc_oom_button"):
        state["alloc_oom"] = (order, mode, labs.run_order(order, mode == "expandable", request=True))
    shown = state.get("alloc_oom")
    if shown and shown[:2] == (order, mode):
        _explain_request(shown[2], request)


def _explain_request(result: dict, request: int) -> None:
    s = result["stats"]
    if result["oom"] is None:
        st.success(f"The {fmt_bytes(request)} request fit: a free block or a new segment was large enough.")
        return
    st.error(esc(result["oom"], max_chars=600))
    if result["oom_fragmented"]:
        st.markdown(prose("caching_allocator", "oom_why", free=fmt_bytes(s["free_bytes"]), request=fmt_bytes(request),
                         largest=fmt_bytes(s["largest_free_block_bytes"])))


def hot_path_panel() -> None:
    st.subheader("empty_cache() on the hot path")
    source_badge("simulated", prose("caching_allocator", "hot_path_badge", markdown=False))
    restore("alloc_hot_toggle", True, valid=lambda v: isinstance(v, bool))
    every = st.toggle("call empty_cache() every step", key="alloc_hot_toggle")
    keep("alloc_hot_toggle")
    steps = 6
    runs = {flag: hot_path.hot_path_sim(steps=steps, empty_cache_each_step=flag) for flag in (True, False)}
    r = runs[every]
    # Both charts on one time axis, the whole loop: the host frees a step's blocks as soon as it has
    # queued their kernels, so its last sample comes long before the GPU's last kernel ends.
    end = max([r["wall_us"]] + [s[3] for s in r["spans"]])
    samples = [(0.0, 0, 0, "the loop starts")] + r["samples"] + [(end, *r["samples"][-1][1:3], "the loop ends")]
    mem = alloc_charts.memory_over_time(samples, "Reserved bytes go up and down every step" if every
                                        else "Reserved bytes grow in step 1, then stay put")
    mem.update_xaxes(range=[0, end])
    charts.show(mem, key="alloc_hot_mem")
    tl = alloc_charts.host_timeline(r["spans"], "Driver calls before kernels (CPU lane)")
    tl.update_xaxes(range=[0, end])
    charts.show(tl, key="alloc_hot_tl")
    st.caption(prose("caching_allocator", "hot_path_caption", steps=steps, wall_every=f"{runs[True]['wall_us']:.0f}",
                    mallocs_every=runs[True]["driver_mallocs_after_first_step"],
                    wall_kept=f"{runs[False]['wall_us']:.0f}",
                    mallocs_kept=runs[False]["driver_mallocs_after_first_step"]))


@st.cache_data(show_spinner="planning TinyBlock's forward...")
def _plan() -> dict:
    return plan_report.plan_report("cpu")


def plan_panel() -> None:
    st.subheader("The lesson-06 plan, realized")
    p = _plan()
    source_badge("cpu", "the plan built and run on this CPU once per server start: sizes and offsets, "
                        "no timings, so every visit gets the same")
    st.caption(f"{p['model']}: traced with torch.fx, sizes from ShapeProp.")
    charts.show(alloc_charts.plan_layout(p["layout"], p["arena_bytes"]), key="alloc_plan")
    row = metric_row()
    row.metric("sum of buffers", fmt_bytes(p["sum_bytes"]), help=f"{p['buffers']} intermediates", width="content")
    row.metric("plan arena", fmt_bytes(p["arena_bytes"]), width="content")
    row.metric("allocations per step", tables.num(p["allocations_per_step"]), width="content")
    st.caption(prose("caching_allocator", "plan_torch", torch_peak=fmt_bytes(p["torch_peak_allocated_bytes"]),
                    pool_allocated=fmt_bytes(p["caching_pool_peak_allocated_bytes"]),
                    pool_reserved=fmt_bytes(p["caching_pool_peak_reserved_bytes"]), matches=p["output_matches_eager"]))


MEASURE_BYTES = 1 << 20  # the comparison's buffer size
ALLOCATOR_NAMES = {"raw": "raw driver", "torch": "PyTorch", "caching_pool": "our pool", "plan_arena": "plan arena"}


def _cost_table(allocators: dict, simulated: bool = False) -> None:
    """One row per allocator: what it is, its µs per alloc+free pair, its driver calls, its peak.
    On the simulated device the "torch" row is the simulator's own buffers: no PyTorch cache."""
    names = dict(ALLOCATOR_NAMES, torch="the device's own buffers") if simulated else ALLOCATOR_NAMES
    tables.show([{"allocator": f"{names.get(name, name)}: {v['what']}",
                  # the simulator's clock moves only for driver calls: a zero there is that, not a failed timer
                  "µs per alloc + free": tables.num(v["alloc_free_us"])
                  + (" (no driver call)" if simulated and not v["alloc_free_us"] and not v["driver_mallocs_steady"] else ""),
                  "driver mallocs, steady loop": tables.num(v["driver_mallocs_steady"]),
                  "memory reserved": fmt_bytes(v["peak_reserved_bytes"])
                  + (" added to a warm cache" if name == "torch" and not simulated
                     else " added by the loop" if name == "torch" else "")}
                 for name, v in allocators.items()])
    where = sorted({v["measured_on"] for v in allocators.values()})
    st.caption(f"Measured on: {esc(', '.join(where))}. "
               + prose("caching_allocator", "reserved_column_simulated" if simulated else "reserved_column"))


def _request_text(r: dict) -> str:
    if "request_oom" not in r:
        return tables.DASH
    return "OOM" if r["request_oom"] else "fits"


def _expandable_tables(by_order: dict) -> None:
    """Per allocation order, default segments beside expandable ones (one quantity per row)."""
    for order, settings in by_order.items():
        label = settings.get("order") or labs.ORDERS.get(order, {}).get("label", order)
        st.markdown(f"**{esc(label)}**")
        default, expandable = settings.get("default", {}), settings.get("expandable", {})
        both = (default, expandable)
        rows = [("reserved at peak", [fmt_bytes(r.get("reserved_peak_bytes", 0)) for r in both]),
                ("largest free block", [fmt_bytes(r.get("largest_free_block_bytes", 0)) for r in both]),
                ("fragmentation", [tables.num(r.get("fragmentation"), digits=2) for r in both]),
                ("driver mallocs", [tables.num(r.get("num_driver_mallocs")) for r in both])]
        if labs.ORDERS.get(order, {}).get("request_bytes") and any("request_oom" in r for r in both):  # an order that asks
            rows.append(("the final request", [_request_text(r) for r in both]))
        tables.compare("after the order", ["default segments", "expandable segments"], rows)
        notes = [r["error"] for r in both if r.get("error")]
        if notes:
            st.caption(esc("; ".join(notes), max_chars=400))


def cost_panel() -> None:
    st.subheader("What a buffer costs, measured")
    rec, _ = recordings_of("alloc")
    if rec:
        source_badge(rec.meta.source, rec.label())
        recorded = rec.labs["alloc"]
        _cost_table(recorded["allocators"])
        st.caption(prose("caching_allocator", "cost_recorded", file=esc(rec.meta.file)))
        if recorded["expandable"].get("torch"):
            st.caption(prose("caching_allocator", "expandable_intro"))
            _expandable_tables(comparison_per_order(recorded["expandable"]["torch"]))  # each order's own mallocs
    backend = "cuda" if ctx.live else "sim"
    label = ("measure the buffer costs on this GPU (a few seconds)" if ctx.live
             else "run the buffer-cost comparison on the simulated device")
    if st.button(label, key="alloc_measure"):
        from runtime_core.recordings.shipped import get_device
        def measure():
            return compare.measure_allocators(get_device(backend), MEASURE_BYTES)
        costs = (gpu_turn.in_turn(measure, fallback="The recorded table above stands; try again in a moment.")
                 if ctx.live else measure())
        if costs is not None:
            state["alloc_costs"] = costs
    if "alloc_costs" in state:
        if ctx.live:
            source_badge("live", f"{MEASURE_BYTES >> 20} MiB buffers")
        else:
            source_badge("simulated", prose("caching_allocator", "cost_simulated_badge", markdown=False,
                                           size=f"{MEASURE_BYTES >> 20} MiB"))
        _cost_table(state["alloc_costs"], simulated=not ctx.live)
    elif not rec:
        st.info(prose("caching_allocator", "cost_none"))


text_col, live_col = lesson_columns(lesson="03_caching_allocator")
with text_col:
    render_lesson("03_caching_allocator", title=False)
with live_col:
    for panel in (playground_panel, stream_reuse_panel, fragmentation_panel, hot_path_panel, plan_panel, cost_panel):
        panel()
        st.divider()
# PyTorch's own allocator, below both columns and full width: the labs column runs far past the text
torch_allocator_panel(ctx.live)
labs29_panels.page_panels("pages/3_Caching_allocator.py", ctx.live, "s3")

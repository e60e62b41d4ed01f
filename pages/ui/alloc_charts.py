"""Plotly figures for the caching-allocator page, built from plain data (lists and dicts).

Block maps and timelines use go.Bar with base= and orientation="h" (never px.timeline, whose
date axis cannot show bytes or microseconds).
"""
from __future__ import annotations

import plotly.graph_objects as go

from pages.ui import palette as P
from runtime_core.words import count

# Block states: colour and hatch (allocated solid, free hatched /, awaiting an event crossed).
STATE_STYLE = {"allocated": (P.VERMILLION, ""), "free": (P.GREEN, "/"), "awaiting_event": (P.ORANGE, "x")}
STATE_LABELS = {"allocated": "allocated", "free": "free (cached)",
                "awaiting_event": "freed, awaiting stream event"}
SPAN_STYLE = {"cudaMalloc": (P.VERMILLION, ""), "cudaFree": (P.PURPLE, "x"), "cudaLaunchKernel": (P.BLUE, ""),
              "chain_add": (P.GREEN, "")}


REPEAT_PATTERNS = ["", ".", "+", "-"]  # the plan chart's buffers past eight; no state's hatch among them
assert not set(REPEAT_PATTERNS[1:]) & {h for _, h in (*STATE_STYLE.values(), *SPAN_STYLE.values())}


def byte_unit(max_bytes: float) -> tuple[str, float]:
    """The binary unit that keeps numbers readable: ("GiB", 2**30), ("MiB", ...) or ("KiB", ...)."""
    for name, scale in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if max_bytes >= 2 * scale:
            return name, scale
    return "KiB", 1 << 10


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str, height: int) -> go.Figure:
    fig.update_layout(title=title, height=height, barmode="overlay", margin=dict(l=10, r=10, t=50, b=10))
    P.legend_below(fig)  # under the plot: above it, a legend that wraps would climb onto the title
    fig.update_xaxes(title=x_title, automargin=True)
    fig.update_yaxes(title=y_title, automargin=True)
    return fig


SEEN_SHARE = 0.025  # a block narrower than this share of the map is drawn this wide where its segment has room
GIVE_SHARE = 0.5    # the most of its width a block beside a widened one gives up to make that room
DRAW_ORDER = ("free", "allocated", "awaiting_event")


def _segment_key(segment) -> tuple:
    """Segments in number order (2 before 10), whatever type the snapshot gave them."""
    text = str(segment)
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def drawn_spans(rows: list[dict]) -> list[tuple[float, float]]:
    """Where block_map draws each row, as (start, width) in bytes. Each segment is laid out again
    in offset order and keeps its true total width: an allocated or awaiting block narrower than
    SEEN_SHARE of the map is widened to that, and the blocks that were not widened (free ones,
    big ones) give up to GIVE_SHARE of their width, in proportion, to make the room. When they
    cannot give enough, each widened block gets what they can give in proportion to how far
    short of SEEN_SHARE it was. So blocks never lie on each other and never leave their segment,
    and each stays between its true neighbours; a segment with nothing widened is drawn to scale."""
    extent = max((r["offset_bytes"] + r["size_bytes"] for r in rows), default=0)
    least = SEEN_SHARE * extent
    by_segment: dict = {}
    for i, r in enumerate(rows):
        by_segment.setdefault(r["segment"], []).append(i)
    spans: dict = {}
    for members in by_segment.values():
        members.sort(key=lambda i: rows[i]["offset_bytes"])
        size = {i: float(rows[i]["size_bytes"]) for i in members}
        small = [i for i in members if rows[i]["state"] != "free" and size[i] < least]
        wanted = sum(least - size[i] for i in small)
        donors = [i for i in members if i not in small]
        can_give = GIVE_SHARE * sum(size[i] for i in donors)
        given = min(wanted, can_give)
        width = dict(size)
        for i in small:
            width[i] += (least - size[i]) * given / wanted
        for i in donors:
            width[i] -= GIVE_SHARE * size[i] * given / can_give if can_give else 0.0
        cursor = float(rows[members[0]]["offset_bytes"])
        for i in members:
            spans[i] = (cursor, width[i])
            cursor += width[i]
    return [spans[i] for i in range(len(rows))]


def block_map(rows: list[dict], title: str = "Block map") -> go.Figure:
    """Segments as rows, blocks as bars along the offset axis, coloured by state. An allocated or
    awaiting block too small to see (1 KiB in a 2 MiB segment) is drawn wider (drawn_spans; the
    hover keeps its true size and offset, and scale_notes says so, for a caption): the
    record_stream lesson is the one awaiting block.

    rows: CachingPool.snapshot() dicts (segment, kind, offset_bytes, size_bytes, state, stream, ...).
    """
    extent = max((r["offset_bytes"] + r["size_bytes"] for r in rows), default=0)
    unit, scale = byte_unit(extent)
    spans = drawn_spans(rows)
    fig = go.Figure()
    for state in DRAW_ORDER:
        colour, hatch = STATE_STYLE[state]
        mine = [(r, span) for r, span in zip(rows, spans) if r["state"] == state]
        fig.add_trace(go.Bar(
            orientation="h", name=STATE_LABELS[state],
            marker=P.hatched(colour, hatch, line=dict(color="white", width=1)),
            y=[f"segment {r['segment']} ({r['kind']})" for r, _ in mine],
            base=[start / scale for _, (start, _w) in mine], x=[w / scale for _, (_s, w) in mine],
            customdata=[[r["size_bytes"], r["offset_bytes"], r["stream"], ", ".join(r["used_on"]) or "-"]
                        for r, _ in mine],
            hovertemplate=("size %{customdata[0]:,} B<br>offset %{customdata[1]:,} B<br>"
                           "stream %{customdata[2]}<br>also used on %{customdata[3]}<extra></extra>"),
            showlegend=True))
    order = sorted({r["segment"] for r in rows}, key=_segment_key)
    names = {r["segment"]: f"segment {r['segment']} ({r['kind']})" for r in rows}
    fig.update_yaxes(autorange="reversed", categoryorder="array", categoryarray=[names[g] for g in order])
    n_segments = len(order)
    return _layout(fig, title, f"offset in segment ({unit})", "segment", 140 + 40 * max(n_segments, 1))


def scale_notes(rows: list[dict], samples: list) -> list[str]:
    """What the two playground charts draw other than to scale, in words for a caption under them
    (a chart's own titles do not wrap, and are cut on a phone): block_map's blocks widened to be
    seen (drawn_spans: the others in their segment give up width, so blocks sit off their true
    offsets), and an allocated peak that memory_over_time draws on its axis."""
    notes = []
    spans = drawn_spans(rows)
    small = [(r, sp) for r, sp in zip(rows, spans) if r["state"] != "free" and sp[1] > r["size_bytes"]]
    if small:
        notes.append(f"In the block map, {count(len(small), 'block')} too narrow to see "
                     f"{'is' if len(small) == 1 else 'are'} drawn wider (up to {SEEN_SHARE:.1%} of the map's "
                     "width), and the other blocks of their segment narrower (by up to half), so every block "
                     "keeps its order in its segment but not its true offset; hover a block for its true size "
                     "and offset.")
    peak, top = max((s[1] for s in samples), default=0), max((s[2] for s in samples), default=0)
    if 0 < peak < SEEN_SHARE * top:  # 1 KiB against 2 MiB lies on the axis: say what it is
        (unit, scale), (top_unit, top_scale) = byte_unit(peak), byte_unit(top)
        notes.append(f"Allocated peaks at {peak / scale:.2f} {unit}, too little to lift its line off the axis "
                     f"beside {top / top_scale:.2f} {top_unit} reserved.")
    return notes


def memory_over_time(samples: list, title: str, time_axis: str = "virtual time (µs)", events: bool = False) -> go.Figure:
    """Allocated vs reserved bytes; samples are (t_us, allocated_bytes, reserved_bytes, what).
    `events`: x is an event's number (1, 2, ...): whole ticks, a marker per event, half an event
    of room each side so the last one shows."""
    unit, scale = byte_unit(max((s[2] for s in samples), default=0))
    t = [s[0] for s in samples]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=t, y=[s[2] / scale for s in samples], name="reserved (filled, solid line)",
                             line_shape="hv", fill="tozeroy", line=dict(color=P.GREY, width=2)))
    fig.add_trace(go.Scatter(x=t, y=[s[1] / scale for s in samples], name="allocated (dashed line)", line_shape="hv",
                             line=dict(color=P.VERMILLION, width=3, dash="dash"), text=[s[3] for s in samples],
                             hovertemplate="%{y:.2f} " + unit + " after %{text}<extra>allocated</extra>"))
    if events:
        fig.update_traces(mode="lines+markers")
        fig.update_xaxes(dtick=1, range=[0.5, max(t, default=1) + 0.5])
    return _layout(fig, title, time_axis, f"bytes ({unit})", 300)


def host_timeline(spans: list, title: str) -> go.Figure:
    """Driver calls and kernel launches on the CPU lane, kernels on the GPU lane (µs).

    spans: (lane, name, start_us, end_us) tuples.
    """
    fig = go.Figure()
    for name in sorted({s[1] for s in spans}):
        mine = [s for s in spans if s[1] == name]
        colour, hatch = SPAN_STYLE.get(name, (P.GREY, "."))
        fig.add_trace(go.Bar(orientation="h", name=name, y=[s[0].upper() for s in mine],
                             base=[s[2] for s in mine], x=[s[3] - s[2] for s in mine],
                             marker=P.hatched(colour, hatch),
                             hovertemplate=name + ": %{base:.0f} µs + %{x:.0f} µs<extra></extra>"))
    return _layout(fig, title, "virtual time (µs)", "lane", 230)


WHITE_HALO = "0 0 2px white, 0 0 3px white, 0 0 4px white"


def plan_layout(layout: list[dict], arena_bytes: int) -> go.Figure:
    """Each planned buffer as a rectangle: lifetime (node index) across, offset in the arena up."""
    unit, scale = byte_unit(arena_bytes)
    fig = go.Figure()
    for i, b in enumerate(layout):  # each buffer is named on its own rectangle, not told by colour
        span = b["last_use"] - b["first_use"] + 1
        dotted = i >= len(P.CYCLE)  # its name in black on a white halo: over the dots it was hard to read
        label = dict(color=P.BLACK, shadow=WHITE_HALO) if dotted else {}
        fig.add_trace(go.Bar(
            x=[b["first_use"] + span / 2 - 0.5], width=[span * 0.95], base=[b["offset_bytes"] / scale],
            y=[b["nbytes"] / scale], name=b["name"], text=[b["name"]], textposition="inside", insidetextfont=label,
            # past the palette's eight colours a pattern (over the colour) tells a repeated colour
            # apart: dots, never the hatches that mean a block's state on this page ("/" free, "x")
            marker=P.hatched(P.CYCLE[i % len(P.CYCLE)], REPEAT_PATTERNS[(i // len(P.CYCLE)) % len(REPEAT_PATTERNS)],
                             size=5, line=dict(color="white", width=1)),
            hovertemplate=(f"{b['name']}: {b['nbytes']:,} B at offset {b['offset_bytes']:,} B, "
                           f"nodes {b['first_use']}-{b['last_use']}<extra></extra>")))
    fig.add_hline(y=arena_bytes / scale, line=dict(color=P.INK, dash="dash"), annotation_text="arena size",
                  annotation_position="top left")
    return _layout(fig, "The realized plan: one arena, buffers placed by lifetime",
                   "graph node index (lifetime)", f"offset in arena ({unit})", 380)

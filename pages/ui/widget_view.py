"""What page 6 (the launch-overhead widget) shows, as plain data: the source badge, the headline
metrics with their labels, the timeline's choices, spans and title, the tabs and the side-by-side
table with its captions. A pure function of the knobs, the app's context and the numbers of each
source; no streamlit here, so tests call it directly and the page only draws what it returns.

    choices = timeline_choices(shown)           # for the "timeline from" radio
    view = widget_view(k, ctx, shown, src, pick)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pages.ui.safe_text import esc
from runtime_core.knobs import Knobs, mode_label
from runtime_core.lesson.page_text import text as prose
from runtime_core.recordings.lookup import traced_settings


def fmt_us(x: float, like: float | None = None) -> str:
    """A time that fits a metric: 6.0 µs, 720 µs, 2,297 µs, 12.3 ms, 212 ms. `like`: the time shown
    beside it; where that one reads in ms, a time of 1,000 µs or more does too (6.00 ms, not 6,000 µs
    beside 14.8 ms)."""
    if like is not None and 1000 <= abs(x) < 10_000 <= abs(like):
        return f"{x / 1000:,.2f} ms"
    if abs(x) < 100:
        return f"{x:,.1f} µs"
    if abs(x) < 10_000:
        return f"{x:,.0f} µs"
    return f"{x / 1000:,.1f} ms" if abs(x) < 100_000 else f"{x / 1000:,.0f} ms"


@dataclass(frozen=True)
class Metric:
    """One headline metric: what st.metric draws."""

    label: str
    value: str
    delta: str
    help: str


@dataclass(frozen=True)
class Timeline:
    choices: list[str]
    pick: str              # the source drawn (the simulated one when the measured has no spans)
    spans: list[dict]
    title: str
    caption: str = ""      # why the pick changed, or ""


@dataclass(frozen=True)
class SideBySide:
    title: str
    columns: list[str]
    quantities: list[tuple[str, list]]
    captions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WidgetView:
    badge: tuple[str, str]          # (source key, detail)
    tax_line: str                   # the shown point's setting and whole launch tax ("" for the simulator)
    metrics: list[Metric]
    timeline: Timeline
    tabs: list[str]
    side_by_side: SideBySide
    dynamic_hint: str               # "" when the policy panel is shown instead
    files_captions: list[str]
    measured: dict | None           # the measured (or recorded) column's numbers, None if none
    simulated: dict


FALLBACK_CHIP = "textbook (blocking fallback)"  # a chip's words where the seed's model ran eager on a miss


def headline_metrics(numbers: dict, note: str, book: dict) -> list[Metric]:
    """Overhead, wall, driver calls and graph-capture valid, each with the textbook model's value
    at the same setting as its delta. `note` ("recorded at N=120") goes into every label when the
    column was recorded at another setting: the label then says "(recorded point)" only, and the
    line above the metrics (WidgetView.tax_line) names the point, so no label wraps to four lines."""
    at = " (recorded point)" if note else ""  # which point: the view's tax line, once above the metrics
    ovh, calls = numbers["launch_overhead_us"], numbers["driver_calls"]
    # On a shape miss with the fallback policy the textbook column runs eager (blocking), where the
    # measured columns fall back to async: say so in the chip, not only under the side-by-side tab.
    tb = FALLBACK_CHIP if book.get("mode") == "graph" and not book.get("graph_valid", True) else "textbook"
    return [
        Metric(f"launch overhead{at}", fmt_us(max(ovh, 0.0), like=book["launch_overhead_us"]),
               f"{tb} {fmt_us(book['launch_overhead_us'], like=ovh)}",
               "Wall time minus the GPU's busy time: what launching cost on top of the work."
               + ("" if ovh >= 0 else f" Measured wall time is {-ovh:.1f} µs below the GPU busy time, "
                  "which is timed separately in bulk: the overhead is zero within the noise of the two "
                  "measurements.")),
        Metric(f"wall time / step{at}", fmt_us(numbers["wall_us"], like=book["wall_us"]),
               f"{tb} {fmt_us(book['wall_us'], like=numbers['wall_us'])}",
               "From the first launch to the last kernel's end, per step."),
        Metric(f"driver calls{at}", "—" if calls is None else f"{calls:,}", f"{tb} {book['driver_calls']:,}",
               prose("widget", "not_counted") if calls is None else "kernel launches plus graph launches in one step"),
        _graph_valid(numbers, book, at),
    ]


def _graph_valid(numbers: dict, book: dict, at: str) -> Metric:
    """TRUE or FALSE in graph mode; in eager and streams mode nothing was captured, so a dash."""
    if numbers.get("mode", "graph") != "graph":
        return Metric(f"graph valid?{at}", "—", "no graph",
                      prose("widget", "graph_valid_no_graph"))
    return Metric(f"graph valid?{at}", ":green[TRUE]" if numbers["graph_valid"] else ":red[FALSE]",
                  f"textbook {'TRUE' if book['graph_valid'] else 'FALSE'}", prose("widget", "graph_valid_help"))


def result_line(view, note: str = "") -> str:
    """The headline numbers in one line, for a phone: there the knobs stack above the cards, some
    thousand pixels of them, so a knob's change showed nothing on screen. The page draws it under
    the knobs on narrow screens only. `note` is the shown point's off-grid note ("recorded at N=120")."""
    source, detail = view.badge
    nums = ", ".join(f"{m.label.split(' (')[0]} {m.value}" for m in view.metrics[:3])
    where = f"; {note}, not your setting" if note else ""
    return f"Result ({source}, {detail}{where}): {nums}. The cards, timeline and tables follow below."


def own_tax(live: bool, rec, src) -> tuple[float | None, str]:
    """(the GPU's own launch tax, its short name) for the tax line: this GPU's measured floor when
    the shown column is live, else the recording's calibrated tax (None without a recording)."""
    if live:
        return src.live_floor_us(), "this GPU"
    return (rec.meta.intrinsic_tax_us, src.short_device(rec)) if rec else (None, "GPU")


def tax_line(shown, k: Knobs, own_tax_us: float | None, gpu: str, chip_tax_us: float | None = None) -> str:
    """One line under the source badge: the shown point's setting and its whole launch tax (as
    measured, then what it is made of: the GPU's own tax `own_tax_us` and the host work added).
    Off the grid it names the tax the textbook chips use (`chip_tax_us`, at_point's)."""
    d = shown.numbers
    if shown.fallback or own_tax_us is None:
        return ""
    added = float(d.get("extra_tax_us", 0.0))
    parts = {"gpu": esc(gpu), "own": f"{own_tax_us:.4g}", "added": f"{added:g}",
             "total": f"{point_tax_us(d, own_tax_us):.1f}", "asked": f"{k.tax_us:g}"}
    key = "tax_line_added" if added > 0 else "tax_line_own"
    # a graph step makes none of these launches: say so, beside the tax the knob still sets
    # (the added host work is paid once, before the one replay call: graph_executor.py)
    parts["graph"] = (prose("widget", "tax_line_graph_added" if added > 0 else "tax_line_graph", added=f"{added:g}")
                      if str(k.mode) == "graph" and not k.dynamic else "")
    if shown.note:
        return prose("widget", key + "_off_grid", n=d["n"], work=f"{d['work_us']:g}", your_n=k.n,
                     your_work=f"{k.work_us:g}", your_tax=f"{k.tax_us:g}",
                     chip_tax=f"{(k.tax_us if chip_tax_us is None else chip_tax_us):g}", **parts)
    return prose("widget", key, **parts)


TIMELINE_SOURCES = ("measured", "simulated", "textbook model")  # every source a timeline can be drawn from


def timeline_choices(shown) -> list[str]:
    """The sources the timeline can be drawn from: measured (when the measured or recorded column
    has a timeline for this setting: a choice that would draw the simulated one instead is not
    offered), simulated, the textbook model."""
    measured = not shown.fallback and shown.numbers.get("timeline")
    return list(TIMELINE_SOURCES if measured else TIMELINE_SOURCES[1:])


def _badge(k: Knobs, ctx, shown) -> tuple[str, str]:
    d = shown.numbers
    detail = (f"this machine's GPU, measured at {d.get('measured_at', '?')}" if shown.source == "live" else
              f"SimDevice with a {k.tax_us:g} µs launch tax" if shown.fallback else
              f"{ctx.recording.meta.device_name}, {ctx.recording.meta.recorded_at[:10]}")
    return shown.source, detail


def _timeline(k: Knobs, shown, book: dict, sim: dict, pick: str | None, traced: str) -> Timeline:
    choices, d = timeline_choices(shown), shown.numbers
    pick = pick if pick in choices else choices[0]
    spans = {"measured": d.get("timeline") or [], "simulated": sim["timeline"], "textbook model": book["timeline"]}[pick]
    no_measured = "measured" not in choices and not shown.fallback  # measured numbers, but no timeline of them
    caption = prose("widget", "no_recorded_timeline", traced=traced) if no_measured and pick == "simulated" else ""
    n_shown = d["n"] if pick == "measured" else k.n
    step = mode_label(k.mode).split(' (')[0]
    if k.mode == "graph" and k.dynamic:  # the captured graph misses every call: say what ran instead
        step += {"fallback": ", shape missed: ran without the graph", "recapture": ", shape missed: captured again",
                 "bucket": ", shape missed: padded to a bucket"}.get(str(k.policy), "")
    title = f"One step at N={n_shown}: {step} ({pick})" + (
        ": GPU lane as profiled, host spans at their unprofiled cost" if pick == "measured" else "")
    drawn = sum(1 for s in spans if (s["kind"] if isinstance(s, dict) else s.kind) == "kernel")
    if 0 < drawn < n_shown:  # the model and the recordings keep a long step's first kernels only
        title += f"<br>(its first {drawn:,} of {n_shown:,} kernels drawn)"
    return Timeline(choices, pick, spans, title, caption)


def _copy_costs(k: Knobs, sources: dict, columns: list[str]) -> list[float | None]:
    """Per column, what the static-input copy costs: wall on the copy path minus zero-copy (µs)."""
    out = []
    for name in columns:
        fn = sources.get(name)
        a = fn(k.replace(graph_input="copy")) if fn else None
        b = fn(k.replace(graph_input="zero-copy")) if fn else None
        out.append(None if not (a and b) else round(a["wall_us"] - b["wall_us"], 1))
    return out


COPY_ROW = "what the copy into the static input costs (µs): wall with it, less wall with zero-copy"


def _dynamic_hint(k: Knobs, source: str) -> str:
    """What the dynamic-shapes box does here: nothing to invalidate outside graph mode, where a
    recorded step with it ticked is a run of its own (its difference is the host's pace)."""
    if k.mode == "graph":
        return "" if k.dynamic else prose("widget", "dynamic_hint")
    if k.dynamic and source == "recorded":
        return prose("widget", "dynamic_no_graph_recorded")  # it ends by pointing at graph mode
    return prose("widget", "dynamic_hint")


def _valid_cell(k: Knobs, numbers: dict) -> str:
    """The table's graph-capture cell: "—" outside graph mode, as the headline card says."""
    if k.mode != "graph":
        return "— (no graph)"
    return "TRUE" if numbers["graph_valid"] else "FALSE"


def at_point(k: Knobs, shown, own_tax_us: float | None) -> Knobs:
    """The knobs of the point the headline column shows when it is off the reader's setting (its
    textbook chips are for that point): the point's N and work, and, where the point added other
    host work than the knob asks for, the tax that point asked for: the GPU's own plus what it
    added, the tax off_grid_note names ("recorded at tax 14.39 µs"), as the knob at that point
    would have set it. A point off only in N or work keeps the knob's tax, as an exact point does.
    (Never the tax the point measured, which the host's drift moves: on the grid the chips run at
    the knob's tax too.)"""
    if not shown.note:
        return k
    d = shown.numbers
    at = k.replace(n=d["n"], work_us=d["work_us"])
    asked_extra = max(0.0, k.tax_us - (own_tax_us or 0.0))
    if float(d.get("extra_tax_us", 0.0)) == float(asked_extra):
        return at
    return at.replace(tax_us=round((own_tax_us or 0.0) + float(d.get("extra_tax_us", 0.0)), 3))


def point_tax_us(d: dict, own_tax_us: float | None) -> float:
    """A recorded point's whole launch tax: as measured there, else the GPU's own plus what it added."""
    tax = d.get("tax_us")
    return float(tax) if tax is not None else (own_tax_us or 0.0) + float(d.get("extra_tax_us", 0.0))


def _side_by_side(k: Knobs, ctx, shown, src, book: dict, sim: dict, at_shown: Knobs) -> SideBySide:
    d, has_measured = shown.numbers, not shown.fallback
    # off the grid the two columns at the recorded point are marked †, and a caption says where
    # that is: the setting in each header made six columns too wide for a phone
    meas_col = shown.label + (" †" if shown.note else "")
    rows = {"textbook model": book, "simulated": sim}
    calibrated = (lambda kk: src.calibrated(shown.consts, kk.replace(tax_us=shown.eff_tax_us))) if shown.consts else None
    if calibrated:
        rows["calibrated model"] = calibrated(k)
    if has_measured:
        rows[meas_col] = d
    # off the grid, the recorded column is another setting's: the textbook at that setting goes after it
    # (after, so that on a phone the recorded column stays where it was, in the first screen's width)
    book_there = "textbook model †" if (has_measured and shown.note) else None
    if book_there:
        rows[book_there] = src.textbook(at_shown)
    quantities = [("launch overhead (µs)", [r["launch_overhead_us"] for r in rows.values()]),
                  ("wall time / step (µs)", [r["wall_us"] for r in rows.values()]),
                  ("kernel work (µs)", [r["kernel_work_us"] for r in rows.values()]),
                  ("driver calls", [r["driver_calls"] for r in rows.values()]),
                  ("graph-capture valid?", [_valid_cell(k, r) for r in rows.values()])]
    if k.mode == "graph" and not k.dynamic:
        rec = ctx.recording
        extra = max(0.0, k.tax_us - (rec.meta.intrinsic_tax_us or 0.0)) if rec else 0.0
        quantities.append((COPY_ROW, _copy_costs(k, {
            "textbook model": src.textbook, "simulated": src.simulated_numbers, "calibrated model": calibrated,
            **({book_there: lambda kk: src.textbook(at_shown.replace(graph_input=kk.graph_input))} if book_there else {}),
            meas_col: (lambda kk: src.recorded(rec, kk.replace(extra_tax_us=extra)))
            if (rec and shown.source != "live") else None}, list(rows))))
    captions = [prose("widget", "side_by_side")]
    if shown.note:
        captions.append(prose("widget", "off_grid", label=esc(shown.label), note=shown.note))
    if k.missed_shape and k.policy == "fallback":
        captions.append(prose("widget", "fallback"))
    if k.missed_shape and k.policy == "bucket":
        captions.append(prose("widget", "bucket_overhead"))
    fell_back = k.missed_shape and k.policy == "fallback"  # the mode asked for is not what ran
    return SideBySide(f"Side by side: {mode_label(k.mode)}" + (", each shape miss run without the graph" if fell_back else ""),
                      list(rows), quantities, captions)


def widget_view(k: Knobs, ctx, shown, src, pick: str | None = None) -> WidgetView:
    """Everything page 6 shows for knobs `k`.

    Args:
        ctx: the app's context (.live, .recording, .recordings).
        shown: the measured, recorded or simulated column (widget_sources.shown()).
        src: the sources: textbook(k), simulated(k), simulated_numbers(k), calibrated(consts, k)
            and recorded(rec, k), each returning a metrics dict (widget_sources is one).
        pick: the timeline source the reader chose (one of timeline_choices(shown)).
    """
    d, has_measured = shown.numbers, not shown.fallback
    book, sim = src.textbook(k), src.simulated(k)
    traced = esc(traced_settings(ctx.recording)) if ctx.recording else "none"  # a file's words: text
    timeline = _timeline(k, shown, book, sim, pick, traced)
    tabs = ["Side by side", "Dynamic shapes", "Timeline files"]
    if ctx.recording and not ctx.live:
        tabs.append("Model accuracy")
    if len(ctx.recordings) > 1:
        tabs.append("Compare recordings")
    files = [f"The timeline shown above ({timeline.pick}), to open in a spreadsheet or in Perfetto."]
    if timeline.pick == "measured":
        files.append(prose("widget", "measured_timeline"))
    live = shown.source == "live"
    own, gpu = own_tax(live, ctx.recording, src)
    at_shown = at_point(k, shown, own)
    return WidgetView(badge=_badge(k, ctx, shown), tax_line=tax_line(shown, k, own, gpu, at_shown.tax_us), metrics=headline_metrics(d, shown.note, src.textbook(at_shown)),
                      timeline=timeline, tabs=tabs, side_by_side=_side_by_side(k, ctx, shown, src, book, sim, at_shown),
                      dynamic_hint=_dynamic_hint(k, shown.source),
                      files_captions=files, measured=d if has_measured else None, simulated=sim)

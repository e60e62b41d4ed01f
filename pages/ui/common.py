"""Shared page setup: page config, the number-source badge and lesson prose loading.

Every page starts with `ctx = setup_page("Title")`. Lesson prose lives in lessons/*.md and is
rendered with `render_lesson("06_launch_overhead_widget")`.
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from pages.ui.safe_text import esc, md
from runtime_core.engine.device import cuda_available
from runtime_core.lesson import figures
from runtime_core.recordings import Recording, store
from runtime_core.lesson.page_text import text as prose

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"

# Where a number comes from: a coloured badge with its name (Streamlit's Markdown badge, drawn
# in the app's own font, so it reads the same without an emoji font), then what it means.
SOURCE_BADGES = {"live": ("green", "LIVE"), "recorded": ("orange", "RECORDED"), "simulated": ("blue", "SIMULATED"),
                 "model": ("gray", "MODEL"), "cpu": ("violet", "CPU"), "cpu_recorded": ("violet", "CPU, RECORDED")}
SOURCE_MEANINGS = {
    "live": "measured now on this machine's GPU",
    "recorded": "measured earlier on a real GPU, replayed from a shipped recording",
    "simulated": "a discrete-event model of a GPU on a virtual clock",
    "model": "closed-form prediction, not a measurement",
    "cpu": "measured now on this machine's CPU (real, but not a GPU)",
    "cpu_recorded": "measured earlier on a CPU (real, but not a GPU), replayed from a shipped recording",
}


def badge(source: str) -> str:
    """The Markdown badge of a source, e.g. ":orange-badge[RECORDED]"."""
    colour, name = SOURCE_BADGES[source]
    return f":{colour}-badge[{name}]"


SOURCE_LABELS = {k: f"{badge(k)} {SOURCE_MEANINGS[k]}" for k in SOURCE_BADGES}  # Markdown, one line each
# A live or CPU measurement kept on disk and shown again later (the AOT page's): not "now", and on a
# shared server perhaps not this user's press of the button.
SAVED_MEANINGS = {"live": "measured on this machine's GPU at the time below, the last measurement that finished "
                          "(by anyone using this server; press the button to measure afresh)",
                  "cpu": "measured on this machine's CPU (real, but not a GPU) at the time below, the last "
                         "measurement that finished (by anyone using this server; press the button to measure afresh)"}


@dataclass
class PageContext:
    """What a page needs to know about where its numbers come from.

    `recording` is the sweep the widget replays (store.best: complete before partial, a real
    GPU before the simulator); `skipped` names the recording files that failed validation."""

    live: bool
    recording: Recording | None
    skipped: list[str]
    recordings: list[Recording]  # every valid sweep found, best first
    live_switched_off: bool = False  # a GPU is here, but RUNTIME_LIVE=0 asks for recorded numbers

    @property
    def source(self) -> str:
        """"live" with a GPU, else "recorded" (or "simulated" for a simulated sweep) when a
        recording ships, else "simulated"."""
        if self.live:
            return "live"
        return self.recording.meta.source if self.recording else "simulated"

    def recording_label(self) -> str:
        return self.recording.label() if self.recording else "no recording shipped"


@st.cache_resource(show_spinner="Looking for a GPU on this machine (the first page loads torch)…")
def _gpu_present() -> bool:
    return cuda_available()


def recordings_of(kind: str) -> tuple[Recording | None, list[str]]:
    """The best recording of `kind`, and a line for each file that failed validation (the store
    parses each file once per version, so this is cheap on every rerun)."""
    found, skipped = store.scan(kind)
    return max(found, key=store.rank, default=None), skipped


def sweeps() -> tuple[list[Recording], list[str]]:
    """Every valid sweep recording, best first (store.rank), and the files skipped."""
    found, skipped = store.scan("sweep")
    return sorted(found, key=store.rank, reverse=True), skipped


def _start_aot_prebuild(ctx: PageContext) -> None:
    """With RUNTIME_PREBUILD_AOT=1, build the AOT serving packages in the background, once per
    server process (runtime_core/aot/prebuild.py), after the GPU's warm-up where there is one.
    Every page calls this: whichever a first visitor opens starts it."""
    from runtime_core.aot import prebuild
    if not prebuild.enabled() or prebuild.current(_aot_device(ctx)) is not None:
        return
    wait = None
    if ctx.live:
        from pages.ui.widget_sources import live_gpu
        wait = live_gpu().wait_warm
    prebuild.start_from_env(_aot_device(ctx), wait_for=wait)


def _aot_device(ctx: PageContext) -> str:
    """The device the AOT page measures on: the GPU when it is live, else the CPU."""
    return "cuda" if ctx.live else "cpu"


def setup_page(title: str, icon: str = ":material/bolt:", own_url: bool = False) -> PageContext:
    """Configure the page and show, in the sidebar, where this machine's numbers come from and
    which recording is shown (a student can pick any sweep recording the app finds).

    `icon` is the browser tab's icon, a Material icon (":material/bolt:"): it draws without an
    emoji font, and nothing on the page depends on it. `own_url`: the page writes its URL itself
    (knobs.init_from_url and knobs.write_url, which carry the checkpoint's progress); on every
    other page the progress is loaded from and mirrored into the URL here, its junk values
    named in the sidebar."""
    st.set_page_config(page_title=title, page_icon=icon, layout="wide")
    from pages.ui import server_heap
    server_heap.settle()  # after a page's first imports: long-lived objects out of the full GC's way
    from pages.ui import figure_log
    figure_log.reset()  # this run's figures (tests/test_figures_agree.py reads them)
    from runtime_core.lesson.live_gpu import live_enabled
    found, skipped = sweeps()
    gpu, wanted = _gpu_present(), live_enabled()
    ctx = PageContext(live=gpu and wanted, recording=found[0] if found else None, skipped=skipped,
                      recordings=found, live_switched_off=gpu and not wanted)
    if ctx.live:  # warm the GPU in the background on the server's first visit (once per server)
        from pages.ui.widget_sources import live_gpu
        live_gpu().start_warm_up()
    _start_aot_prebuild(ctx)
    with st.sidebar:
        st.html(METRIC_WRAP_CSS + _PHONE_TABLE_CSS + TOUCH_CHART_CSS)
        from pages.ui.nav import sidebar_nav
        sidebar_nav()
        st.divider()
        st.markdown("**Numbers on this machine**")
        st.caption(SOURCE_LABELS[ctx.source])
        if not ctx.live:
            st.caption(prose("app", "sidebar_badges"))
        if ctx.live_switched_off:
            st.caption("This machine has a GPU, but live measuring is switched off for the class "
                       "(RUNTIME_LIVE=0): the numbers are the recording's.")
        if len(found) > 1:
            labels = {r.meta.file: f"{r.label()} ({r.meta.file})" for r in found}
            if st.session_state.get("rec_pick") not in labels:
                st.session_state["rec_pick"] = found[0].meta.file
            st.selectbox("recording shown", list(labels), key="rec_pick", format_func=labels.get,
                         help=prose("app", "recording_pick_help"))
            ctx.recording = next(r for r in found if r.meta.file == st.session_state["rec_pick"])
        elif ctx.recording and not ctx.live:
            st.caption(md("Sweep recording (the machine's constants): {label}", label=ctx.recording_label()))
        from runtime_core.env_check import notices
        for line in notices():  # a junk environment value: what the app uses instead
            st.warning(md("{line}", line=line), icon=":material/warning:")
        for line in skipped:  # names a file and quotes what is in it: shown as text
            st.warning(md("Skipped a recording that failed its check: {line}", line=line), icon=":material/warning:")
        if not own_url:
            from pages.ui import knobs, progress
            for line in progress.pending():  # Markdown with the URL's values escaped
                st.warning(line, icon=":material/warning:")
            for line in knobs.carry_url():  # page 6's knobs survive a reload here too (and the progress)
                st.warning(line, icon=":material/warning:")
    return ctx


# On a phone Streamlit stacks columns in the order they were made: the lesson's prose first, then the
# live panel. A lesson reads in that order; a phone-only link at the top of the prose jumps to the
# labs (on the caching-allocator and CUDA-graphs pages they start some ten thousand pixels down).
PHONE_MAX_WIDTH_PX = 640
# The lesson's pair of columns stacks earlier than Streamlit's own: between 640 and 1200 px (a 1024 px
# projector, or 1280 px zoomed to 125%) the live column, beside the sidebar, was some 250 px wide and
# cut its tables' last column off.
STACK_MAX_WIDTH_PX = 1200  # and up to 1165 px page 4's and 5's tables were still cut (1100 before)
LABS_ANCHOR = "labs-start"
# Stacked, Streamlit gives each column the width of the screen less 24 px, on the left: the cards
# in a column sat off-centre, so the pair's two columns take the full width there.
def stack_css(key: str) -> str:
    """CSS that stacks the columns made in st.container(key=`key`), each full width, up to
    STACK_MAX_WIDTH_PX, and shows the "stacked-only" links there."""
    pair = (f".st-key-{key} > [data-testid=\"stLayoutWrapper\"] > [data-testid=\"stHorizontalBlock\"]",
            f".st-key-{key} > [data-testid=\"stHorizontalBlock\"]")
    return ("<style>.stacked-only { display: none; } @media (max-width: %dpx) {" % STACK_MAX_WIDTH_PX
            + " %s { flex-wrap: wrap !important; }" % ", ".join(pair)
            + " %s { min-width: 100%% !important; width: 100%% !important; flex: 1 1 100%% !important; }"
            % ", ".join(f"{p} > [data-testid=\"stColumn\"]" for p in pair)
            + " .stacked-only { display: block; } }</style>")


def stacked_columns(spec, key: str, **kwargs):
    """st.columns(spec) that stack up to STACK_MAX_WIDTH_PX, not only on a phone (two tables side
    by side in a 640 px main column cut the last one's figures off)."""
    with st.container(key=key):
        cols = st.columns(spec, **kwargs)
    st.html(stack_css(key))
    return cols


_PHONE_PAIR_CSS = stack_css("lesson_split")  # the lesson's pair, stacked up to STACK_MAX_WIDTH_PX


# every page: a metric's label and its chip (delta), and a button's label, wrap onto more lines instead
# of ending in "…" or running out of the button (at 1024 px the checkpoint's Record this result sat in a
# 56 px column); up to STACK_MAX_WIDTH_PX a metric's value is drawn smaller ("28.7 µs" in an 81 px
# column on page 6)
METRIC_WRAP_CSS = """<style>
[data-testid="stMetricLabel"] p, [data-testid="stMetricLabel"] div,
[data-testid="stMetricDelta"], [data-testid="stMetricDelta"] div, [data-testid="stMetricDelta"] p,
[data-testid="stMainBlockContainer"] button p,
[data-testid="stMainBlockContainer"] [data-testid="stPageLink"] a p, [data-testid="stMainBlockContainer"] [data-testid="stPageLink"] a span {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
@media (min-width: %dpx) and (max-width: %dpx) {
  [data-testid="stMetricValue"] { font-size: 1.35rem !important; } }
</style>""" % (PHONE_MAX_WIDTH_PX + 1, STACK_MAX_WIDTH_PX)


# every page, on a phone: tables' cells padded less, so a six-column table (page 6's side by side,
# off the grid) fits 366 px instead of scrolling its last column out of sight
_PHONE_TABLE_CSS = ("<style>@media (max-width: %dpx) { [data-testid=\"stTable\"] :is(th, td) { padding: 0.3rem 0.25rem "
                    "!important; } [data-testid=\"stTable\"] :is(th, td, th *, td *) { font-size: 0.8rem !important; } }"
                    "</style>" % PHONE_MAX_WIDTH_PX)


# every page, on a touch screen with no hover (a phone, a tablet): a finger drawn over a chart scrolls
# the page, as everywhere else on it, instead of zooming the chart (a student scrolling through page
# 3 got stuck zooming its malloc chart). Plotly's drag layer takes no touches there; the legend and
# the toolbar still do, and a chart's double tap no longer resets (nothing zooms it).
TOUCH_CHART_CSS = ("<style>@media (hover: none) and (pointer: coarse) { [data-testid=\"stPlotlyChart\"] "
                   ":is(.draglayer, .nsewdrag, .drag) { pointer-events: none !important; } }</style>")


def phone_link(container, anchor: str, text: str, css_class: str = "phone-only") -> None:
    """A link to `anchor` (an id placed with phone_anchor) shown only where columns stack (a phone;
    css_class "stacked-only": where the lesson's pair stacks, _PHONE_PAIR_CSS)."""
    container.html(f'<p class="{css_class}"><a href="#{anchor}">{html.escape(text)}</a></p>')


def phone_anchor(container, anchor: str) -> None:
    """A target for phone_link (with the CSS that hides such links on a wide screen)."""
    container.html(f'<span id="{anchor}" style="display:block; scroll-margin-top:4.5rem"></span>'
                   + _PHONE_ONLY_CSS)


_PHONE_ONLY_CSS = ("<style>.phone-only { display: none; } @media (max-width: %dpx) "
                   "{ .phone-only { display: block; } }</style>" % PHONE_MAX_WIDTH_PX)


def lesson_title(name: str) -> str | None:
    """The section title of lessons/<name>.md: its first line, when that is a "# " heading."""
    first = lesson_text(name).split("\n", 1)[0]
    return first[2:].strip() if first.startswith("# ") else None


def lesson_columns(spec=(5, 6), lesson: str | None = None, jump: str = "Jump to the labs and measurements ↓"):
    """(prose column, live column), side by side on a wide screen; on a phone one under the other,
    the prose first, which then opens with a link down to the live column, named by `jump`. With
    `lesson`, its section title comes first, above both (render_lesson(lesson, title=False) then
    leaves it out)."""
    if lesson and lesson_title(lesson):
        st.title(render_text(lesson_title(lesson)))
    with st.container(key="lesson_split"):
        text_col, live_col = st.columns(list(spec), gap="large")
    phone_link(text_col, LABS_ANCHOR, jump, css_class="stacked-only")
    phone_anchor(live_col, LABS_ANCHOR)
    st.html(_PHONE_PAIR_CSS)
    return text_col, live_col


def metric_row():
    """A row for metrics (st.metric with width="content"): each as wide as its label and value,
    wrapping onto the next line where the screen is narrow, so none is cut."""
    return st.container(horizontal=True, gap="medium")


def lesson_text(name: str) -> str:
    """The Markdown of lessons/<name>.md (a clear message if the file is missing)."""
    path = LESSONS / f"{name}.md"
    if not path.exists():
        return f"*(lesson text `{path.name}` is missing from lessons/)*"
    return path.read_text(encoding="utf-8")


def render_text(text: str) -> str:
    """Lesson text as Markdown: {{figure}} fields filled from the shipped recordings, citation
    tags turned into small markers (runtime_core/lesson/figures.py)."""
    from pages.ui import figure_log
    figure_log.note_fields(text)
    return figures.render(text)


def render_lesson(name: str, title: bool = True, until: str | None = None, since: str | None = None) -> None:
    """A lesson's Markdown with its figures filled in, and a line naming the source of each
    citation marker it uses. `title=False` leaves out its first "# " heading (lesson_columns drew it).
    `until` / `since` (a heading line, e.g. "## Checklist"): only the text before / from it, so a
    page can show a lesson's last sections full width below its two columns."""
    text = lesson_text(name)
    if not title and lesson_title(name):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    heading = until or since
    if heading:
        cut = text.find(f"\n{heading}\n")
        if until:
            text = text if cut < 0 else text[:cut]
        else:
            text = "" if cut < 0 else text[cut + 1:]
    st.markdown(render_text(text))
    citation_caption(text)


def citations_in(text: str) -> list[str]:
    """The citation markers `text` uses, raw ("[seed]") or as rendered ("‹seed›")."""
    return [k for k in figures.CITATIONS if f"[{k}]" in text or f"‹{k}›" in text]


def citation_caption(text: str) -> None:
    """A line naming the source of each citation marker `text` uses (none: nothing drawn)."""
    used = citations_in(text)
    if used:
        st.caption("Sources: " + " · ".join(f"‹{k}› {figures.CITATIONS[k]}" for k in used))


def lesson_data(name: str) -> dict:
    """lessons/<name>.json, parsed."""
    return json.loads((LESSONS / f"{name}.json").read_text(encoding="utf-8"))


def source_badge(source: str, detail: str = "", saved: bool = False) -> None:
    """A one-line label saying which of the sources a number block comes from.

    `detail` is plain text, shown as typed: it often names a recording's device or file, or a
    measurement's own fields, none of which may render as Markdown. `saved`: a live or CPU
    measurement read back from disk, labelled by when it was made rather than as made now."""
    label = f"{badge(source)} {SAVED_MEANINGS[source]}" if saved else SOURCE_LABELS[source]
    st.caption(label + (f" · {esc(detail, max_chars=600)}" if detail else ""))  # a guard against junk, not a length for prose

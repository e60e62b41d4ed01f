"""The failure-mode labs as page panels: a run button, the numbers with their source, the
verdict, and a chart. The labs themselves are runtime_core/labs/; nothing is computed here."""
from __future__ import annotations

import streamlit as st

import importlib

from pages.ui import charts, gpu_turn, tables
from pages.ui.common import metric_row, recordings_of, source_badge
from pages.ui.safe_text import esc, md
from pages.ui.lab_charts import MALLOC_STYLE, OVERLAP_STYLE, lanes_figure, work_vs_overhead_bars
from pages.ui.timeline_chart import timeline_figure
from runtime_core.knobs import PYTORCH_EAGER_LABEL
from runtime_core.labs import REPLAYS_A_RECORDING, discover, run_lab
from runtime_core.labs import storm as storm_lab
from runtime_core.labs import fusion as fusion_lab
from runtime_core.labs import sync as sync_lab
from runtime_core.lesson.page_text import text as prose
from runtime_core.words import count

state = st.session_state


@st.cache_data(show_spinner=False, max_entries=64)
def _simulated(name: str, params: tuple) -> dict:
    return run_lab(name, "sim", **dict(params))  # deterministic: the same knobs give the same dict


def run(name: str, live: bool, **params) -> dict | None:
    """Run lab `name`: on this machine's GPU when `live`, in this session's turn in the GPU's
    line (None past its cap, after a notice: the caller keeps what it showed), else simulated
    (or, for a lab in REPLAYS_A_RECORDING, its shipped GPU recording)."""
    if not live:
        return _simulated(name, tuple(sorted(params.items())))
    return gpu_turn.in_turn(lambda: run_lab(name, "cuda", **params),
                            fallback="Nothing was run; press the button again in a moment.")


def run_button(name: str, live: bool, key: str) -> dict | None:
    """A "run the lab" button; the result stays on the page (session state) until run again."""
    where = "on this GPU" if live else ("from its recording" if name in REPLAYS_A_RECORDING else "on the simulator")
    words = name.replace("_", "-")  # as the lesson names it: "the output-overwrite lab"
    if st.button(f"run the {words} lab {where}", key=f"lab_run_{name}_{key}", help=discover()[name].summary,
                 icon=":material/play_arrow:", wrap=True):
        with st.spinner(f"running the {words} lab {where}…"):
            r = run(name, live)
        if r is not None:
            state[f"lab_result_{name}"] = r
    return state.get(f"lab_result_{name}")


def recorded(name: str) -> dict | None:
    """Lab `name` as the shipped labs recording measured it on a GPU (labs_*.json), or None (also
    when a field the panel prints as a number holds something else: see `not_numbers`)."""
    return _recorded(name)[0]


def _recorded(name: str) -> tuple[dict | None, list[str]]:
    """(the recorded lab or None, the fields that made it unfit to show)."""
    rec, _ = recordings_of("labs")
    r = rec.labs.get(name) if rec else None
    if not isinstance(r, dict):
        return None, []
    bad = not_numbers(r, _simulated(name, ()))
    return (None, bad) if bad else (dict(r, source=rec.meta.source, device_name=rec.label()), [])


def not_numbers(recorded: dict, simulated: dict, where: str = "") -> list[str]:
    """The fields where the simulated run of a lab holds a number and its recording holds
    something else (None is allowed: not measured). The labs schema types only a lab's name,
    signal and verdict; the panels print the other fields into labels and captions, so a
    recording whose numbers are text (another machine's, possibly links) is not shown."""
    bad = []
    for key, want in simulated.items():
        if key not in recorded or recorded[key] is None:
            continue
        got = recorded[key]
        if isinstance(want, (int, float)) and not isinstance(want, bool):
            if isinstance(got, bool) or not isinstance(got, (int, float)):
                bad.append(where + key)
        elif isinstance(want, dict):
            bad += not_numbers(got, want, f"{where}{key}.") if isinstance(got, dict) else [where + key]
        elif isinstance(want, list) and want and isinstance(want[0], dict):
            if not isinstance(got, list) or not all(isinstance(g, dict) for g in got):
                bad.append(where + key)
            else:
                bad += [b for g in got for b in not_numbers(g, want[0], f"{where}{key}[].")]
    return bad


def show(r: dict, with_recording: bool = True) -> None:
    """Draw a lab result: its source, its numbers, its verdict; under a simulated run, the same
    lab as recorded on a GPU (when a labs recording ships)."""
    if r.get("owed_recording"):  # a lab only a GPU runs, and no recording of it ships: no numbers
        owed_notice(r)
        return
    source_badge(r["source"], r["device_name"])
    renderer(r["lab"])(r)
    verdict = VERDICTS.get(r["lab"], lambda x: x["verdict"])(r)
    # a recording's sentences, whole: the longest (reduce-overhead's) run to about 2,300 characters
    # a CPU run that folds a GPU's run into its panel (compile_cache) names whose verdict this is,
    # or it reads as the folded run's, just above it
    whose = ("This verdict is the CPU run's, whose tables are at the top (the GPU's run is folded just above). "
             if isinstance(r.get("gpu"), dict) and not r["gpu"].get("owed_recording") else "")
    (st.warning if r["signal"] else st.success)(("**Signal seen.** " if r["signal"] else "") + whose
                                                 + esc(verdict, max_chars=4000))
    gpu, bad = _recorded(r["lab"]) if (with_recording and r["source"] == "simulated") else (None, [])
    if gpu:
        title = "The same lab, recorded on a real GPU"
        if "cache_size" in gpu and gpu["cache_size"] != r.get("cache_size", gpu["cache_size"]):
            # the storm lab's slider moves the simulated run only: the recording is one setting
            title += f" with a cache of {gpu['cache_size']} graphs (the slider moves only the simulated run above)"
        with st.expander(title):
            show(gpu, with_recording=False)
    elif bad:
        st.caption(md("The labs recording's run of this lab is not shown: {fields} should hold numbers.",
                      fields=", ".join(bad)))


def owed_notice(r: dict) -> None:
    """What a lab whose recording is owed shows: that it is owed, and the commands that record it."""
    st.info(esc(r["verdict"], max_chars=600), icon=":material/schedule:")
    st.code("\n".join(c for c in (r["record_command"], r.get("merge_command")) if c), language=None, wrap_lines=True)


def _suffix(r: dict) -> str:
    """Chart keys per source: the recorded GPU run drawn under a simulated one needs keys of its own."""
    return f"_{r['source']}"


def _ms(us: float) -> str:
    return f"{us / 1000:,.2f} ms" if us >= 1000 else f"{us:,.1f} µs"


def overlap(r: dict) -> None:
    c = metric_row()
    c.metric("compute only", _ms(r["compute_only_wall_us"]), width="content")
    c.metric("+ pinned copy", _ms(r["pinned_wall_us"]), f"+{_ms(r['pinned_added_us'])}", delta_color="inverse",
             width="content")
    c.metric("+ pageable copy", _ms(r["pageable_wall_us"]), f"+{_ms(r['pageable_added_us'])}",
             delta_color="inverse", width="content")
    timelines = r.get("timelines")
    if timelines:
        end = max(s["end_us"] for t in timelines.values() for s in t)
        lanes = ["cpu", "gpu copy", "gpu compute"]
        for variant in ("pinned", "pageable"):
            charts.show(lanes_figure(timelines[variant], f"{variant} copy + ten matmuls", OVERLAP_STYLE,
                                     lanes, max_us=end), key=f"lab_overlap_{variant}{_suffix(r)}")


def sync(r: dict) -> None:
    n = sync_lab.numbers(r)  # the same strings as the verdict under the panel
    c = metric_row()
    c.metric("µs per step, no sync", n["step"], width="content")
    c.metric("µs per step, sync every step", n["step_with_sync"], f"×{n['slowdown']}", delta_color="inverse",
             width="content")
    c = metric_row()
    c.metric("GPU idle µs per step, no sync", n["idle"], width="content")
    c.metric("GPU idle µs per step, with sync", n["idle_with_sync"], width="content")
    timelines = r.get("timelines")
    if timelines:
        end = max(s["end_us"] for t in timelines.values() for s in t)
        for variant, label in (("no_sync", "no sync"), ("sync", "a sync at the end of every step")):
            fig = timeline_figure(timelines[variant], f"Three steps, {label}")
            fig.update_xaxes(range=[0, end])
            charts.show(fig, key=f"lab_sync_{variant}{_suffix(r)}")


def stale(r: dict) -> None:
    c = metric_row()
    c.metric(f"{PYTORCH_EAGER_LABEL}: the oracle", tables.num(r["expected_value"]), width="content")
    c.metric("replay, input in a fresh buffer", tables.num(r["fresh_buffer_value"]),
             f"max error {tables.num(r['max_abs_err_fresh'])}", delta_color="inverse", width="content")
    c.metric("replay, input copied in", tables.num(r["copied_in_value"]), width="content")
    st.caption(prose("labs", "stale", eager=PYTORCH_EAGER_LABEL, err_fresh=tables.num(r["max_abs_err_fresh"]),
                    err_copied=tables.num(r["max_abs_err_copied"]), static=esc(r["static_address"]),
                    fresh=esc(r["fresh_address"]), numel=r["numel"], n_kernels=r["n_kernels"]))


def storm(r: dict) -> None:
    policies = ("recapture", "bucket")
    rows = [("distinct shapes", "distinct_shapes", tables.num), ("captures", "captures", tables.num),
            ("evictions", "evictions", tables.num), ("capture time", "capture_ms", lambda v: tables.num(v, unit="ms")),
            ("padded work", "wasted_work_pct", lambda v: tables.num(v, unit="%")),
            ("graph pool growth", "pool_growth_mb", lambda v: tables.num(v * 1e6 / 2**20, unit="MiB"))]  # MB stored
    tables.compare("policy on a miss", list(policies),
                   [(label, [fmt(r[p].get(key)) for p in policies]) for label, key, fmt in rows
                    if any(key in r[p] for p in policies)])
    st.caption(f"{count(r['calls'], 'request')} cycling through {count(r['shapes'], 'input size')}; a cache of "
               f"{count(r['cache_size'], 'graph')}; {count(r['n_kernels'], 'kernel')} per graph.")
    largest = tables.num(4 * storm_lab.request_numel(r["shapes"] - 1, r["shapes"]) / 1024, unit="KiB")
    if r.get("backend") == "sim":
        st.caption(prose("labs", "storm_pool_sim", largest=largest))
    elif all(r[p].get("pool_growth_mb") == 0 for p in policies):  # why a GPU's row reads zero
        st.caption(prose("labs", "storm_pool_gpu", largest=largest))


def malloc(r: dict) -> None:
    runs = (r["raw_each_step"], r["pool_kept"])
    tables.compare("allocation", ["driver every step", "pool kept"], [
        ("µs per step", [tables.num(v["per_step_us"]) for v in runs]),
        ("driver mallocs after step 1", [tables.num(v["driver_mallocs_after_first_step"]) for v in runs]),
        ("reserved drops", [tables.num(v["reserved_drops"]) for v in runs])])
    st.caption(prose("labs", "malloc", steps=r["raw_each_step"]["steps"]))
    if "raw_pair_us" in r:
        pooled = (f"one pooled torch.empty: {r['pool_pair_us']:.2g} µs" if r["pool_pair_us"] > 0 else
                  "one pooled allocation: free here, since the simulator prices driver calls only (a real "
                  "torch.empty and its free also cost a few µs of framework time: the caching allocator page "
                  "measures them)")
        st.caption(f"One 1 MiB cudaMalloc+cudaFree pair: {r['raw_pair_us']:.1f} µs; {pooled}.")
    spans = r.get("timelines", {}).get("raw_each_step")
    if spans:
        charts.show(lanes_figure(spans, "Driver every step: calls before each step's kernels",
                                 MALLOC_STYLE, ["cpu", "gpu"], x_title="time since the loop started (µs)"),
                    key=f"lab_malloc_tl{_suffix(r)}")


def fusion(r: dict) -> None:
    charts.show(work_vs_overhead_bars(
        r["rows"], f"{r['n']} kernels of {r['work_us']:g} µs vs {r['fused_n']} fused kernels of "
                   f"{r['fused_work_us']:g} µs"), key=f"lab_fusion_bars{_suffix(r)}")
    st.caption(prose("labs", "fusion", source=r["source"], tax_us=f"{r['tax_us']:.1f}",
                    constants="SimDevice parameters" if r["backend"] == "sim" else "calibrated on this GPU"))


# Labs whose verdict is re-made from the stored numbers (the ones the panel prints).
VERDICTS = {"sync": sync_lab.verdict, "fusion": fusion_lab.verdict, "storm": storm_lab.verdict}

def rows_table(r: dict) -> None:
    """The plainest renderer, for a lab whose result holds `rows` (a list of dicts): one table."""
    tables.show(r["rows"])


def renderer(name: str):
    """The function that draws lab `name`'s numbers: the one its module names in LAB["renderer"]."""
    module, _, function = discover()[name].renderer.partition(":")
    return getattr(importlib.import_module(module), function)


def lab_section(name: str, live: bool, key: str) -> None:
    """A lab's run button and, once run, its result (what every page that hosts a lab shows)."""
    r = run_button(name, live, key)
    if r:
        show(r)

"""The failure-mode labs as page panels: a run button, the numbers with their source, the
verdict, and a chart. The labs themselves are runtime_core/labs/; nothing is computed here."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.ui import bug_lab_panels, ro_lab_panel
from pages.ui.common import recordings_of, source_badge
from pages.ui.lab_charts import MALLOC_STYLE, OVERLAP_STYLE, lanes_figure, work_vs_overhead_bars
from pages.ui.timeline_chart import timeline_figure
from runtime_core.knobs import PYTORCH_EAGER_LABEL
from runtime_core.labs import LABS, REPLAYS_A_RECORDING, run_lab

state = st.session_state


@st.cache_data(show_spinner=False, max_entries=64)
def _simulated(name: str, params: tuple) -> dict:
    return run_lab(name, "sim", **dict(params))  # deterministic: the same knobs give the same dict


def run(name: str, live: bool, **params) -> dict:
    """Run lab `name`: on this machine's GPU when `live` (one GPU user at a time), else simulated
    (or, for a lab in REPLAYS_A_RECORDING, its shipped GPU recording)."""
    if not live:
        return _simulated(name, tuple(sorted(params.items())))
    from runtime_core.engine.measure import GPU_LOCK
    with GPU_LOCK:
        return run_lab(name, "cuda", **params)


def run_button(name: str, live: bool, key: str) -> dict | None:
    """A "run the lab" button; the result stays on the page (session state) until run again."""
    where = "on this GPU" if live else ("from the GPU recording" if name in REPLAYS_A_RECORDING else "on the simulator")
    if st.button(f"▶ run the {name} lab {where}", key=f"lab_run_{name}_{key}", help=LABS[name]):
        with st.spinner(f"running the {name} lab {where}…"):
            state[f"lab_result_{name}"] = run(name, live)
    return state.get(f"lab_result_{name}")


def recorded(name: str) -> dict | None:
    """Lab `name` as the shipped labs recording measured it on a GPU (labs_*.json), or None."""
    rec, _ = recordings_of("labs")
    r = rec.labs.get(name) if rec else None
    return dict(r, source=rec.meta.source, device_name=rec.label()) if r else None


def show(r: dict, with_recording: bool = True) -> None:
    """Draw a lab result: its source, its numbers, its verdict; under a simulated run, the same
    lab as recorded on a GPU (when a labs recording ships)."""
    source_badge(r["source"], r["device_name"])
    SHOW[r["lab"]](r)
    (st.warning if r["signal"] else st.success)(("**Signal seen.** " if r["signal"] else "") + r["verdict"])
    gpu = recorded(r["lab"]) if (with_recording and r["source"] == "simulated") else None
    if gpu:
        with st.expander("The same lab, recorded on a real GPU"):
            _NESTED.append("_recorded")  # its charts need keys of their own
            try:
                show(gpu, with_recording=False)
            finally:
                _NESTED.pop()


_NESTED: list[str] = []


def _suffix() -> str:
    return "".join(_NESTED)


def _ms(us: float) -> str:
    return f"{us / 1000:,.2f} ms" if us >= 1000 else f"{us:,.1f} µs"


def _overlap(r: dict) -> None:
    c = st.columns(3)
    c[0].metric("compute only", _ms(r["compute_only_wall_us"]))
    c[1].metric("+ pinned copy", _ms(r["pinned_wall_us"]), f"+{_ms(r['pinned_added_us'])}", delta_color="inverse")
    c[2].metric("+ pageable copy", _ms(r["pageable_wall_us"]), f"+{_ms(r['pageable_added_us'])}",
                delta_color="inverse")
    timelines = r.get("timelines")
    if timelines:
        end = max(s["end_us"] for t in timelines.values() for s in t)
        lanes = ["cpu", "gpu copy", "gpu compute"]
        for variant in ("pinned", "pageable"):
            st.plotly_chart(lanes_figure(timelines[variant], f"{variant} copy + ten matmuls", OVERLAP_STYLE,
                                         lanes, max_us=end), width="stretch", key=f"lab_overlap_{variant}{_suffix()}")


def _sync(r: dict) -> None:
    c = st.columns(2)
    c[0].metric("µs per step, no sync", f"{r['step_us']:.1f}")
    c[1].metric("µs per step, sync every step", f"{r['step_with_sync_us']:.1f}",
                f"×{r['slowdown']:.2f}", delta_color="inverse")
    c = st.columns(2)
    c[0].metric("GPU idle µs per step, no sync", f"{r['gpu_idle_us_per_step']:.1f}")
    c[1].metric("GPU idle µs per step, with sync", f"{r['gpu_idle_with_sync_us_per_step']:.1f}")
    timelines = r.get("timelines")
    if timelines:
        end = max(s["end_us"] for t in timelines.values() for s in t)
        for variant, label in (("no_sync", "no sync"), ("sync", "a sync at the end of every step")):
            fig = timeline_figure(timelines[variant], f"Three steps, {label}")
            fig.update_xaxes(range=[0, end])
            st.plotly_chart(fig, width="stretch", key=f"lab_sync_{variant}{_suffix()}")


def _stale(r: dict) -> None:
    c = st.columns(3)
    c[0].metric(f"{PYTORCH_EAGER_LABEL}: the oracle", f"{r['expected_value']:g}")
    c[1].metric("replay, input in a fresh buffer", f"{r['fresh_buffer_value']:g}",
                f"max error {r['max_abs_err_fresh']:g}", delta_color="inverse")
    c[2].metric("replay, input copied in", f"{r['copied_in_value']:g}")
    st.caption(f"Max error against {PYTORCH_EAGER_LABEL}: {r['max_abs_err_fresh']:g} with the fresh buffer, "
               f"{r['max_abs_err_copied']:g} with the copy. "
               f"The graph reads its static buffer at {r['static_address']}; the fresh input lives at "
               f"{r['fresh_address']}, an address the recording never saw. Values: the first element of "
               f"each {r['numel']}-element output after {r['n_kernels']} kernels that each add 1.")


def _storm(r: dict) -> None:
    rows = []
    for policy in ("recapture", "bucket"):
        s = r[policy]
        row = {"policy": policy, "shapes": s["distinct_shapes"], "captures": s["captures"],
               "evictions": s["evictions"], "capture ms": s["capture_ms"], "wasted work %": s["wasted_work_pct"]}
        if "pool_growth_mb" in s:
            row["pool growth MB"] = s["pool_growth_mb"]
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"{r['calls']} requests cycling through {r['shapes']} input sizes; a cache of "
               f"{r['cache_size']} graphs; {r['n_kernels']} kernels per graph.")


def _malloc(r: dict) -> None:
    rows = [{"allocation": label, "µs / step": v["per_step_us"],
             "mallocs after step 1": v["driver_mallocs_after_first_step"],
             "reserved drops": v["reserved_drops"]}
            for label, v in (("driver every step", r["raw_each_step"]), ("pool kept", r["pool_kept"]))]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"{r['raw_each_step']['steps']} steps. *Driver every step*: empty_cache() after each step "
               f"hands the segments back, so each step allocates from the driver again. *Reserved drops*: "
               f"how often reserved memory fell (the sawtooth).")
    if "raw_pair_us" in r:
        st.caption(f"One 1 MiB cudaMalloc+cudaFree pair: {r['raw_pair_us']:.1f} µs; "
                   f"one pooled torch.empty: {r['pool_pair_us']:.1f} µs.")
    spans = r.get("timelines", {}).get("raw_each_step")
    if spans:
        st.plotly_chart(lanes_figure(spans, "Driver every step: calls before each step's kernels",
                                     MALLOC_STYLE, ["cpu", "gpu"], x_title="time since the loop started (µs)"),
                        width="stretch", key=f"lab_malloc_tl{_suffix()}")


def _fusion(r: dict) -> None:
    st.plotly_chart(work_vs_overhead_bars(
        r["rows"], f"{r['n']} kernels of {r['work_us']:g} µs vs {r['fused_n']} fused kernels of "
                   f"{r['fused_work_us']:g} µs"), width="stretch", key=f"lab_fusion_bars{_suffix()}")
    st.caption(f"Bars: measured ({r['source']}). Diamonds: the model with the same device's constants "
               f"({'SimDevice parameters' if r['backend'] == 'sim' else 'calibrated on this GPU'}). "
               f"Launch tax {r['tax_us']:.1f} µs.")


SHOW = {"overlap": _overlap, "sync": _sync, "stale": _stale, "storm": _storm, "malloc": _malloc,
        "fusion": _fusion, **bug_lab_panels.SHOW, **ro_lab_panel.SHOW}


def lab_section(name: str, live: bool, key: str) -> None:
    """A lab's run button and, once run, its result (what every page that hosts a lab shows)."""
    r = run_button(name, live, key)
    if r:
        show(r)

"""The "Will graphs help my model?" page's panels: the knobs, the verdict, the variants table, the
accuracy of the predictions and the downloads."""
from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from pages.ui import tables
from pages.ui.common import metric_row
from pages.ui.safe_text import esc
from runtime_core.diagnose.accuracy import TOLERANCE
from runtime_core.diagnose.measure_variants import LABELS, VARIANTS
from runtime_core.diagnose.records import DiagnoseRecording
from runtime_core.diagnose.verdict import because, regime
from runtime_core.engine.trace_export import spans_to_chrome_trace, spans_to_csv
from runtime_core.lesson.page_text import text as prose

MB = 1 << 20


@dataclass
class Setting:
    model: str
    dtype: str
    seq: int | None
    batch: int


def _options_knob(kind, label: str, options: list, key: str, default, **kw):
    """A choice widget whose value is reset to `default` when it is no longer one of `options`."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else options[0]
    return kind(label, options, key=key, **kw)


def knobs(rec: DiagnoseRecording) -> Setting:
    """Model, dtype, shape and batch, each offering only what the recording holds for the others."""
    c1, c2, c3, c4 = st.columns([3, 2, 3, 4])
    models = rec.models()
    model = _options_knob(c1.selectbox, "model", models, "dg_model", models[0],
                          format_func=lambda m: f"{m}: {rec.about(m).get('about', '')}"[:60])
    pts = rec.settings(model)
    dtypes = sorted({p["dtype"] for p in pts}, key=["fp32", "bf16"].index)
    dtype = _options_knob(c2.radio, "dtype", dtypes, "dg_dtype", "fp32", horizontal=True)
    default_seq = rec.default_shape(model)
    seqs = sorted({p.get("seq") for p in pts if p["dtype"] == dtype}, key=lambda s: (s is None, s or 0))
    shape_name = rec.about(model).get("shape_name")
    if shape_name:
        seq = _options_knob(c3.select_slider, esc(shape_name), seqs, "dg_seq", default_seq, disabled=len(seqs) < 2,
                            help="the model's shape knob; shapes other than the default were recorded at batch 1")
    else:
        seq = seqs[0]
        c3.caption(f"{esc(model)} has no shape knob")
    batches = sorted({p["batch"] for p in pts if p["dtype"] == dtype and p.get("seq") == seq})
    batch = _options_knob(c4.select_slider, "batch size", batches, "dg_batch", 1, disabled=len(batches) < 2)
    return Setting(model, dtype, seq, batch)


def verdict(p: dict, source_caption: str) -> None:
    """The verdict first: the call, why, and the numbers that decide it."""
    v = p["verdict"]
    why = because(v["host_dispatch_us"], p["gpu_ops"], p["busy_us"], v["gpu_us"])  # as the code words it now
    (st.success if v["graphs_help"] else st.warning)(f"### {esc(v['headline'])}\n{why}")  # the recording's words
    st.caption(regime(v["launch_bound"], v["host_dispatch_us"], v["gpu_us"]))  # the code's words, old points too
    st.caption(source_caption)
    c = metric_row()
    c.metric("GPU ops per step", f"{p['gpu_ops']}", help=f"{p['kernels']} kernels; {p['driver_calls']} launch calls",
             width="content")
    c.metric("GPU busy / step", _us(p["busy_us"]), width="content",
             help=f"mean {p['kernel_mean_us']:.1f} µs per kernel, spread {p['kernel_p10_us']:.1f}–"
                  f"{p['kernel_p90_us']:.1f} µs (p10–p90)")
    passes = len(p.get("passes") or [None])
    c.metric("host dispatch / step", _us(p["host_dispatch_us"]), width="content",
             help="CPU time to enqueue one step, unprofiled" + (f"; the median of {passes} passes, each timed "
                                                                 "before that pass's steps" if passes > 1 else ""))
    c.metric("GPU idle in eager", f"{100 * p['gpu_idle_share']:.0f}%", width="content")
    c.metric("predicted speedup", f"{p['predicted_graph_speedup']:.2f}x", width="content")
    c.metric("measured speedup", f"{p['measured_graph_speedup']:.2f}x",
             delta=f"{100 * (p['predicted_graph_speedup'] / p['measured_graph_speedup'] - 1):+.0f}% predicted",
             delta_color="off", width="content")


def variants_table(p: dict) -> None:
    """Prediction beside measurement, for every way of running the step measured at this setting."""
    pred = {"eager": p["predicted_eager_us"], "our_graph": p["predicted_graph_us"]}
    measured = {name: v for name in VARIANTS if (v := (p.get("variants") or {}).get(name)) is not None}
    # eager and our graph: the measurement the prediction is judged against (the headline's); the
    # torch variants were timed in a run of their own, beside an eager of that run
    judged = {"eager": (p["eager_us"], 1.0), "our_graph": (p["graph_us"], p["measured_graph_speedup"])}
    later = [name for name in measured if name not in judged]
    # Two narrow tables rather than one wide one: time per step, then what each way costs to set up.
    tables.show([{"variant": LABELS[name], "predicted µs / step": _num(pred.get(name)),
                  "measured µs / step": _num(judged[name][0] if name in judged else v["us"]),
                  "speedup over eager": f"{judged[name][1] if name in judged else v['speedup']:.2f}x"}
                 for name, v in measured.items()])
    if later and "eager" in measured:
        rows = "The last row was" if len(later) == 1 else f"The last {len(later)} rows were"
        st.caption(prose("diagnose", "later_rows", rows=rows, eager=_us(measured["eager"]["us"])))
    setup = [{"variant": LABELS[name],
              "capture or compile": tables.DASH if not v.get("setup_s") else tables.num(v["setup_s"], unit="s"),
              "graph pool": tables.DASH if v.get("pool_bytes") in (None, 0) else tables.num(v["pool_bytes"] / MB, unit="MB")}
             for name, v in measured.items() if v.get("setup_s") or v.get("pool_bytes")]
    if setup:
        st.caption("What each way costs before its first fast step (the others cost nothing up front):")
        tables.show(setup)
    missing = [LABELS[n] for n in VARIANTS if n not in (p.get("variants") or {})]
    if missing:
        st.caption(prose("diagnose", "not_measured", missing="; ".join(missing)))


def accuracy_panel(rec: DiagnoseRecording) -> None:
    """Prediction against measurement over the whole recording, and every miss with its reason."""
    acc = rec.summary().get("accuracy")
    if not acc:
        return
    cross = acc["crossovers"]
    share = "—" if acc["share"] is None else f"{acc['share']:.0%}"
    # the recording's summary is not typed by its schema: its counts are shown as text
    st.markdown(prose("diagnose", "accuracy", tolerance=f"{TOLERANCE:.0%}", within=esc(acc["within"]),
                     eligible=esc(acc["eligible"]), share=share, target=f"{acc['target_share']:.0%}",
                     cross_within=sum(c["within_one_step"] for c in cross.values()), cross_all=len(cross)))
    if acc["misses"]:
        with st.expander(f"Misses, and why ({len(acc['misses'])})"):
            for m in acc["misses"]:
                setting = f"{m['model']}, {m['dtype']}, batch {m['batch']}" + (
                    f", shape {m['seq']}" if m.get("seq") is not None else "")
                st.markdown(f"- **{esc(setting)}**: predicted {m['predicted_speedup']:.2f}x, measured "
                            f"{m['measured_speedup']:.2f}x ({m['error_pct']:.0f}% off). {esc(m['reason'], max_chars=400)}")
    else:
        st.caption(f"No setting missed by more than ±{TOLERANCE:.0%}.")


def downloads(points: list[dict], spans: list, label: str) -> None:
    """The model's sweep as CSV, and the shown step as a Chrome trace (open it in Perfetto)."""
    cols = ["model", "dtype", "batch", "seq", "kernels", "gpu_ops", "busy_us", "host_dispatch_us",
            "predicted_eager_us", "eager_us", "predicted_graph_us", "graph_us", "predicted_graph_speedup",
            "measured_graph_speedup", "graph_pool_bytes", "graph_capture_s"]
    buf = io.StringIO()
    pd.DataFrame([{c: p.get(c) for c in cols} for p in points]).to_csv(buf, index=False)
    row = st.container(horizontal=True)
    row.download_button("sweep as CSV", buf.getvalue(), file_name="diagnose_sweep.csv", mime="text/csv",
                       key="dg_dl_csv")
    row.download_button("timeline as CSV", spans_to_csv(spans), file_name="diagnose_timeline.csv",
                       mime="text/csv", key="dg_dl_tl")
    row.download_button("Perfetto trace of this step", spans_to_chrome_trace(spans, label),
                       file_name="diagnose_trace.json", mime="application/json", key="dg_dl_trace")


def _us(x: float) -> str:
    return f"{x:,.1f} µs" if abs(x) < 100 else f"{x:,.0f} µs"


def _num(x) -> str:
    return tables.num(x)

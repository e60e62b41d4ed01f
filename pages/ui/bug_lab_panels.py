"""Panels of the silent-bug labs (stream reuse and the five CUDA-graph bugs): the numbers each lab
returned, wrong beside right. Nothing is computed here; the labs are runtime_core/labs/."""
from __future__ import annotations

import streamlit as st

from pages.ui import tables
from pages.ui.common import metric_row
from runtime_core.knobs import PYTORCH_EAGER_LABEL
from runtime_core.lesson.page_text import text as prose

_RACE = {True: "race", False: "no race", None: "— (a GPU cannot tell)"}


def stream_reuse(r: dict) -> None:
    runs = (r["without_record_stream"], r["with_record_stream"])
    tables.compare("after the free", ["no record_stream", "record_stream(side)"], [
        ("block state at free", [v["block_state_at_free"] for v in runs]),
        ("next allocation at the same address?", [tables.num(v["same_address_reused"]) for v in runs]),
        ("the side stream read", [tables.num(v["side_stream_read"]) for v in runs]),
        ("it should read", [tables.num(v["expected_value"]) for v in runs]),
        ("race detector", [_RACE[v["race_detected"]] for v in runs])])
    bad = r["without_record_stream"]
    st.caption(prose("labs", "stream_reuse", kib=bad["block_bytes"] // 1024, kernel_ms=f"{bad['side_kernel_us'] / 1000:g}"))
    if bad["races"]:
        st.code(bad["races"][0], language=None, wrap_lines=True)


def output_overwrite(r: dict) -> None:
    c = metric_row()
    c.metric(f"{PYTORCH_EAGER_LABEL}, step 1", tables.num(r["expected_step1_value"]), width="content")
    c.metric("kept step-1 output, after step 2", tables.num(r["kept_reference_value"]),
             f"read {tables.num(r['step1_value_read_at_step1'])} before", delta_color="off", delta_arrow="off", width="content")
    c.metric("clone taken after step 1", tables.num(r["cloned_value"]), width="content")
    same = ("is the graph's static output buffer (the same storage)" if r["kept_is_static_output"]
            else "is not the graph's static output buffer (another storage)")
    st.caption(f"The kept object {same}: step 2's replay ({r['n_kernels']} kernels, input "
               f"{r['second_value']:g}) " + ("wrote it." if r["kept_is_static_output"] else "wrote that buffer, not this one."))


def frozen_scalar(r: dict) -> None:
    c = metric_row()
    c.metric(f"{PYTORCH_EAGER_LABEL}, k = {r['new_k']}", tables.num(r["expected_value"]), width="content")
    c.metric(f"replay captured with k = {r['captured_k']}", tables.num(r["frozen_replay_value"]), width="content")
    c.metric("k in a static buffer", tables.num(r["tensor_input_value"]), width="content")
    c.metric("recaptured for the new k", tables.num(r["recapture_value"]), width="content")
    st.caption(f"Each run starts from {r['start_value']:g} and should add k.")


def broadcast_copy(r: dict) -> None:
    rows = [{"run": f"{PYTORCH_EAGER_LABEL} on the 1-element request", "output elements": r["eager_output_numel"],
             "output sum": r["eager_output_sum"]},
            {"run": "copy_ into the static input, replay", "output elements": r["graph_output_numel"],
             "output sum": r["graph_output_sum"]},
            {"run": "shape guard, then without the graph", "output elements": r["guarded_output_numel"],
             "output sum": r["guarded_output_sum"]}]
    tables.show(rows)
    st.caption(f"A {r['mismatch_numel']}-element request into the {r['captured_numel']}-element static input "
               + ("raised:" if r["mismatch_raises"] else "did not raise."))
    if r["mismatch_raises"]:
        st.code(r["mismatch_error"], language=None, wrap_lines=True)


def unmasked_padding(r: dict) -> None:
    c = metric_row()
    c.metric(f"{PYTORCH_EAGER_LABEL}, {r['valid_rows']} rows", tables.num(r["expected_sum"]), width="content")
    c.metric(f"graph sum over the {r['bucket_rows']}-row bucket", tables.num(r["unmasked_sum"]),
             f"+{tables.num(r['padding_contribution'])} from padding", delta_color="inverse", width="content")
    c.metric(f"sum over the first {r['valid_rows']} rows", tables.num(r["masked_sum"]), width="content")
    st.caption(f"Each padding row started at 0 and held {r['padding_row_value']:g} after the "
               f"{r['n_kernels']} kernels of the region.")


def no_warmup(r: dict) -> None:
    runs = (r["with_warmup"], r["without_warmup"])
    tables.compare("capture", ["after a warm-up", "without warm-up"], [
        ("replays counted", [f"{tables.num(v['replays_counted'])} of {tables.num(r['replays'])}" for v in runs]),
        ("µs per replay", [tables.num(v["replay_us"]) for v in runs]),
        ("correct", [tables.num(v["correct"]) for v in runs])])
    fast, slow = (v["replay_us"] for v in runs)
    st.caption(prose("labs", "no_warmup", init=f"{r['init_kernel_us']:g}", slow=f"{slow:.1f}", fast=f"{fast:.1f}",
                     added=f"{r['init_kernel_us'] + fast:.1f}"))

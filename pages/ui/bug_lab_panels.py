"""Panels of the silent-bug labs (stream reuse and the five CUDA-graph bugs): the numbers each lab
returned, wrong beside right. Nothing is computed here; the labs are runtime_core/labs/."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from runtime_core.knobs import PYTORCH_EAGER_LABEL


def _stream_reuse(r: dict) -> None:
    rows = []
    for key, label in (("without_record_stream", "no record_stream"), ("with_record_stream", "record_stream(side)")):
        v = r[key]
        rows.append({"run": label, "block state at free": v["block_state_at_free"],
                     "next allocation, same address?": v["same_address_reused"],
                     "side stream read": v["side_stream_read"], "should read": v["expected_value"],
                     "race detector": {True: "race", False: "no race", None: "— (a GPU cannot tell)"}[v["race_detected"]]})
    st.dataframe(pd.DataFrame(rows).astype(str), hide_index=True, width="stretch")
    bad = r["without_record_stream"]
    st.caption(f"A {bad['block_bytes'] // 1024} KiB block from our CachingPool, read by the side stream after a "
               f"{bad['side_kernel_us'] / 1000:g} ms kernel, freed by the host before that. A block freed on "
               "its own stream is reusable at once (the stream runs in order); only streams named with "
               "record_stream get an event.")
    if bad["races"]:
        st.code(bad["races"][0], language=None)


def _output_overwrite(r: dict) -> None:
    c = st.columns(3)
    c[0].metric(f"{PYTORCH_EAGER_LABEL}, step 1", f"{r['expected_step1_value']:g}")
    c[1].metric("kept step-1 output, after step 2", f"{r['kept_reference_value']:g}",
                f"read {r['step1_value_read_at_step1']:g} before", delta_color="off")
    c[2].metric("clone taken after step 1", f"{r['cloned_value']:g}")
    st.caption(f"The kept object is the graph's static output buffer ({r['kept_is_static_output']}): "
               f"step 2's replay ({r['n_kernels']} kernels, input {r['second_value']:g}) wrote it.")


def _frozen_scalar(r: dict) -> None:
    c = st.columns(4)
    c[0].metric(f"{PYTORCH_EAGER_LABEL}, k = {r['new_k']}", f"{r['expected_value']:g}")
    c[1].metric(f"replay captured with k = {r['captured_k']}", f"{r['frozen_replay_value']:g}")
    c[2].metric("k in a static buffer", f"{r['tensor_input_value']:g}")
    c[3].metric("recaptured for the new k", f"{r['recapture_value']:g}")
    st.caption(f"Each run starts from {r['start_value']:g} and should add k.")


def _broadcast_copy(r: dict) -> None:
    rows = [{"run": f"{PYTORCH_EAGER_LABEL} on the 1-element request", "output elements": r["eager_output_numel"],
             "output sum": r["eager_output_sum"]},
            {"run": "copy_ into the static input, replay", "output elements": r["graph_output_numel"],
             "output sum": r["graph_output_sum"]},
            {"run": "shape guard, then without the graph", "output elements": r["guarded_output_numel"],
             "output sum": r["guarded_output_sum"]}]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"A {r['mismatch_numel']}-element request into the {r['captured_numel']}-element static input "
               + ("raised:" if r["mismatch_raises"] else "did not raise."))
    if r["mismatch_raises"]:
        st.code(r["mismatch_error"], language=None)


def _unmasked_padding(r: dict) -> None:
    c = st.columns(3)
    c[0].metric(f"{PYTORCH_EAGER_LABEL}, {r['valid_rows']} rows", f"{r['expected_sum']:g}")
    c[1].metric(f"graph sum over the {r['bucket_rows']}-row bucket", f"{r['unmasked_sum']:g}",
                f"+{r['padding_contribution']:g} from padding", delta_color="inverse")
    c[2].metric(f"sum over the first {r['valid_rows']} rows", f"{r['masked_sum']:g}")
    st.caption(f"Each padding row started at 0 and held {r['padding_row_value']:g} after the "
               f"{r['n_kernels']} kernels of the region.")


def _no_warmup(r: dict) -> None:
    rows = [{"capture": label, "counted replays": f"{v['replays_counted']:g} of {r['replays']}",
             "µs per replay": v["replay_us"], "correct": v["correct"]}
            for label, v in (("after a warm-up", r["with_warmup"]), ("without warm-up", r["without_warmup"]))]
    st.dataframe(pd.DataFrame(rows).astype(str), hide_index=True, width="stretch")
    st.caption(f"The module's first call zeroes its counter and runs a {r['init_kernel_us']:g} µs set-up "
               "kernel; without a warm-up that first call is the capture, so every replay repeats it.")


SHOW = {"stream_reuse": _stream_reuse, "output_overwrite": _output_overwrite, "frozen_scalar": _frozen_scalar,
        "broadcast_copy": _broadcast_copy, "unmasked_padding": _unmasked_padding, "no_warmup": _no_warmup}

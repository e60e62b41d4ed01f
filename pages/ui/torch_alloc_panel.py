"""§3's panel on PyTorch's own caching allocator, from the allocator recording's labs.torch_allocator
(runtime_core/allocator/torch_caching.py measured it on a GPU)."""
from __future__ import annotations

import streamlit as st

from pages.ui import tables as ui_tables
from pages.ui.common import recordings_of, source_badge
from runtime_core.allocator import torch_caching as tc

RECORD = "python tests/gpu_runs/corrections_evidence.py OUT.json torch_allocator"


def torch_allocator_panel(live: bool) -> None:
    st.subheader("PyTorch's own allocator, beside ours")
    rec, _ = recordings_of("alloc")
    r = (rec.labs.get("torch_allocator") if rec else None) or None
    if live and st.button("measure torch.cuda's allocator on this GPU (about a second)", key="s3_torch_alloc"):
        st.session_state["s3_torch_alloc"] = tc.measure()
    if st.session_state.get("s3_torch_alloc"):
        r = st.session_state["s3_torch_alloc"]
        source_badge("live", "this machine's GPU")
    elif r:
        source_badge("recorded", rec.label())
    else:
        st.caption("No GPU recording of this panel ships yet. On a machine with CUDA: `" + RECORD + "`.")
        return
    st.markdown("**A block freed while a side stream still uses it** (Tensor.record_stream)")
    ui_tables.show(tc.reuse_rows(r))
    st.markdown("**What torch.cuda.empty_cache() hands back to the driver**")
    ui_tables.show(tc.empty_cache_rows(r))
    st.markdown("**torch.cuda.memory_stats over five training steps of a small MLP** (1024-4096-1024, SGD, "
                "batch 256, from an emptied cache: not the snapshot's model below)")
    ui_tables.show(tc.counter_rows(r))

"""Live GPU work started from a page (a lab, a diagnosis, the allocator comparison) waits in the
GPU's one line (runtime_core/engine/gpu_queue.py), like the widget's measurements: the student
sees their place and an estimate instead of a frozen spinner, and past the line's cap gets a
notice and the page's recorded or simulated numbers instead."""
from __future__ import annotations

import streamlit as st

from runtime_core.engine.gpu_queue import QueueFull, SharedResults, measure_in_turn


def in_turn(fn, fallback: str, shared: SharedResults | None = None, key=None):
    """`fn()`'s result, run in this session's turn on the GPU; None when the line is full, after
    a notice that ends with `fallback` (what the page shows instead). With `shared`, the result
    is kept there under `key` for every session, and one asking for a key being measured waits
    for that result instead of measuring again."""
    line = st.empty()

    def run():
        return measure_in_turn(fn, on_wait=lambda w: line.info(w.describe()))
    try:
        return shared.get_or_make(key, run) if shared is not None else run()
    except QueueFull as e:
        st.info(f"The GPU is busy: {e}. {fallback}")
        return None
    finally:
        line.empty()

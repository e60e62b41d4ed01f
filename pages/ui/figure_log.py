"""The figures a page shows that another page may show too, each noted with what it measures, so a
test can render every page and find a figure that shows two values under one key.

A key is (quantity, model, batch, dtype, harness): two pages may show the decoder's eager step at
6.52 ms (the decoder bench's 50-token loop) and 4.16 ms (the diagnosis's repeated request) only
because their harness differs, and each label says which. The log is this session's latest page
run (setup_page empties it); it holds the unrounded value, so rounding never looks like a conflict.

    note(DECODER_BENCH.at("eager time per step (ms)"), 6.52, "decoder table")
    note_fields(text, "lesson prose")   # the keyed {{fields}} of a text (common.render_text calls it)
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from runtime_core.lesson import figures

LOG = "_figure_log"
REL_TOL = 0.005  # unrounded values from one recording agree exactly; this only absorbs float noise


@dataclass(frozen=True)
class FigureKey:
    quantity: str   # what is counted or timed, with its unit or count kind ("kernel launches per step")
    model: str
    batch: int
    dtype: str
    harness: str    # how it was measured: which loop, which recording

    def at(self, quantity: str) -> "FigureKey":
        return replace(self, quantity=quantity)


DECODER = "decoder (12 layers, width 256)"
DECODER_BENCH = FigureKey("", DECODER, 1, "fp32", "decoder bench (its token loop)")
DIAGNOSIS = FigureKey("", DECODER, 1, "fp32", "diagnosis (one request repeated)")

BENCH_QUANTITY = {"eager": "PyTorch eager time per step (ms)", "our_graph": "our graph time per step (ms)",
                  "raw_graph": "raw torch.cuda.graph time per step (ms)",
                  "reduce_overhead": "reduce-overhead time per step (ms)"}

FIELD_KEYS = {  # the {{fields}} of the prose that name a figure another page shows too
    "decoder.eager_ms_per_token": DECODER_BENCH.at(BENCH_QUANTITY["eager"]),
    "decoder.our_graph_ms_per_token": DECODER_BENCH.at(BENCH_QUANTITY["our_graph"]),
    "decoder.raw_graph_ms_per_token": DECODER_BENCH.at(BENCH_QUANTITY["raw_graph"]),
    "decoder.reduce_overhead_ms_per_token": DECODER_BENCH.at(BENCH_QUANTITY["reduce_overhead"]),
    "decoder.eager_launches_per_token": DECODER_BENCH.at("PyTorch eager kernel launches per step"),
    "decoder.our_graph_speedup": DECODER_BENCH.at("our graph speedup over eager (×)"),
    "decoder.reduce_overhead_speedup": DECODER_BENCH.at("reduce-overhead speedup over eager (×)"),
    "diagnose.decoder_b1_compile_speedup": DIAGNOSIS.at("torch.compile speedup over eager (×)"),
    "diagnose.decoder_b1_reduce_overhead_speedup": DIAGNOSIS.at("reduce-overhead speedup over eager (×)"),
}


def reset() -> None:
    st.session_state[LOG] = []


def note(key: FigureKey, value: float | None, where: str) -> None:
    """Note that this page shows `value` for `key` (in `where`, for the test's message)."""
    if value is not None:
        st.session_state.setdefault(LOG, []).append((key, float(value), where))


def note_fields(text: str, where: str = "prose") -> None:
    """Note every keyed {{field}} of `text` with the value it renders."""
    if "{{" not in text:
        return
    for name in figures.FIELD.findall(text):
        if name in FIELD_KEYS:
            note(FIELD_KEYS[name], figures.value(name), f"{where} {{{{{name}}}}}")


def bench_caption(rec) -> str:
    """The decoder table's harness line: how the bench timed and what it counted."""
    from runtime_core.lesson.page_text import text
    dec = rec.data.get("decoder", {})
    return text("figures", "decoder_bench", blocks=dec.get("blocks", "?"), tokens=dec.get("tokens_per_block", "?"))


def note_decoder_bench(rec, where: str) -> None:
    """The decoder bench's per-variant step times and eager's kernel launches, as a page shows them."""
    variants = {p["variant"]: p for p in rec.data.get("points", [])}
    for name, p in variants.items():
        if name in BENCH_QUANTITY:
            note(DECODER_BENCH.at(BENCH_QUANTITY[name]), p.get("ms_per_token"), where)
    if "eager" in variants:
        note(FIELD_KEYS["decoder.eager_launches_per_token"], variants["eager"].get("launches_per_token"), where)


def conflicts(entries: list[tuple[str, FigureKey, float, str]]) -> list[str]:
    """One line per key shown with two values: (page, key, value, where) entries from every page."""
    by_key: dict[FigureKey, list[tuple[str, float, str]]] = {}
    for page, key, value, where in entries:
        by_key.setdefault(key, []).append((page, value, where))
    out = []
    for key, seen in by_key.items():
        first = seen[0][1]
        if any(abs(v - first) > REL_TOL * max(abs(v), abs(first), 1e-12) for _, v, _ in seen):
            shown = "; ".join(f"{v:g} on {page} ({where})" for page, v, where in seen)
            out.append(f"{key.quantity} · {key.model} · batch {key.batch} · {key.dtype} · {key.harness}: {shown}")
    return out

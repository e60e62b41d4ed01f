"""Failure-mode labs: each runs one of the lesson's failure modes and measures its signal.

    overlap  pinned vs pageable host→device copy beside compute     (overlap.py)
    sync     a .item()-style sync in every step                      (sync.py)
    stale    replaying a graph after writing input to a fresh buffer  (stale.py)
    storm    graph capture against changing shapes: recapture/bucket (storm.py)
    malloc   driver allocation on the hot path vs a kept pool        (malloc.py)
    fusion   fusion cuts launches, not the tax on the rest           (fusion.py)
    stream_reuse     a block reused across streams without record_stream   (stream_reuse.py)
    output_overwrite a graph output kept across replays                    (output_overwrite.py)
    frozen_scalar    a Python value frozen into a captured graph           (frozen_scalar.py)
    broadcast_copy   a broadcasting copy into a graph's static input       (broadcast_copy.py)
    unmasked_padding bucket padding summed into a reduction                (unmasked_padding.py)
    no_warmup        capture without warm-up records one-off work          (no_warmup.py)
    reduce_overhead  what torch.compile(mode="reduce-overhead") really does   (reduce_overhead.py)

Each runs on the SimDevice anywhere and on CUDA when present: `run_lab(name, backend)`
returns a plain dict (see common.py for the keys every lab shares). The labs in
REPLAYS_A_RECORDING need torch.compile on a GPU, which the simulator cannot run: on the
simulator they return a shipped GPU recording instead, labelled "recorded" in `source`.

CLI: python -m runtime_core lab NAME [--backend auto|cuda|sim] [--json]
"""
from __future__ import annotations

import importlib

from ..errors import UsageError

LABS = {
    "overlap": "pinned vs pageable host-to-device copy beside compute",
    "sync": "a sync (.item()) in every step of a tiny loop",
    "stale": "graph replay with the input in a fresh buffer vs copied in",
    "storm": "graph capture against dynamic shapes: recapture vs bucket",
    "malloc": "driver allocation every step vs a kept pool",
    "fusion": "fused kernels in streams mode vs graph replay",
    "stream_reuse": "a tensor used on a side stream, freed and reused without and with record_stream",
    "output_overwrite": "a graph's output kept across replays vs cloned",
    "frozen_scalar": "a Python value frozen at capture vs a value in a static buffer",
    "broadcast_copy": "a one-element input broadcast into a graph's static buffer vs a shape guard",
    "unmasked_padding": "a reduction over a padded bucket vs over the valid rows",
    "no_warmup": "capture without warm-up records one-off work that every replay repeats",
    "reduce_overhead": "torch.compile(mode='reduce-overhead') on the decoder: inputs copied in, outputs "
                       "overwritten, a graph per shape, skips, fewer nodes than our capture",
}
REPLAYS_A_RECORDING = frozenset({"reduce_overhead"})


def run_lab(name: str, backend: str = "auto", **params) -> dict:
    """Run lab `name` on `backend` ("auto", "cuda" or "sim") and return its result dict.

    Raises:
        UsageError: unknown lab, unknown backend, a parameter out of range, or backend "cuda"
            without a CUDA device.
    """
    if name not in LABS:
        raise UsageError(f"unknown lab {name!r}; choose one of {', '.join(LABS)}")
    module = importlib.import_module(f".{name}", __name__)
    return module.run(backend, **params)

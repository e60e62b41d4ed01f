"""Unmasked-padding lab: a reduction over a padded bucket counts the padding rows.

Bucketing serves a request of VALID_ROWS rows with a graph captured for the next power of two
(BUCKET rows): the request is copied into the first rows of the static input, the rest are
zero padding. The captured region runs a chain of N_KERNELS kernels over the whole bucket
(each adds 1, like a bias) and then sums the bucket into one value. Zero padding does not stay
zero: every kernel adds to the padding rows too, so the sum includes (BUCKET - VALID_ROWS) rows
of garbage. The answer is plausible, close to the right one, and wrong; nothing raises.

The fix: reduce over the valid rows only. Here the graph keeps the per-row chain, and the sum
runs after the replay over the first VALID_ROWS rows (dev.view_prefix); a mask input in a static
buffer would do the same inside the graph. One program for both devices (Device contract only:
dev.reduce_sum is one reduction kernel).
"""
from __future__ import annotations

from ..engine.capture import warm_up_and_capture
from ..recordings.shipped import get_device
from ..engine.graph_executor import bucket_numel
from .common import header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="unmasked_padding", summary="a reduction over a padded bucket vs over the valid rows",
           page="pages/4_CUDA_graphs.py", panel="graph_bugs",
           renderer="pages.ui.bug_lab_panels:unmasked_padding", text_key="unmasked_padding")

N_KERNELS = 3        # per-row kernels in the region, each adds 1
VALID_ROWS = 5       # rows in the request
ROW_VALUE = 1.0      # every request row holds this
BUCKET = bucket_numel(VALID_ROWS)  # rows the graph was captured for (the next power of two)


def run(backend: str = "sim") -> dict:
    """Sum over the whole bucket (the bug) vs over the valid rows (the fix) vs eager.

    Returns the header keys plus valid_rows, bucket_rows, n_kernels, expected_sum (PyTorch eager
    on the request's rows), unmasked_sum (the graph's sum over the bucket), padding_row_value
    (what a zero padding row holds after the chain), padding_contribution, masked_sum (the fix),
    signal and verdict.
    """
    dev = get_device(backend)
    static_in, static_sum = dev.new_buffer(BUCKET), dev.new_buffer(1)
    dev.fill(static_in, 0.0)

    def chain():
        for _ in range(N_KERNELS):
            dev.launch_chain_kernel(static_in)

    def chain_then_sum():            # the bug: the reduction covers every row of the bucket
        chain()
        dev.reduce_sum(static_sum, static_in)

    expected = _eager_sum(dev)
    unmasked_graph, _ = warm_up_and_capture(dev, chain_then_sum, pool=dev.new_pool())
    _pad_request_into(dev, static_in)
    unmasked_graph.replay()
    unmasked = dev.read(static_sum)[0]
    rows = dev.read(static_in)

    masked_graph, _ = warm_up_and_capture(dev, chain, pool=dev.new_pool())
    _pad_request_into(dev, static_in)
    masked_graph.replay()
    dev.reduce_sum(static_sum, dev.view_prefix(static_in, VALID_ROWS))  # the fix: valid rows only
    masked = dev.read(static_sum)[0]

    pad_value = rows[-1]
    out = header("unmasked_padding", dev)
    out.update({"valid_rows": VALID_ROWS, "bucket_rows": BUCKET, "n_kernels": N_KERNELS,
                "row_value": ROW_VALUE, "expected_sum": expected, "unmasked_sum": unmasked,
                "padding_row_value": pad_value, "padding_contribution": unmasked - expected,
                "masked_sum": masked, "fix_exact": masked == expected})
    out["signal"] = unmasked != expected and pad_value != 0.0
    out["verdict"] = (f"A request of {VALID_ROWS} rows padded to a bucket of {BUCKET}: the graph's sum over "
                      f"the bucket gave {unmasked:g}, PyTorch eager on the {VALID_ROWS} rows gives "
                      f"{expected:g}. The zero padding rows held {pad_value:g} after the chain (each "
                      f"kernel adds to them too), so {BUCKET - VALID_ROWS} rows added {unmasked - expected:g} "
                      f"to the answer, silently. Summing the first {VALID_ROWS} rows only gave {masked:g}.")
    return out


def _pad_request_into(dev, static_in) -> None:
    """Zero the bucket, then copy the request into its first VALID_ROWS rows (bucket padding)."""
    request = dev.new_buffer(VALID_ROWS)
    dev.fill(request, ROW_VALUE)
    dev.fill(static_in, 0.0)
    dev.copy(static_in, request)


def _eager_sum(dev) -> float:
    """PyTorch eager (async launches, no graph, no padding) on the request, then its sum."""
    x, total = dev.new_buffer(VALID_ROWS), dev.new_buffer(1)
    dev.fill(x, ROW_VALUE)
    for _ in range(N_KERNELS):
        dev.launch_chain_kernel(x)
    dev.reduce_sum(total, x)
    return dev.read(total)[0]

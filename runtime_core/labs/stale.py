"""Stale-input lab: replay a captured graph after putting the new input in the wrong place.

A graph replays its recorded kernels on the recorded addresses. The bug: a new input is
written into a fresh buffer (a new tensor) and the graph is replayed; the graph never reads
that buffer, so it recomputes from whatever its static input buffer still holds. The fix:
copy the new input into the static buffer, then replay (what GraphExecutor does every step).

Both runs go through the device interface, so the same code runs on the SimDevice (whose
buffers hold real numpy data) and on CUDA. The oracle is eager: the same chain launched
kernel by kernel on the new input.
"""
from __future__ import annotations

from ..recordings.shipped import get_device
from ..engine.executors import StreamsExecutor
from ..engine.graph_executor import GraphExecutor
from ..engine.workload import ChainWorkload
from .common import header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="stale", summary="graph replay with the input in a fresh buffer vs copied in",
           page="pages/4_CUDA_graphs.py", panel="stale",
           renderer="pages.ui.lab_panels:stale", text_key="fresh_inputs")

N_KERNELS = 8        # the captured chain: each kernel adds 1, so the output is input + 8
NUMEL = 4096         # elements of the input buffer
FIRST_VALUE = 1.0    # the input the graph was captured with
NEW_VALUE = 3.0      # the next request's input


def run(backend: str = "sim") -> dict:
    """Eager vs replay-with-a-fresh-buffer vs replay-after-copy-in, on one new input.

    Returns the header keys plus expected_value (eager), fresh_buffer_value and
    copied_in_value (first element of each output), max_abs_err_fresh, max_abs_err_copied,
    copied_exact, static_address / fresh_address (hex: the graph reads only the first),
    signal and verdict.
    """
    dev = get_device(backend)
    wl = ChainWorkload(N_KERNELS, 0.0)

    # The oracle: eager dispatch of the same chain on the new input.
    ref = dev.new_buffer(NUMEL)
    dev.fill(ref, NEW_VALUE)
    expected = dev.read(StreamsExecutor(dev, wl).run(ref))

    # Capture once on the first request (warm-up, then capture, as a server does).
    ex = GraphExecutor(dev, wl)
    first = dev.new_buffer(NUMEL)
    dev.fill(first, FIRST_VALUE)
    entry = ex.prepare(first)

    # The bug: the new input goes into a fresh buffer, then the graph is replayed as is.
    fresh = dev.new_buffer(NUMEL)
    dev.fill(fresh, NEW_VALUE)
    entry.graph.replay()
    stale = dev.read(entry.static_in)

    # The fix: GraphExecutor.run copies the input into the static buffer, then replays.
    copied = dev.read(ex.run(fresh))

    err_fresh = max(abs(a - b) for a, b in zip(stale, expected))
    err_copied = max(abs(a - b) for a, b in zip(copied, expected))
    out = header("stale", dev)
    out.update({"n_kernels": N_KERNELS, "numel": NUMEL, "new_input_value": NEW_VALUE,
                "expected_value": expected[0], "fresh_buffer_value": stale[0],
                "copied_in_value": copied[0],
                "max_abs_err_fresh": float(err_fresh), "max_abs_err_copied": float(err_copied),
                "copied_exact": err_copied == 0.0,
                "static_address": hex(entry.static_in.address), "fresh_address": hex(fresh.address)})
    out["signal"] = err_fresh > 0
    out["verdict"] = (f"Replaying after writing the input into a fresh buffer gave {stale[0]:g} "
                      f"instead of {expected[0]:g} (max error {err_fresh:g}), with no error raised; "
                      f"copying it into the static buffer first gave "
                      f"{'an exact match' if err_copied == 0 else f'max error {err_copied:g}'}.")
    return out

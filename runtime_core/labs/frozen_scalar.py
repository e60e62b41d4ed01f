"""Frozen-scalar lab: a Python value read during capture is baked into the graph.

The region "adds k" to its static buffer, where k is a plain Python int on the module: it
launches k chain kernels (+1 each), a Python loop (the same holds for an `if` on a Python
flag). Capture runs that loop once, with k = CAPTURED_K, and records CAPTURED_K kernels. The
caller then sets k = NEW_K and replays: the graph still adds CAPTURED_K. Nothing is re-read,
nothing raises; the replay is simply the old program. (torch.compile guards on Python values
and recompiles; a graph captured by hand, or a value read outside the compiled function, has no
such guard.)

Two fixes, both measured:
    tensor input   k lives in a one-element static buffer that is copied in before every replay,
                   like any input, and the region adds it with one kernel (dev.add): the value
                   is data, so the replay reads the new k.
    recapture      capture again whenever k changes (a guard on the Python value): correct, and
                   a capture per distinct value.
One program for both devices (Device contract only).
"""
from __future__ import annotations

from ..engine.capture import warm_up_and_capture
from ..recordings.shipped import get_device
from .common import header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="frozen_scalar", summary="a Python value frozen at capture vs a value in a static buffer",
           page="pages/4_CUDA_graphs.py", panel="graph_bugs",
           renderer="pages.ui.bug_lab_panels:frozen_scalar", text_key="frozen_python_value")

NUMEL = 1024
START_VALUE = 10.0   # the static buffer before each measured replay
CAPTURED_K = 2       # the Python value at capture time
NEW_K = 5            # the value the caller sets afterwards


class AddK:
    """A region that adds `k` to `buf`; `k` is a Python int read when the region runs."""

    def __init__(self, dev, buf, k: int):
        self.dev, self.buf, self.k = dev, buf, k

    def __call__(self) -> None:
        for _ in range(self.k):              # a Python loop: capture unrolls it once, for this k
            self.dev.launch_chain_kernel(self.buf)


def run(backend: str = "sim") -> dict:
    """Capture with k = CAPTURED_K, set k = NEW_K, replay; then the two fixes.

    Returns the header keys plus captured_k, new_k, start_value, expected_value (PyTorch eager
    with the new k: start + NEW_K), frozen_replay_value (start + CAPTURED_K: the bug),
    tensor_input_value and recapture_value (the fixes), signal and verdict.
    """
    dev = get_device(backend)
    buf = dev.new_buffer(NUMEL)
    dev.fill(buf, START_VALUE)
    step = AddK(dev, buf, CAPTURED_K)
    graph, _ = warm_up_and_capture(dev, step, pool=dev.new_pool())
    step.k = NEW_K                           # the caller changes the Python value...
    frozen = _replay_from(dev, graph, buf)   # ...and the graph never reads it

    expected = _eager(dev, NEW_K)

    # Fix 1: k as data, in a static one-element buffer copied in before each replay.
    k_static = dev.new_buffer(1)
    dev.fill(k_static, float(CAPTURED_K))
    tensor_graph, _ = warm_up_and_capture(dev, lambda: dev.add(buf, k_static), pool=dev.new_pool())
    k_now = dev.new_buffer(1)
    dev.fill(k_now, float(NEW_K))
    dev.copy(k_static, k_now)                # the new k arrives like any input
    tensor_value = _replay_from(dev, tensor_graph, buf)

    # Fix 2: a guard on the Python value: capture again when it changes.
    regraph, _ = warm_up_and_capture(dev, AddK(dev, buf, NEW_K), pool=dev.new_pool())
    recaptured = _replay_from(dev, regraph, buf)

    out = header("frozen_scalar", dev)
    out.update({"captured_k": CAPTURED_K, "new_k": NEW_K, "start_value": START_VALUE, "numel": NUMEL,
                "expected_value": expected, "frozen_replay_value": frozen,
                "tensor_input_value": tensor_value, "recapture_value": recaptured,
                "fix_exact": tensor_value == expected and recaptured == expected})
    out["signal"] = frozen != expected and frozen == START_VALUE + CAPTURED_K
    out["verdict"] = (f"Captured with k = {CAPTURED_K}, then k set to {NEW_K}: the replay still added "
                      f"{CAPTURED_K} ({START_VALUE:g} → {frozen:g}, PyTorch eager gives {expected:g}), "
                      f"with no error. With k in a static buffer copied in before the replay: "
                      f"{tensor_value:g}; recapturing for the new k: {recaptured:g}.")
    return out


def _replay_from(dev, graph, buf) -> float:
    """Reset `buf` to START_VALUE, replay once, return its first value."""
    dev.fill(buf, START_VALUE)
    graph.replay()
    return dev.read(buf)[0]


def _eager(dev, k: int) -> float:
    """PyTorch eager (async launches, no graph) with the current k: the oracle."""
    x = dev.new_buffer(NUMEL)
    dev.fill(x, START_VALUE)
    AddK(dev, x, k)()
    return dev.read(x)[0]

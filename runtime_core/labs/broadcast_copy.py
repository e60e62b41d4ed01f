"""Broadcast-copy lab: copying a wrongly shaped input into a graph's static buffer.

With a graph captured by hand, each request is copied into the static input with
`static_x.copy_(x)`. That copy follows torch's broadcasting rules:
    - a shape that does not broadcast (here: half the captured size) RAISES RuntimeError, so a
      plainly wrong shape is not a silent bug;
    - a shape that does broadcast (here: one element, as when an upstream bug drops the batch
      dimension) is silently spread over the whole static buffer. The replay then returns a
      full-size output of plausible values, every row the same, computed from an input nobody
      sent: eager on the same one-element request returns one element.
The fix: check the request's shape before the copy and serve a mismatch without the graph.
Our GraphExecutor does that with its ShapeGuard (fallback policy): the one-element request runs
without the graph and returns one element with the eager value.

One program for both devices: dev.copy_broadcast is `static.copy_(x)` on a GPU, and the
simulator applies the same rules.
"""
from __future__ import annotations

from ..recordings.shipped import get_device
from ..engine.graph_executor import GraphExecutor
from ..engine.workload import ChainWorkload
from .common import capture_copy_chain, header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="broadcast_copy", summary="a one-element input broadcast into a graph's static buffer vs a shape guard",
           page="pages/4_CUDA_graphs.py", panel="graph_bugs",
           renderer="pages.ui.bug_lab_panels:broadcast_copy", text_key="broadcasting_copy")

N_KERNELS = 3        # kernels in the captured chain, each adds 1
NUMEL = 4096         # the captured (static) input size: the batch the graph was built for
REQUEST_VALUE = 2.0  # the value of the wrongly shaped (one-element) request


def run(backend: str = "sim") -> dict:
    """A one-element request and a half-size request into a graph captured for NUMEL elements.

    Returns the header keys plus captured_numel, request_numel (1), eager_output_numel and
    eager_output_sum (PyTorch eager on the request), graph_output_numel, graph_output_sum and
    graph_rows_all_equal (the silent broadcast), mismatch_numel, mismatch_raises and
    mismatch_error (the non-broadcastable shape), guarded_output_numel / guarded_output_sum /
    guarded_path (the fix: GraphExecutor's shape guard), signal and verdict.
    """
    dev = get_device(backend)
    static_in, static_out, graph = capture_copy_chain(dev, NUMEL, N_KERNELS)

    request = _request(dev, 1)
    eager = _eager(dev, _request(dev, 1))

    # The bug: the copy broadcasts the one element into every row; the replay looks normal.
    dev.copy_broadcast(static_in, request)
    graph.replay()
    rows = dev.read(static_out)

    # A shape that does not broadcast is refused by the copy itself.
    mismatch = _request(dev, NUMEL // 2)
    try:
        dev.copy_broadcast(static_in, mismatch)
        raised, error = False, ""
    except RuntimeError as e:
        raised, error = True, str(e).splitlines()[0][:200]

    # The fix: a shape guard before the copy (GraphExecutor, fallback policy).
    ex = GraphExecutor(dev, ChainWorkload(N_KERNELS, 0.0))
    ex.prepare(_request(dev, NUMEL))
    guarded = dev.read(ex.run(_request(dev, 1)))

    out = header("broadcast_copy", dev)
    out.update({"n_kernels": N_KERNELS, "captured_numel": NUMEL, "request_numel": request.numel,
                "request_value": REQUEST_VALUE,
                "eager_output_numel": len(eager), "eager_output_sum": float(sum(eager)),
                "graph_output_numel": len(rows), "graph_output_sum": float(sum(rows)),
                "graph_rows_all_equal": len(set(rows)) == 1,
                "mismatch_numel": mismatch.numel, "mismatch_raises": raised, "mismatch_error": error,
                "guarded_output_numel": len(guarded), "guarded_output_sum": float(sum(guarded)),
                "guarded_path": str(ex.last.path)})
    out["fix_exact"] = guarded == eager
    out["signal"] = (len(rows) != len(eager) and out["graph_rows_all_equal"] and raised)
    out["verdict"] = (f"A one-element request copied into the {NUMEL}-element static input raised "
                      f"nothing: it was broadcast into every row, and the replay returned {len(rows)} "
                      f"equal, plausible rows summing to {sum(rows):g}, where PyTorch eager returns "
                      f"{len(eager)} element ({sum(eager):g}). A {mismatch.numel}-element request "
                      f"{'raised RuntimeError' if raised else 'did NOT raise'}. With a shape guard "
                      f"before the copy the request ran without the graph: {len(guarded)} element "
                      f"({sum(guarded):g}).")
    return out


def _request(dev, numel: int):
    """A request of `numel` elements holding REQUEST_VALUE."""
    x = dev.new_buffer(numel)
    dev.fill(x, REQUEST_VALUE)
    return x


def _eager(dev, x) -> list[float]:
    """PyTorch eager (async launches, no graph) on the request: the oracle."""
    for _ in range(N_KERNELS):
        dev.launch_chain_kernel(x)
    return dev.read(x)

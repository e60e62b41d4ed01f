"""Warm up, then capture: the one recipe for recording a CUDA graph, on any device.

    graph, out = warm_up_and_capture(dev, fn, pool=dev.new_pool())

Why each step is there:
- Warm-up runs `fn` for real before capture. Lazy initialisation (loading kernels, creating
  library handles, growing the allocator) must not happen inside a capture, or the graph
  records one-off work instead of the steady state.
- Warm-up and capture run on ONE side stream, and that stream first waits for the stream the
  caller was on, which is where the inputs (the static buffers) were written. Without that wait
  the warm-up kernels could read a static input while the copy into it is still running: a race.
  (torch.cuda.make_graphed_callables differs a little: it warms up on a fresh side stream and
  captures on torch.cuda.graph's own stream.) One stream for both matters because some state,
  such as cuBLAS workspaces, is kept per stream; the legacy default stream cannot capture at all.
- Afterwards the caller's stream waits for the side stream, so whatever comes next sees the
  warm-up's writes.
"""
from __future__ import annotations


def warm_up_and_capture(dev, fn, pool=None, warmups: int = 1):
    """Run `fn` `warmups` times on a side stream, then capture one more call of it into a graph.

    Args:
        dev: a device (SimDevice or CudaDevice).
        fn: the region to record; it launches work on the current stream and may return a value
            (for example the static output tensor of a model step).
        pool: the private memory pool the capture allocates from (dev.new_pool()), or None.
        warmups: real runs before the capture (at least 1).
    Returns:
        (graph, out): the replayable graph, and what `fn` returned during the capture.
    """
    side, origin = dev.new_stream(), dev.current_stream()
    dev.wait_stream(side, origin)  # the inputs were written on `origin`: wait for them
    with dev.use_stream(side):
        for _ in range(max(1, warmups)):
            fn()
    held = {}

    def region():
        held["out"] = fn()
    graph = dev.capture(region, pool=pool, stream=side)
    dev.wait_stream(origin, side)
    return graph, held.get("out")

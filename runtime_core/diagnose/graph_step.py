"""Our CUDA-graph capture of a whole model step: the chain's recipe, generalised to any callable.

    graphed = GraphedStep(runner, step)     # static inputs, warm up, capture (engine/capture.py)
    out = graphed(*inputs)                  # copy the inputs in, one replay, the static output

A graph replays fixed addresses, so the step is captured reading *static input buffers* (clones
of the example inputs) and each call first copies its inputs into them. A request smaller than
the captured batch is copied into the first rows (`pad=True`): the rows past it are padding,
work the GPU does for nothing.
"""
from __future__ import annotations

from ..engine.capture import warm_up_and_capture


class GraphedStep:
    """One captured step. Attributes after construction:

        capture_s    host seconds to warm up and capture
        pool_bytes   memory the capture keeps (its private pool), as the runner measures it
        static       the static input buffers; out: the static output (overwritten by each replay)

    Args:
        runner: a SimRunner or CudaRunner (its device captures; it measures the pool).
        step: the model step (a Step of that runner).
        warmups: real runs on the capture stream before the capture.
    """

    def __init__(self, runner, step, warmups: int = 2):
        dev = runner.dev
        self.step = step
        self.static = step.clone_inputs()
        before = runner.reserved_bytes()
        t0 = dev.host_now_us()
        self.graph, self.out = warm_up_and_capture(dev, lambda: step(*self.static), pool=dev.new_pool(),
                                                   warmups=warmups)
        dev.synchronize()
        self.capture_s = (dev.host_now_us() - t0) / 1e6
        self.pool_bytes = runner.graph_pool_bytes(step, before, runner.reserved_bytes())

    def __call__(self, *inputs):
        """Copy `inputs` into the static buffers (a smaller batch into their first rows), replay."""
        for dst, src, batched in zip(self.static, inputs, self.step.batched):
            self.step.copy_into(dst, src, batched)
        self.graph.replay()
        return self.out

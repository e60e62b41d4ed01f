"""The workload of the widget: a chain of N tiny kernels over one input buffer.

Every kernel reads the step's input and writes input + 1 in place, so after a step the buffer
holds x + N, and a change of input shape really changes the work each kernel does. The size of
the buffer is what sets the per-kernel GPU work: the device maps `work_us` to a number of
elements (SimDevice by a rate; CudaDevice by a measured size→time table).
"""
from __future__ import annotations

from dataclasses import dataclass

DYNAMIC_VARIANTS = 8  # distinct shapes a dynamic-shape run cycles through (recapture sees this many)


@dataclass(frozen=True)
class ChainWorkload:
    """N kernels of about `work_us` each.

    Args:
        n: kernels in the chain (≥ 1).
        work_us: requested GPU work per kernel, µs (≥ 0).
    """

    n: int
    work_us: float

    def base_numel(self, dev) -> int:
        return dev.numel_for_work(self.work_us)

    def numel_for_call(self, dev, call: int, dynamic: bool) -> int:
        """Elements of the input of call number `call`; with `dynamic` the shape changes every call.

        Dynamic inputs are a little larger than the base size (by 32·k elements, k = 1..8,
        cycling), so they never match a graph captured at the base size.
        """
        base = self.base_numel(dev)
        if not dynamic:
            return base
        return base + 32 * (call % DYNAMIC_VARIANTS + 1)

    def make_input(self, dev, call: int = 0, dynamic: bool = False):
        """A fresh input buffer for one call, filled with the call number (so outputs differ)."""
        buf = dev.new_buffer(self.numel_for_call(dev, call, dynamic))
        dev.fill(buf, float(call % 5))
        return buf

    def launch(self, dev, buf, spin_us: float = 0.0) -> None:
        """Enqueue the N kernels on the current stream, with `spin_us` of host work before every
        launch (Device.launch_chain)."""
        dev.launch_chain(buf, self.n, spin_us)

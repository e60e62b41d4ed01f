"""A pool CUDA graphs can trust: every replay finds its buffers at the addresses it captured.

A shared caching pool cannot promise that: between two runs other code may take the blocks.
`GraphPool` is private to one captured region. During capture its allocations come from its
own CachingPool and are logged; on replay the same sequence of sizes must come again and each
request gets the logged block back. Frees during replay are no-ops: the graph owns its memory
for as long as it lives (PyTorch keeps a graph's private pool alive the same way).
`cuda_graph_pool_check` shows the same property for torch.cuda.graph with graph_pool_handle().
"""
from __future__ import annotations

from .caching_pool import CachingPool


class GraphReplayMismatch(ValueError):
    """A replay asked for a different allocation sequence than the capture recorded."""


class GraphPool:
    """A private pool: `capture(fn)` once, then `replay(fn)` returns identical blocks.

    Args:
        backend: where the private pool's segments come from.
    `fn` is called with this pool and allocates with pool.malloc(nbytes) / pool.free(block).
    """

    def __init__(self, backend):
        self._pool = CachingPool(backend)
        self._log: list[tuple[int, object]] = []  # (nbytes, block) in capture order
        self._cursor: int | None = None            # None while capturing

    def capture(self, fn) -> list[int]:
        """Run `fn(self)` with a fresh log; return the addresses it was given, in order."""
        if self._log:
            raise RuntimeError("this GraphPool already holds a capture")
        fn(self)
        self._cursor = 0
        return [block.address for _, block in self._log]

    def replay(self, fn) -> list[int]:
        """Run `fn(self)` again; every malloc must match the capture. Return the addresses."""
        if self._cursor is None:
            raise RuntimeError("replay before capture")
        self._cursor = 0
        fn(self)
        if self._cursor != len(self._log):
            raise GraphReplayMismatch(f"replay made {self._cursor} allocations, capture made "
                                      f"{len(self._log)}")
        return [block.address for _, block in self._log]

    def malloc(self, nbytes: int, stream=None):
        if self._cursor is None:  # capturing: a real allocation from the private pool
            block = self._pool.malloc(nbytes, stream)
            self._log.append((nbytes, block))
            return block
        if self._cursor >= len(self._log) or self._log[self._cursor][0] != nbytes:
            raise GraphReplayMismatch(f"replay allocation #{self._cursor} of {nbytes} B does not "
                                      f"match the captured sequence")
        block = self._log[self._cursor][1]
        self._cursor += 1
        return block

    def free(self, block) -> None:
        if self._cursor is None:
            self._pool.free(block)  # reuse inside the capture is fine: the pool is private

    def stats(self) -> dict:
        return self._pool.stats()


def cuda_graph_pool_check(replays: int = 5, batch: int = 64) -> dict:
    """Capture TinyBlock with a private torch.cuda.graph_pool_handle(); replay with new inputs.

    Returns the data_ptr of the output and of every intermediate (kept alive as graph outputs)
    after each replay, the max error against eager, allocated bytes before/after the replays,
    and whether a tensor allocated outside the graph landed on a graph address.
    """
    import torch
    from .plan import TinyBlock
    from ..engine.capture import warm_up_and_capture
    from ..engine.cuda.device import CudaDevice
    dev = CudaDevice.shared()
    model = TinyBlock().cuda().eval()
    x_static = torch.randn(batch, 128, device="cuda")
    inter = []  # every intermediate of the captured call, kept alive as graph outputs
    hooks = [m.register_forward_hook(lambda _m, _i, out: inter.append(out)) for m in model.children()]

    def step():
        inter.clear()  # keep only the last call's (the capture's) intermediates
        with torch.no_grad():
            return model(x_static)
    graph, y_static = warm_up_and_capture(dev, step, pool=dev.new_pool(), warmups=3)
    for h in hooks:
        h.remove()
    return _replay_and_check(torch, model, graph.g, x_static, y_static, inter, replays)


def _replay_and_check(torch, model, graph, x_static, y_static, inter, replays) -> dict:
    ptrs, errors = [], []
    inputs = [torch.randn_like(x_static) for _ in range(replays)]
    torch.cuda.synchronize()
    allocated_before = torch.cuda.memory_allocated()
    for x_new in inputs:
        x_static.copy_(x_new)  # inputs go INTO the captured buffer, never as a fresh tensor
        graph.replay()
        ptrs.append([y_static.data_ptr()] + [t.data_ptr() for t in inter])
    torch.cuda.synchronize()
    allocated_after = torch.cuda.memory_allocated()
    with torch.no_grad():  # a second pass checks every replay against eager (eager allocates)
        for x_new in inputs:
            x_static.copy_(x_new)
            graph.replay()
            errors.append((y_static - model(x_new)).abs().max().item())
    outside = torch.empty_like(inter[0])
    graph_ptrs = set(ptrs[0])
    return {"ptrs_per_replay": ptrs, "stable": all(p == ptrs[0] for p in ptrs),
            "max_abs_error": max(errors), "allocated_bytes_before": allocated_before,
            "allocated_bytes_after": allocated_after,
            "outside_alloc_on_graph_address": outside.data_ptr() in graph_ptrs}

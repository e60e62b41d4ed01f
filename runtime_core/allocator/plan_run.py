"""Realizing a memory plan: one arena allocated once, every intermediate a view at its offset.

Each node of the traced graph runs as an `out=` op that writes straight into its view, so a
step allocates nothing: no torch.empty, no caching-allocator call, no driver call. Only ops
with an `out=` form can run this way; OUT_OPS lists the ones TinyBlock needs.
"""
from __future__ import annotations

import operator

import torch
from torch import nn

from .plan import MemoryPlan


def _linear_out(module: nn.Linear):
    weight_t = module.weight.t()  # a view, made once; addmm reads it transposed
    bias = module.bias
    def run(x, out):
        torch.addmm(bias, x, weight_t, out=out)
    return run


# call_function targets -> a function (inputs..., out) that writes the result into `out`.
OUT_OPS = {
    operator.add: lambda a, b, out: torch.add(a, b, out=out),
    operator.mul: lambda a, b, out: torch.mul(a, b, out=out),
    torch.add: lambda a, b, out: torch.add(a, b, out=out),
    torch.mul: lambda a, b, out: torch.mul(a, b, out=out),
    torch.sigmoid: lambda a, out: torch.sigmoid(a, out=out),
    torch.tanh: lambda a, out: torch.tanh(a, out=out),
    torch._C._nn.gelu: lambda a, out: torch.ops.aten.gelu.out(a, out=out),
    nn.functional.gelu: lambda a, out: torch.ops.aten.gelu.out(a, out=out),
}


class PlannedForward:
    """Run a traced forward with all intermediates inside one arena.

    Args:
        gm: the GraphModule from plan.make_plan (its nodes name the plan's buffers).
        plan: the MemoryPlan with offsets.
        device: where the arena lives ("cpu" or "cuda").
    The returned output is a view into the arena: the next call overwrites it (copy it to keep it).
    """

    def __init__(self, gm: torch.fx.GraphModule, plan: MemoryPlan, device="cpu"):
        self.arena = torch.empty(plan.arena_bytes, dtype=torch.uint8, device=device)
        self.views = {b.name: self._view(b) for b in plan.buffers}
        self._steps, self._input, self._output = [], None, None
        for node in gm.graph.nodes:
            if node.op == "placeholder":
                self._input = node.name
            elif node.op == "output":
                self._output = node.args[0].name
            else:
                self._steps.append((self._runner(gm, node), [a.name for a in node.args], node.name))

    def _view(self, buf):
        nbytes = buf.nbytes
        return self.arena[buf.offset_bytes:buf.offset_bytes + nbytes].view(buf.dtype).view(buf.shape)

    @staticmethod
    def _runner(gm, node):
        if any(not isinstance(a, torch.fx.Node) for a in node.args) or node.kwargs:
            raise ValueError(f"node {node.name}: only ops on tensors without kwargs are supported")
        if node.op == "call_module" and isinstance(gm.get_submodule(node.target), nn.Linear):
            return _linear_out(gm.get_submodule(node.target))
        if node.op == "call_function" and node.target in OUT_OPS:
            return OUT_OPS[node.target]
        raise ValueError(f"node {node.name} ({node.op} {node.target}) has no out= form here")

    @torch.no_grad()
    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        env = dict(self.views)
        env[self._input] = x
        for run, arg_names, out_name in self._steps:
            run(*[env[a] for a in arg_names], out=env[out_name])
        return env[self._output]

"""A memory plan for a real model's forward (lesson 06's plan, computed here with torch.fx).

1. Trace the model (`torch.fx.symbolic_trace`) and run ShapeProp to learn every
   intermediate's shape, dtype and size in bytes.
2. Lifetime of a buffer = [index of the node that defines it, index of its last user].
3. Greedy by size: place the largest buffer first, at the lowest offset that does not overlap
   any already placed buffer whose lifetime overlaps its own. The arena is the highest end.
plan_run.py then realizes the plan: one arena, every intermediate a fixed slice of it.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.fx import symbolic_trace
from torch.fx.passes.shape_prop import ShapeProp

from .sizes import MIN_BLOCK_BYTES


class TinyBlock(nn.Module):
    """A small gated MLP block with a residual: 9 intermediate buffers in its forward."""

    def __init__(self, d_model: int = 128, d_hidden: int = 512):
        super().__init__()
        self.up = nn.Linear(d_model, d_hidden)
        self.down = nn.Linear(d_hidden, d_model)
        self.gate = nn.Linear(d_model, d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        h = nn.functional.gelu(self.up(x))
        r = x + self.down(h)
        y = r * torch.sigmoid(self.gate(r))
        return self.proj(torch.tanh(y))


@dataclass
class Buffer:
    """One intermediate: its size, lifetime (node indices, inclusive) and planned offset."""

    name: str
    shape: tuple
    dtype: torch.dtype
    nbytes: int
    first_use: int
    last_use: int
    offset_bytes: int = -1

    def overlaps_in_time(self, other: "Buffer") -> bool:
        return self.first_use <= other.last_use and other.first_use <= self.last_use

    def overlaps_in_space(self, other: "Buffer") -> bool:
        return (self.offset_bytes < other.offset_bytes + other.nbytes
                and other.offset_bytes < self.offset_bytes + self.nbytes)


@dataclass
class MemoryPlan:
    """Buffers with offsets in one arena of `arena_bytes`."""

    buffers: list[Buffer]
    arena_bytes: int

    @property
    def sum_bytes(self) -> int:
        """What the buffers would take if none shared memory."""
        return sum(b.nbytes for b in self.buffers)


def trace_buffers(model: nn.Module, example: torch.Tensor):
    """Trace `model`, propagate shapes from `example`; return (GraphModule, [Buffer])."""
    gm = symbolic_trace(model)
    ShapeProp(gm).propagate(example)
    nodes = list(gm.graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    buffers = []
    for node in nodes:
        if node.op not in ("call_module", "call_function", "call_method"):
            continue  # inputs, parameters and the output node own no intermediate memory
        meta = node.meta["tensor_meta"]
        nbytes = meta.shape.numel() * torch.empty((), dtype=meta.dtype).element_size()
        last = max(index[u] for u in node.users)
        buffers.append(Buffer(node.name, tuple(meta.shape), meta.dtype, nbytes, index[node], last))
    return gm, buffers


def assign_offsets(buffers: list[Buffer], alignment_bytes: int = MIN_BLOCK_BYTES) -> int:
    """Greedy by size: set each buffer's offset_bytes; return the arena size in bytes."""
    placed: list[Buffer] = []
    for buf in sorted(buffers, key=lambda b: (-b.nbytes, b.first_use)):
        live = sorted((p for p in placed if p.overlaps_in_time(buf)), key=lambda p: p.offset_bytes)
        offset = 0
        for p in live:  # first gap, in address order, that the buffer fits in
            if offset + buf.nbytes <= p.offset_bytes:
                break
            offset = max(offset, _align(p.offset_bytes + p.nbytes, alignment_bytes))
        buf.offset_bytes = offset
        placed.append(buf)
    return max((b.offset_bytes + b.nbytes for b in buffers), default=0)


def _align(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def make_plan(model: nn.Module, example: torch.Tensor):
    """Trace, size and place; return (GraphModule, MemoryPlan)."""
    gm, buffers = trace_buffers(model, example)
    return gm, MemoryPlan(buffers, assign_offsets(buffers))


def peak_live_bytes(buffers: list[Buffer]) -> int:
    """The lower bound for any arena: the most bytes alive at one node index."""
    steps = range(min(b.first_use for b in buffers), max(b.last_use for b in buffers) + 1)
    return max(sum(b.nbytes for b in buffers if b.first_use <= t <= b.last_use) for t in steps)

"""The model zoo: four small real networks, each with a factory and example inputs.

    decoder   one decode step of a 12-layer, width-256 decoder over a static KV cache (aot/models.py);
              shape knob: KV-cache slots (default 128)
    mlp       8 Linear+GELU layers, width 512; no shape knob
    cnn       8 conv3x3 + batch norm + ReLU blocks on 32×32 images, then pool and a linear head;
              shape knob: image side (default 32)
    encoder   4 pre-norm transformer encoder blocks, width 256, 4 heads; shape knob: tokens (default 64)

All run in eval mode with gradients off (inference), in float32 or bfloat16. `build(name, ...)`
returns a ZooStep's parts: the module, its example inputs for a batch, and which inputs carry
the batch dimension (a padded request copies only into those).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn
from torch.nn import functional as F

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


class DeepMLP(nn.Module):
    """`depth` Linear+GELU layers of width `d`: (batch, d) -> (batch, d)."""

    def __init__(self, d: int = 512, depth: int = 8):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = F.gelu(layer(x))
        return x


class SmallCNN(nn.Module):
    """8 blocks of conv3x3 + BatchNorm + ReLU (three of them stride 2), global pool, linear head."""

    CHANNELS = ((3, 32, 1), (32, 32, 1), (32, 64, 2), (64, 64, 1), (64, 128, 2), (128, 128, 1),
                (128, 256, 2), (256, 256, 1))

    def __init__(self, classes: int = 10):
        super().__init__()
        self.blocks = nn.Sequential(*(nn.Sequential(nn.Conv2d(i, o, 3, stride=s, padding=1, bias=False),
                                                    nn.BatchNorm2d(o), nn.ReLU())
                                      for i, o, s in self.CHANNELS))
        self.head = nn.Linear(self.CHANNELS[-1][1], classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(x).mean(dim=(2, 3)))


class EncoderBlock(nn.Module):
    """Pre-norm self-attention + MLP block over (batch, tokens, d)."""

    def __init__(self, d: int = 256, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        att = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Encoder(nn.Module):
    def __init__(self, layers: int = 4, d: int = 256, heads: int = 4):
        super().__init__()
        self.blocks = nn.ModuleList(EncoderBlock(d, heads) for _ in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


@dataclass(frozen=True)
class ZooModel:
    """One entry of the zoo.

    Args:
        name: the CLI and page name.
        about: one line for students.
        shape_name: what the shape knob means ("" when the model has none).
        default_shape: the shape knob's default.
        shapes: (lo, hi) bounds of the shape knob.
        make: (max_batch, shape) -> the module (on the current default device, float32).
        inputs: (batch, shape, device, dtype) -> example inputs.
        batched: per input, True if its first dimension is the batch.
    """

    name: str
    about: str
    shape_name: str
    default_shape: int | None
    shapes: tuple[int, int] | None
    make: Callable
    inputs: Callable
    batched: tuple[bool, ...]


def _decoder(max_batch: int, slots: int) -> nn.Module:
    from ..aot.models import DecoderStep
    return DecoderStep(layers=12, d=256, heads=4, max_len=slots, vocab=1024, max_batch=max_batch)


def _decoder_inputs(batch: int, slots: int, device: str, dtype) -> tuple:
    from ..aot.models import decoder_inputs
    return decoder_inputs(device, batch=batch, pos=slots // 3)


def _randn(*shape, device, dtype, seed: int = 1) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(device=device, dtype=dtype)


ZOO: dict[str, ZooModel] = {m.name: m for m in (
    ZooModel("decoder", "one decode step: 12 layers, width 256, static KV cache (the §4 example)",
             "KV-cache slots", 128, (16, 1024), _decoder, _decoder_inputs, (True, False)),
    ZooModel("mlp", "8 Linear+GELU layers, width 512", "", None, None,
             lambda max_batch, shape: DeepMLP(),
             lambda b, shape, device, dtype: (_randn(b, 512, device=device, dtype=dtype),), (True,)),
    ZooModel("cnn", "8 conv3x3 + batch norm + ReLU blocks, 32×32 images", "image side", 32, (8, 128),
             lambda max_batch, shape: SmallCNN(),
             lambda b, side, device, dtype: (_randn(b, 3, side, side, device=device, dtype=dtype),), (True,)),
    ZooModel("encoder", "4 transformer encoder blocks, width 256, 4 heads", "tokens", 64, (8, 1024),
             lambda max_batch, shape: Encoder(),
             lambda b, tokens, device, dtype: (_randn(b, tokens, 256, device=device, dtype=dtype),), (True,)),
)}


def build(name: str, max_batch: int, shape: int | None, dtype: str, device: str = "cuda",
          seed: int = 0) -> nn.Module:
    """The zoo model `name` with fixed weights, built directly on `device`, eval mode, no grads.

    Args:
        max_batch: the largest batch it will see (the decoder sizes its KV cache by it).
        shape: the shape knob (None: the model's default).
        dtype: "fp32" or "bf16".
    """
    entry = ZOO[name]
    torch.manual_seed(seed)
    with torch.device(device):
        model = entry.make(max_batch, shape if shape is not None else entry.default_shape)
    model = model.to(dtype=DTYPES[dtype]).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def example_inputs(name: str, batch: int, shape: int | None, dtype: str, device: str = "cuda") -> tuple:
    """Deterministic example inputs of zoo model `name` for one step at `batch`."""
    entry = ZOO[name]
    return tuple(entry.inputs(batch, shape if shape is not None else entry.default_shape, device,
                              DTYPES[dtype]))

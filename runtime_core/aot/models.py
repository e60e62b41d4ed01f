"""The small models of the AOT lesson: a 2-layer MLP (exported and packaged) and a decoder step.

The decoder step is what a language model runs once per generated token at batch 1: embed the
token, run it through 12 layers that attend over a *static KV cache* (a preallocated buffer of
past keys and values), and produce logits. It is launch-bound on a GPU: ~150 tiny kernels,
each doing microseconds of work.
"""
from __future__ import annotations

import torch
from torch import nn

MLP_IN, MLP_HIDDEN, MLP_OUT = 64, 128, 32


class MLP(nn.Module):
    """Two linear layers with a GELU between: (batch, 64) -> (batch, 32)."""

    def __init__(self, d_in: int = MLP_IN, d_hidden: int = MLP_HIDDEN, d_out: int = MLP_OUT):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


def make_mlp(seed: int = 0) -> MLP:
    """The MLP with fixed weights (the same seed gives the same weights in every process)."""
    torch.manual_seed(seed)
    return MLP().eval()


def mlp_input(batch: int, seed: int = 1) -> torch.Tensor:
    """A deterministic (batch, 64) float32 input on the CPU."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, MLP_IN, generator=g)


class Layer(nn.Module):
    """One pre-norm decoder layer for a single new token attending over a static KV cache."""

    def __init__(self, d: int, heads: int, max_len: int, batch: int):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        # The cache holds keys/values of earlier tokens. It is filled once and only read here, so
        # a step is a pure function of (token, pos) and variants can be compared output for output.
        # (A real decoder also writes this token's k/v into slot `pos`.)
        self.register_buffer("k_cache", torch.randn(batch, heads, max_len, self.dh) * 0.5)
        self.register_buffer("v_cache", torch.randn(batch, heads, max_len, self.dh) * 0.5)

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        q, k, v = self.qkv(self.norm1(x)).view(b, 1, 3, self.heads, self.dh).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))            # (b, heads, 1, dh)
        keys = torch.cat([self.k_cache[:b], k], dim=2)                # (b, heads, L+1, dh)
        vals = torch.cat([self.v_cache[:b], v], dim=2)
        # Positions >= pos are in the future: mask them. pos is a tensor, so a new position is
        # new *data*, not a new shape: no recompile and no new graph.
        slots = torch.arange(keys.shape[2], device=x.device)
        visible = (slots < pos) | (slots == keys.shape[2] - 1)
        scores = (q @ keys.transpose(-1, -2)) / self.dh ** 0.5
        scores = scores.masked_fill(~visible, float("-inf"))
        att = (scores.softmax(-1) @ vals).transpose(1, 2).reshape(b, 1, -1)
        x = x + self.proj(att)
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))


class DecoderStep(nn.Module):
    """One decode step: token ids (batch, 1) int64 and pos (1,) int64 -> logits (batch, 1, vocab).

    Args:
        layers: decoder layers (12 in the worked example).
        d: model width (256).
        heads: attention heads.
        max_len: KV-cache slots.
        vocab: vocabulary size.
        max_batch: the largest batch the cache holds.
    """

    def __init__(self, layers: int = 12, d: int = 256, heads: int = 4, max_len: int = 128,
                 vocab: int = 1024, max_batch: int = 4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Layer(d, heads, max_len, max_batch) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, token: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        x = self.embed(token)
        for layer in self.layers:
            x = layer(x, pos)
        return self.head(self.norm(x))


@torch._dynamo.disable
def eager_island(x: torch.Tensor) -> torch.Tensor:
    """Code torch.compile must leave alone (think: a sampling hook in Python). It always runs
    eagerly, so a compiled caller is split into a region before it and a region after it."""
    return x * 1.0


class TwoHalvesStep(DecoderStep):
    """The decoder step with a graph break in the middle: torch.compile makes two regions.

    Under mode="reduce-overhead" each region becomes its own CUDA graph; cudagraph trees
    chain them as parent and child in one shared memory pool, and the eager code between them
    (`eager_island`, which Dynamo is told not to trace) runs un-captured on every call.
    """

    def forward(self, token: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        x = self.embed(token)
        half = len(self.layers) // 2
        for layer in self.layers[:half]:
            x = layer(x, pos)
        x = eager_island(x)           # Dynamo cannot trace it: the graph breaks here
        for layer in self.layers[half:]:
            x = layer(x, pos)
        return self.head(self.norm(x))


def make_decoder(device: str, cls=DecoderStep, seed: int = 0, **kw) -> DecoderStep:
    """A decoder step with fixed weights on `device`, in eval mode."""
    torch.manual_seed(seed)
    return cls(**kw).to(device).eval()


def decoder_inputs(device: str, batch: int = 1, token_id: int = 7, pos: int = 40):
    """(token, pos) tensors for one step: token (batch, 1) int64, pos (1,) int64."""
    token = torch.full((batch, 1), token_id, dtype=torch.long, device=device)
    return token, torch.tensor([pos], dtype=torch.long, device=device)

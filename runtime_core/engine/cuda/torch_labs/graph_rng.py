"""graph_rng on a GPU: random numbers inside a captured region.

Dropout inside a capture draws from the default CUDA generator, which the capture tracks: the
graph records the Philox kernels with a seed and an offset it reads from device memory, and each
replay advances the generator's offset, so every replay draws a new mask. Two ways to get it wrong:
    unregistered   a torch.Generator of your own, not registered with the graph
                   (graph.register_generator_state(gen)): the capture raises
    host mask      a mask drawn before capture (here on the host, then copied to the GPU) and
                   multiplied in: the graph holds its address, so every replay applies the same
                   mask, silently
The signal compares the masks of successive replays (`mask_stats`, device-agnostic).
"""
from __future__ import annotations

import torch

from .common import attempt, environment, need_cuda, try_capture

NUMEL, P, REPLAYS = 1 << 16, 0.5, 8


def mask_stats(masks) -> dict:
    """How alike the masks of successive replays are: distinct masks, the mean fraction of
    positions where replay i and i+1 agree (about p² + (1-p)² for independent masks, 1 for a
    frozen one), and the kept fraction (about 1 - p)."""
    flat = [m.flatten().to("cpu", torch.bool) for m in masks]
    distinct = len({bytes(m.numpy().tobytes()) for m in flat})
    agree = [float((a == b).float().mean()) for a, b in zip(flat, flat[1:])]
    kept = float(torch.stack([m.float().mean() for m in flat]).mean())
    return {"replays": len(flat), "distinct_masks": distinct,
            "mean_agreement": round(sum(agree) / len(agree), 4) if agree else 1.0, "kept_fraction": round(kept, 4)}


def _replay_masks(graph, out, replays: int = REPLAYS) -> list:
    masks = []
    for _ in range(replays):
        graph.replay()
        masks.append((out != 0).clone())
    return masks


def _offsets(graph, replays: int = 4) -> list[int] | None:
    gen = torch.cuda.default_generators[torch.cuda.current_device()]
    if not hasattr(gen, "get_offset"):
        return None
    seen = [int(gen.get_offset())]
    for _ in range(replays):
        graph.replay()
        torch.cuda.synchronize()
        seen.append(int(gen.get_offset()))
    return seen


def measure() -> dict:
    need_cuda()
    x = torch.ones(NUMEL, device="cuda")
    out = {"env": environment(), "numel": NUMEL, "p": P, "replays": REPLAYS,
           "seed": int(torch.cuda.initial_seed())}

    eager = [(torch.nn.functional.dropout(x, P, training=True) != 0) for _ in range(REPLAYS)]
    out["eager"] = mask_stats(eager)

    graph, y, err = try_capture(lambda: torch.nn.functional.dropout(x, P, training=True))
    out["in_graph_error"] = err
    if graph is not None:
        out["in_graph"] = mask_stats(_replay_masks(graph, y))
        out["philox_offsets"] = attempt(lambda: {"offsets": _offsets(graph)})

    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)

    def own_draw():
        return (torch.rand(NUMEL, device="cuda", generator=gen) >= P).float() * x
    _, _, uerr = try_capture(own_draw)
    out["unregistered"] = {"raised": uerr is not None, "error": uerr}
    rgraph, ry, rerr = try_capture(own_draw, generators=(gen,))
    out["registered"] = mask_stats(_replay_masks(rgraph, ry)) if rgraph is not None else {"error": rerr}

    host_mask = (torch.rand(NUMEL) >= P).float().to("cuda")   # drawn before capture, on the host
    hgraph, hy, herr = try_capture(lambda: x * host_mask / (1 - P))
    out["host_mask"] = mask_stats(_replay_masks(hgraph, hy)) if hgraph is not None else {"error": herr}
    return out

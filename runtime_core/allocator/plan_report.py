"""The plan, realized and compared: arena bytes vs the sum of buffers vs what eager PyTorch and
our caching pool reserve for the same forward, and proof that a planned step allocates nothing."""
from __future__ import annotations

import torch

from .caching_pool import CachingPool
from .plan import TinyBlock, make_plan, peak_live_bytes
from .plan_run import PlannedForward
from .torch_memory import torch_memory

D_MODEL, D_HIDDEN = 128, 512


def pool_peak_for(buffers, backend) -> dict:
    """Replay the buffers' lifetimes as eager would (malloc at definition, free after last use)
    on a fresh CachingPool; return its peak allocated and reserved bytes."""
    pool, live = CachingPool(backend), {}
    for t in range(max(b.last_use for b in buffers) + 1):
        for b in buffers:
            if b.first_use == t:
                live[b.name] = pool.malloc(b.nbytes)
        for b in buffers:
            if b.last_use == t:  # the op at t has read it, so it can go
                pool.free(live.pop(b.name))
    s = pool.stats()
    pool.empty_cache()  # give the segments back (on CUDA they are real cudaMalloc memory)
    return {"allocated": s["allocated_bytes.peak"], "reserved": s["reserved_bytes.peak"]}


def plan_report(device: str = "cpu", batch: int = 64, steps: int = 5, backend=None) -> dict:
    """Plan TinyBlock's forward, realize it on `device`, and measure (bytes; allocations/step)."""
    torch.manual_seed(0)
    model = TinyBlock(D_MODEL, D_HIDDEN).to(device).eval()
    x = torch.randn(batch, D_MODEL, device=device)
    gm, plan = make_plan(model, x)
    run = PlannedForward(gm, plan, device)
    with torch.no_grad():
        expected, got = model(x), run(x).clone()  # the first call also warms up (cuBLAS, ...)
        eager = torch_memory(lambda: model(x), device)
        planned = torch_memory(lambda: [run(x) for _ in range(steps)], device)
    if backend is None:
        from .backends.sim import HostArenaBackend
        backend = HostArenaBackend()
    pool = pool_peak_for(plan.buffers, backend)
    return {
        "model": f"TinyBlock(d_model={D_MODEL}, d_hidden={D_HIDDEN}), batch {batch}, fp32, {device}",
        "buffers": len(plan.buffers), "arena_bytes": plan.arena_bytes, "sum_bytes": plan.sum_bytes,
        "peak_live_bytes": peak_live_bytes(plan.buffers),
        "allocations_per_step": planned.allocations / steps,
        "output_matches_eager": bool(torch.allclose(got, expected, atol=1e-5)),
        "max_abs_error": float((got - expected).abs().max()),
        "torch_peak_allocated_bytes": eager.peak_allocated_bytes,
        "torch_peak_reserved_bytes": eager.peak_reserved_bytes,
        "caching_pool_peak_allocated_bytes": pool["allocated"],
        "caching_pool_peak_reserved_bytes": pool["reserved"],
        "layout": [{"name": b.name, "offset_bytes": b.offset_bytes, "nbytes": b.nbytes,
                    "first_use": b.first_use, "last_use": b.last_use} for b in plan.buffers],
    }

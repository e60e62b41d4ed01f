"""Time a per-token step in bulk and count its driver launches with torch.profiler.

Timing one tiny step with a pair of events reads a floor far above the step (the H200 notes
measured ~16 µs for a 2 µs kernel), so steps are timed in blocks: sync, run a block of tokens,
sync, divide. Launches are counted from the profiler's runtime-API events.
"""
from __future__ import annotations

import statistics
import time

import torch

from ..engine.device import GRAPH_LAUNCH, LAUNCH_CALLS

TOKEN_IDS = (7, 101, 333, 512, 900)


def token_inputs(device: str, n: int, batch: int = 1, first_pos: int = 10, max_len: int = 120):
    """n (token, pos) pairs already on the device, so the timed loop does no host-to-device copy."""
    out = []
    for i in range(n):
        tok = torch.full((batch, 1), TOKEN_IDS[i % len(TOKEN_IDS)], dtype=torch.long, device=device)
        out.append((tok, torch.tensor([first_pos + i % (max_len - first_pos)], device=device)))
    return out


def time_block_ms(step, inputs) -> float:
    """Wall ms per token over one block: sync, run every input, sync."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.no_grad():
        for tok, pos in inputs:
            step(tok, pos)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / len(inputs)


def interleaved_ms_per_token(steps: dict, inputs, blocks: int = 8) -> dict:
    """Median ms/token of each step, timing their blocks in turn so drift hits all alike.

    Args:
        steps: name -> callable(token, pos); each already warmed up.
        inputs: the (token, pos) pairs of one block (>= 25 tokens; blocks x len(inputs) total).
    """
    samples = {name: [] for name in steps}
    for _ in range(blocks):
        for name, step in steps.items():
            samples[name].append(time_block_ms(step, inputs))
    return {name: statistics.median(v) for name, v in samples.items()}


def launches_per_token(step, inputs) -> dict:
    """Kernel launches and graph launches per token, counted by torch.profiler."""
    from torch.profiler import ProfilerActivity
    from ..quiet_profiler import quiet_profile
    torch.cuda.synchronize()
    with quiet_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof, torch.no_grad():
        for tok, pos in inputs:
            step(tok, pos)
        torch.cuda.synchronize()
    counts = {e.key: e.count for e in prof.key_averages()}
    kernels = sum(counts.get(n, 0) for n in LAUNCH_CALLS)
    graphs = counts.get(GRAPH_LAUNCH, 0)
    n = len(inputs)
    return {"launches_per_token": (kernels + graphs) / n,
            "kernel_launches_per_token": kernels / n, "graph_launches_per_token": graphs / n}

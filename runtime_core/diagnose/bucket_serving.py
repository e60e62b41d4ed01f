"""Serve sampled requests through a bucket set on a device: captures, pool memory, padded work, time.

For each bucket set: capture one graph per bucket (each in its own pool, as the planner's memory
model counts them), then serve the same sampled requests one at a time: a request of size s is
copied into the first s rows of the smallest bucket ≥ s and replayed, or runs eagerly when no
bucket is that large. Each request ends in a synchronize (a server returns its answer), and the
mean over requests is the measured expected step time per request, to compare with the
planner's prediction.
"""
from __future__ import annotations

import bisect
import random
import sys

from .graph_step import GraphedStep
from .planner import Distribution
from .spec import Spec
from ..engine.cores import one_core

DEFAULT_REQUESTS = 300


def sample_requests(dist: Distribution, n: int, seed: int = 0) -> list[int]:
    """`n` request sizes drawn from `dist` (seeded: every set serves the same requests)."""
    return random.Random(seed).choices(dist.sizes, weights=dist.probs, k=n)


def measure_sets(runner, spec: Spec, sets: dict, dist: Distribution, requests: int = DEFAULT_REQUESTS,
                 seed: int = 0) -> dict:
    """Measure every bucket set of `sets` (name -> bucket sizes) serving requests from `dist`.

    `spec` gives the model, shape and dtype (its batch is ignored). Returns name -> {buckets,
    captures, capture_s, pool_bytes, expected_step_us, wasted_work_pct, eager_share_pct,
    requests}.
    """
    sizes = sample_requests(dist, requests, seed)
    all_batches = set(sizes) | {b for bs in sets.values() for b in bs}
    steps = runner.steps_at(spec, all_batches)
    inputs = {s: steps[s].clone_inputs() for s in set(sizes)}
    out = {}
    for name, buckets in sets.items():
        out[name] = _serve(runner, steps, sorted(buckets), sizes, inputs)
        print(f"diagnose planner: {spec.model} {name}: {len(buckets)} captures, "
              f"{out[name]['expected_step_us']:.0f} µs per request", file=sys.stderr)
        runner.cleanup()
    return out


def _serve(runner, steps: dict, buckets: list[int], sizes: list[int], inputs: dict) -> dict:
    dev = runner.dev
    graphs = {b: GraphedStep(runner, steps[b]) for b in buckets}
    times, padded, work, eager = [], 0, 0, 0
    for s in sizes[:3]:  # untimed: the first replays after a capture are slow
        _run(steps, graphs, buckets, s, inputs)
    with one_core():
        for s in sizes:
            dev.synchronize()
            t0 = dev.host_now_us()
            b = _run(steps, graphs, buckets, s, inputs)
            dev.synchronize()
            times.append(dev.host_now_us() - t0)
            padded += (b - s) if b else 0
            work += b or s
            eager += 0 if b else 1
    result = {"buckets": buckets, "captures": len(buckets),
              "capture_s": round(sum(g.capture_s for g in graphs.values()), 4),
              "pool_bytes": int(sum(g.pool_bytes for g in graphs.values())),
              "expected_step_us": round(sum(times) / len(times), 3),
              "wasted_work_pct": round(100 * padded / work, 2),
              "eager_share_pct": round(100 * eager / len(sizes), 2), "requests": len(sizes)}
    del graphs
    return result


def _run(steps, graphs, buckets, s, inputs) -> int | None:
    """Serve one request of size s; returns the bucket used (None: eager)."""
    i = bisect.bisect_left(buckets, s)
    if i < len(buckets):
        graphs[buckets[i]](*inputs[s])
        return buckets[i]
    steps[s](*inputs[s])
    return None

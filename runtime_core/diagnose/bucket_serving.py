"""Serve sampled requests through bucket sets on a device: captures, pool memory, padded work, time.

Every set of buckets gets its own graphs, one per bucket, each in its own pool (as the planner's
memory model counts them). A request of size s is copied into the first s rows of the smallest
bucket ≥ s and replayed, or runs eagerly when no bucket is that large. Before any clock runs,
every distinct request size goes once through every set: an eager shape's first call and a
graph's first replay are one-off costs, not the steady state a server lives in. Then the sets take
turns request by request, over the same sampled requests, so that a drift of the host between a
fast and a slow state lands on every set alike instead of on whichever set ran last. Each request
ends in a synchronize (a server returns its answer), and the mean over requests is the measured
expected step time per request, to compare with the planner's prediction.
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


class _BucketSet:
    """One bucket set's graphs and what serving through them has cost so far."""

    def __init__(self, runner, steps: dict, buckets):
        self.steps, self.buckets = steps, sorted(buckets)
        self.graphs = {b: GraphedStep(runner, steps[b]) for b in self.buckets}
        self.times, self.padded, self.work, self.eager = [], 0, 0, 0

    def run(self, s: int, inputs: dict) -> int | None:
        """Serve one request of size s; returns the bucket used (None: eager)."""
        i = bisect.bisect_left(self.buckets, s)
        if i < len(self.buckets):
            self.graphs[self.buckets[i]](*inputs[s])
            return self.buckets[i]
        self.steps[s](*inputs[s])
        return None

    def timed(self, dev, s: int, inputs: dict) -> None:
        dev.synchronize()
        t0 = dev.host_now_us()
        b = self.run(s, inputs)
        dev.synchronize()
        self.times.append(dev.host_now_us() - t0)
        self.padded += (b - s) if b else 0
        self.work += b or s
        self.eager += 0 if b else 1

    def result(self) -> dict:
        n = len(self.times)
        return {"buckets": self.buckets, "captures": len(self.buckets),
                "capture_s": round(sum(g.capture_s for g in self.graphs.values()), 4),
                "pool_bytes": int(sum(g.pool_bytes for g in self.graphs.values())),
                "expected_step_us": round(sum(self.times) / n, 3),
                "wasted_work_pct": round(100 * self.padded / self.work, 2),
                "eager_share_pct": round(100 * self.eager / n, 2), "requests": n}


def measure_sets(runner, spec: Spec, sets: dict, dist: Distribution, requests: int = DEFAULT_REQUESTS,
                 seed: int = 0) -> dict:
    """Measure every bucket set of `sets` (name -> bucket sizes) serving requests from `dist`.

    `spec` gives the model, shape and dtype (its batch is ignored). Returns name -> {buckets,
    captures, capture_s, pool_bytes, expected_step_us, wasted_work_pct, eager_share_pct,
    requests}.
    """
    if requests < 1:
        raise ValueError("measure_sets needs at least one request")
    sizes = sample_requests(dist, requests, seed)
    all_batches = set(sizes) | {b for bs in sets.values() for b in bs}
    steps = runner.steps_at(spec, all_batches)
    inputs = {s: steps[s].clone_inputs() for s in set(sizes)}
    served = {name: _BucketSet(runner, steps, buckets) for name, buckets in sets.items()}
    for bucket_set in served.values():  # untimed: first calls and first replays
        for s in sorted(set(sizes)):
            bucket_set.run(s, inputs)
    names = list(served)
    with one_core():
        for k, s in enumerate(sizes):
            for name in names[k % len(names):] + names[: k % len(names)]:  # who goes first rotates
                served[name].timed(runner.dev, s, inputs)
    out = {name: bucket_set.result() for name, bucket_set in served.items()}
    for name, r in out.items():
        print(f"diagnose planner: {spec.model} {name}: {r['captures']} captures, "
              f"{r['expected_step_us']:.0f} µs per request", file=sys.stderr)
    del served
    runner.cleanup()
    return out

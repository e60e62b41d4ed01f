"""Timing a model step on any device: host dispatch time, and step time of several variants.

Both use the device's own clock (virtual on the simulator, perf_counter on CUDA) and its
synchronize, so the same code times both. The honest benchmark recipe: warm up, synchronize,
then time steps that each end in a synchronize, and take medians. Variants are timed in
interleaved blocks (eager, graph, compiled, eager, graph, ...): the host drifts between a fast
and a slow state, and interleaving makes every variant see both alike.
"""
from __future__ import annotations

import statistics

from ..engine.measure import quantile


def host_dispatch_us(dev, fn, reps: int = 15, warmups: int = 3) -> float:
    """Median host time to *enqueue* one step: sync, start the clock, call fn(), stop the clock.

    Nothing waits for the GPU inside the timed region, so this is H of the prediction: the
    CPU's cost to dispatch the step (Python, the framework, the launch calls). Never measured
    under the profiler, which slows the host.
    """
    for _ in range(warmups):
        fn()
    dev.synchronize()
    samples = []
    for _ in range(reps):
        dev.synchronize()
        t0 = dev.host_now_us()
        fn()
        samples.append(dev.host_now_us() - t0)
    dev.synchronize()
    return statistics.median(samples)


def plan_repeats(step_us_guess: float, budget_us: float = 200_000.0, blocks: int = 5) -> tuple[int, int]:
    """(blocks, steps per block) so that one variant costs about `budget_us` of timing."""
    reps = int(budget_us / blocks / max(step_us_guess, 1.0))
    return blocks, max(3, min(25, reps))


def step_times_us(dev, fns: dict, blocks: int, reps: int) -> dict:
    """Per variant: the median (and p10, p90) of synced step times over interleaved blocks, µs.

    Args:
        dev: the device (its clock and synchronize).
        fns: name -> a zero-argument callable that enqueues one step.
        blocks: rounds; each round runs `reps` steps of every variant in turn.
    """
    samples = {name: [] for name in fns}
    for fn in fns.values():  # one untimed step each: the first call after another variant is slow
        fn()
    for _ in range(blocks):
        for name, fn in fns.items():
            for _ in range(reps):
                dev.synchronize()
                t0 = dev.host_now_us()
                fn()
                dev.synchronize()
                samples[name].append(dev.host_now_us() - t0)
    return {name: {"us": statistics.median(s), "p10_us": quantile(s, 0.1), "p90_us": quantile(s, 0.9),
                   "samples": len(s)} for name, s in samples.items()}

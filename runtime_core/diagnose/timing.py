"""Timing a model step on any device: host dispatch time, and step time of several variants.

Both use the device's own clock (virtual on the simulator, perf_counter on CUDA) and its
synchronize, so the same code times both. The honest benchmark recipe: warm up, synchronize,
then time steps that each end in a synchronize. Variants are timed in interleaved rounds (eager,
graph, compiled, eager, graph, ...) spread over seconds: the host drifts between a fast and a
slow state, interleaving makes every variant see both alike, and spreading lets the rounds reach
the host's fast state, whose floor is what a step's time is read as (host_floor.py).
"""
from __future__ import annotations

import statistics

from ..engine.measure import quantile
from .host_floor import round_reps, spread, summarize


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


def plan_repeats(step_us_guess: float, rounds: int, window_s: float) -> tuple[int, int, float]:
    """(rounds, steps per variant in a round, seconds to spread the rounds over) for a real clock."""
    return rounds, round_reps(step_us_guess), window_s


def step_times_us(dev, fns: dict, blocks: int, reps: int, spread_s: float = 0.0) -> dict:
    """Per variant: its floor (`us`, host_floor.summarize: the lowest round median), the median of
    every step, the round medians, and the p10 and p90 of every step, µs.

    Args:
        dev: the device (its clock and synchronize).
        fns: name -> a zero-argument callable that enqueues one step.
        blocks: rounds; each round runs one untimed step and then `reps` timed steps of every
            variant in turn.
        spread_s: the rounds start evenly over at least this many seconds of wall time (0: back to
            back, as on a virtual clock).
    """
    samples = {name: [] for name in fns}
    rounds = {name: [] for name in fns}
    for _ in spread(blocks, spread_s):
        for name, fn in fns.items():
            fn()  # untimed: the first step after another variant (or a pause) is slow
            mine = []
            for _ in range(reps):
                dev.synchronize()
                t = dev.host_now_us()
                fn()
                dev.synchronize()
                mine.append(dev.host_now_us() - t)
            rounds[name].append(statistics.median(mine))
            samples[name].extend(mine)
    return {name: {**summarize(rounds[name], s), "p10_us": quantile(s, 0.1), "p90_us": quantile(s, 0.9),
                   "samples": len(s)} for name, s in samples.items()}

"""Measure the ways to run one step, in one process and interleaved: eager, our graph capture,
make_graphed_callables, torch.compile (default) and torch.compile(mode="reduce-overhead").

Every variant gets the same request (a fresh copy of the example inputs, so the graph variants
really copy it into their static buffers) and is timed with timing.step_times_us. For each:
µs per step, speedup over eager, its setup time (capture or compile, seconds) and the memory its
graphs keep (pool bytes; ~0 for plain torch.compile, which captures nothing).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .graph_step import GraphedStep
from ..engine.cores import one_core
from .timing import step_times_us

VARIANTS = ("eager", "our_graph", "graphed_callables", "compile", "reduce_overhead")
LABELS = {
    "eager": "PyTorch eager (asynchronous)",
    "our_graph": "our graph capture (static inputs, one replay)",
    "graphed_callables": "torch.cuda.make_graphed_callables",
    "compile": "torch.compile, default mode (fusion, no graphs)",
    "reduce_overhead": 'torch.compile(mode="reduce-overhead") (fusion + CUDA graphs)',
}


@dataclass
class Variant:
    """A ready-to-run way of executing the step.

    Args:
        fn: callable(*inputs) that enqueues one step.
        setup_s: seconds spent capturing or compiling it.
        pool_bytes: memory its graphs keep (None where not measured).
    """

    fn: Callable
    setup_s: float
    pool_bytes: int | None


def build_variants(runner, step, names) -> tuple[dict, GraphedStep]:
    """Set up every variant in `names` (eager always); returns them and our graph (None if not asked)."""
    built = {"eager": Variant(step, 0.0, 0)}
    graphed = None
    if "our_graph" in names:
        graphed = GraphedStep(runner, step)
        built["our_graph"] = Variant(graphed, graphed.capture_s, graphed.pool_bytes)
    for name in names:
        if name not in built:
            built[name] = runner.variant(name, step)
    return built, graphed


def measure_variants(runner, step, names=("eager", "our_graph"), guess_us: float = 1000.0) -> dict:
    """Time every variant on one request, interleaved in rounds spread over seconds (the runner's
    timing_plan). Returns name -> {us (the floor: host_floor.py), median_us, rounds_us, p10_us,
    p90_us, speedup (over eager, floor over floor), setup_s, pool_bytes, label}."""
    built, _ = build_variants(runner, step, names)
    request = step.clone_inputs()
    blocks, reps, spread_s = runner.timing_plan(guess_us)
    with one_core():
        times = step_times_us(runner.dev, {n: (lambda v=v: v.fn(*request)) for n, v in built.items()},
                              blocks, reps, spread_s)
    eager_us = times["eager"]["us"]
    out = {}
    for name, v in built.items():
        t = times[name]
        out[name] = {"us": round(t["us"], 3), "median_us": t["median_us"], "rounds_us": t["rounds_us"],
                     "p10_us": round(t["p10_us"], 3), "p90_us": round(t["p90_us"], 3),
                     "speedup": round(eager_us / t["us"], 4), "setup_s": round(v.setup_s, 4),
                     "pool_bytes": v.pool_bytes, "label": LABELS[name]}
    return out

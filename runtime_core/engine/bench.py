"""Our executors against raw torch, side by side in one process (`python -m runtime_core bench`).

At N=120 kernels of ~2 µs (the seed's defaults) it prints, from interleaved medians:
- our GraphExecutor step on the zero-copy path / raw CUDAGraph.replay() + sync (≤ 1.03x);
- our step on the copy path / the raw replay with the same copy in front (≤ 1.05x);
- our streams and eager executors' cost per launch minus a raw torch loop's (≤ +0.5 µs);
- graph vs eager speedup (≥ 5x on an H200).
"""
from __future__ import annotations

import statistics
import time


def _median_us(fn, reps: int) -> float:
    import torch
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - t0) / 1000.0)
    return statistics.median(times)


def run_bench(n: int = 120, work_us: float = 2.0, rounds: int = 7, reps: int = 40) -> dict:
    """Measure ours vs raw, interleaved over `rounds`; returns medians (µs) and ratios."""
    import torch

    from .backends import get_device
    from .modes import make_executor
    from .workload import ChainWorkload
    dev = get_device("cuda")
    wl = ChainWorkload(n, work_us)
    numel = wl.base_numel(dev)
    x = wl.make_input(dev)
    ours = {m: make_executor(m, dev, wl) for m in ("eager", "streams", "graph")}
    ours["graph"].prepare(x)
    # The raw side is plain torch written out here on purpose: it is the yardstick our executors
    # are measured against, so it must not share code with them (not even engine/capture.py).
    raw_x = torch.zeros(numel, device="cuda")
    raw_in = torch.zeros(numel, device="cuda")
    for _ in range(3):
        raw_x.add_(1.0)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            raw_x.add_(1.0)

    def raw_graph():
        g.replay()
        torch.cuda.synchronize()

    def raw_graph_copy():
        raw_x.copy_(raw_in)
        g.replay()
        torch.cuda.synchronize()

    def raw_streams():
        for _ in range(n):
            raw_x.add_(1.0)
        torch.cuda.synchronize()

    def raw_eager():
        for _ in range(n):
            raw_x.add_(1.0)
            torch.cuda.synchronize()

    static = ours["graph"].static_input()  # the zero-copy path: the producer writes here
    cases = {"raw_graph": raw_graph, "raw_graph_with_copy": raw_graph_copy, "raw_streams": raw_streams,
             "raw_eager": raw_eager, "our_graph": lambda: ours["graph"].run(x),
             "our_graph_zero_copy": lambda: ours["graph"].run(static),
             "our_streams": lambda: ours["streams"].run(x), "our_eager": lambda: ours["eager"].run(x)}
    for fn in cases.values():
        fn()
    samples = {k: [] for k in cases}
    for _ in range(rounds):  # interleave, so drift hits every case alike
        for k, fn in cases.items():
            samples[k].append(_median_us(fn, reps))
    med = {k: round(statistics.median(v), 3) for k, v in samples.items()}
    return {
        "n": n, "work_us": work_us, "device_name": dev.name, "torch_version": torch.__version__,
        "median_step_us": med,
        "graph_vs_raw_replay": round(med["our_graph"] / med["raw_graph"], 3),
        "graph_vs_raw_replay_zero_copy": round(med["our_graph_zero_copy"] / med["raw_graph"], 3),
        "graph_vs_raw_replay_with_copy": round(med["our_graph"] / med["raw_graph_with_copy"], 3),
        "streams_extra_us_per_launch": round((med["our_streams"] - med["raw_streams"]) / n, 3),
        "eager_extra_us_per_launch": round((med["our_eager"] - med["raw_eager"]) / n, 3),
        "graph_speedup_over_eager": round(med["our_eager"] / med["our_graph"], 2),
        "targets": {"graph_vs_raw_replay_zero_copy": "<= 1.03", "graph_vs_raw_replay_with_copy": "<= 1.05",
                    "extra_us_per_launch": "<= 0.5", "graph_speedup_over_eager": ">= 5"},
    }


def print_table(out: dict) -> None:
    """The bench result as a short text table."""
    for k, v in out["median_step_us"].items():
        print(f"{k:>22}: {v:10.1f} µs/step")
    for k in ("graph_vs_raw_replay_zero_copy", "graph_vs_raw_replay_with_copy", "streams_extra_us_per_launch",
              "eager_extra_us_per_launch", "graph_speedup_over_eager"):
        print(f"{k:>30}: {out[k]}")

"""A probe for issue 14's next step (not product code): how the gap between consecutive nodes of a
replayed CUDA graph depends on how wide the kernels are.

For chains of N identical kernels of several widths (an in-place add over 2^8 .. 2^24 floats; a
row-batch x @ W with W 256x256 and 1 .. 512 rows, like the decoder's projections), it captures
the chain as one graph and reports, per width:
    grid           the kernels' grid (from the profiler's trace)
    kernel_us      mean kernel duration inside the replay; eager_kernel_us the same chain launched
                   one by one (the diagnosis measures B that way)
    gap_us         median start(i+1) - end(i) between nodes in the profiled replay
    wall_per_node  (replay wall - one-node replay wall) / (N - 1), unprofiled
    over_per_node  wall_per_node - kernel_us: what a node costs beyond its kernel

    python3 tests/gpu_runs/node_gap_probe.py > node_gap.json     (about 30 s on an H200)
"""
import json
import statistics
import sys
import time

import torch

N = 200
REPS = 30


def kernels_of(fn) -> list[dict]:
    """The kernel events of one call of fn (runtime_core/model/node_costs.py reads them): ts, dur (µs), grid."""
    from runtime_core.model.node_costs import gpu_events
    return [e for e in gpu_events(fn) if e["cat"] == "kernel"]


def replay_wall_us(g) -> float:
    g.replay()
    torch.cuda.synchronize()
    samples = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        g.replay()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def capture(step, n):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step(n)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        step(n)
    return g


def probe(label, step) -> dict:
    g_long, g_one = capture(step, N), capture(step, 1)
    wall_long, wall_one = replay_wall_us(g_long), replay_wall_us(g_one)
    ks, ks_one = kernels_of(g_long.replay), kernels_of(g_one.replay)
    eager = kernels_of(lambda: step(N))
    gaps = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(ks, ks[1:])]
    kernel_us = statistics.mean(k["dur"] for k in ks) if ks else None
    per_node = (wall_long - wall_one) / max(1, len(ks) - len(ks_one))  # per kernel (an op may launch several)
    return {"kernel": label, "grid": ks[0]["grid"] if ks else None, "nodes": len(ks),
            "kernel_us": round(kernel_us, 3) if ks else None,
            "eager_kernel_us": round(statistics.mean(k["dur"] for k in eager), 3) if eager else None,
            "gap_us": round(statistics.median(gaps), 3) if gaps else None,
            "wall_per_node_us": round(per_node, 3),
            "over_per_node_us": round(per_node - kernel_us, 3) if ks else None,
            "wall_one_node_us": round(wall_one, 3)}


def main() -> int:
    if not torch.cuda.is_available():
        print("node_gap_probe: needs a CUDA GPU", file=sys.stderr)
        return 2
    rows = []
    for k in (8, 12, 14, 16, 18, 20, 22, 24):
        x = torch.zeros(1 << k, device="cuda")
        rows.append(probe(f"add_ {1 << k} floats", lambda n, x=x: [x.add_(1.0) for _ in range(n)]))
        print(json.dumps(rows[-1]), file=sys.stderr)
    w = torch.randn(256, 256, device="cuda") / 16
    for rows_ in (1, 8, 64, 512):
        a = torch.randn(rows_, 256, device="cuda")
        out = torch.empty_like(a)
        rows.append(probe(f"mm {rows_}x256 @ 256x256", lambda n, a=a, out=out: [torch.mm(a, w, out=out) for _ in range(n)]))
        print(json.dumps(rows[-1]), file=sys.stderr)
    print(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "nodes": N,
                      "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

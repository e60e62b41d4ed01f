"""What a CUDA-graph node costs beyond its kernel, measured on kernels of our own making.

The diagnosis predicts a graph step from one *profiled eager* step: the kernels' durations plus a
cost per node. This experiment asks how that per-node cost varies with what a real network's
kernels vary in: the grid (1 to 16k blocks), the duration (1 to 120 µs), the argument count (1 to
96 tensors), the library (cuBLAS, layer norm, softmax, Triton) and the kind (kernel, copy, fill).

For each config, `op()` launches one GPU operation in place (so a chain of them is a dependent
sequence). Timing first, for every config, with nothing profiled in this process yet:
    graph of K1 and of K2 ops, replayed REPS times back to back (GPU-bound), per-replay wall;
    per_node_us = (wall(K2) - wall(K1)) / (K2 - K1) / ops_per_call
Then profiling, for every config: the ops launched one by one (eager durations, grid, block,
registers, shared memory) and one replay of the K2 graph (in-graph durations).
    extra_us = per_node_us - eager mean duration      (what the prediction needs per node)

    python -m runtime_core node-costs --out lessons/recordings/node_costs_h200.json   (CUDA, ~100 s)

`derive(rows)` reads the prediction's numbers off it: the median extra over all configs and the
band's δ, half their p10-p90 spread. On the H200 (2026-12-01): median +0.20 µs, p10 −0.13,
p90 +0.28 (δ 0.20 µs). The diagnosis prices every node at that median (predict.py's γn): the
chain's own node gap is one kernel's, and its calibration moved from 0.09 to 0.20 µs within one
grid's run. Chains of one kind cannot show what a node costs beside another kind: node_mix.py
does (a small memset between kernels costs ~0.8 µs more; copies and kernel changes nothing).
Run it in its own process: it profiles, and a profiled process launches more slowly afterwards.
"""
import json
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

K1, K2, REPS, ROUNDS = 20, 220, 20, 5
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def configs():
    dev = "cuda"
    out = []

    def add(name, op, **feat):
        out.append((name, op, feat))

    for dt, sizes in (("fp32", (1, 1024, 16384, 131072, 1 << 20, 1 << 22, 1 << 24)), ("bf16", (16384, 1 << 20, 1 << 23))):
        for n in sizes:
            x = torch.zeros(n, device=dev, dtype=torch.float32 if dt == "fp32" else torch.bfloat16)
            add(f"add_ {dt} n={n}", (lambda x=x: x.add_(1.0)), family="add", numel=n, dtype=dt)
    for n in (1024, 1 << 20):
        x = torch.zeros(n, device=dev)
        add(f"zero_ n={n}", (lambda x=x: x.zero_()), family="fill", numel=n)
        a, b = torch.zeros(n, device=dev), torch.ones(n, device=dev)
        add(f"copy_ (memcpy) n={n}", (lambda a=a, b=b: a.copy_(b)), family="memcpy", numel=n)
    for dt in ("fp32", "bf16"):
        t = torch.float32 if dt == "fp32" else torch.bfloat16
        for (m, n, k) in ((1, 768, 768), (16, 768, 768), (128, 768, 768), (512, 768, 3072), (2048, 768, 3072),
                          (64, 64, 64), (4, 3072, 768)):
            a, b = torch.randn(m, k, device=dev, dtype=t), torch.randn(k, n, device=dev, dtype=t)
            c = torch.empty(m, n, device=dev, dtype=t)
            add(f"mm {dt} {m}x{k}x{n}", (lambda a=a, b=b, c=c: torch.mm(a, b, out=c)), family="mm", dtype=dt)
        for rows in (1, 128, 2048):
            x = torch.randn(rows, 768, device=dev, dtype=t)
            w, bb = torch.ones(768, device=dev, dtype=t), torch.zeros(768, device=dev, dtype=t)
            add(f"layer_norm {dt} {rows}x768", (lambda x=x, w=w, bb=bb: F.layer_norm(x, (768,), w, bb)),
                family="layer_norm", dtype=dt)
        for bh in (12, 192):
            x = torch.randn(bh, 128, 128, device=dev, dtype=t)
            add(f"softmax {dt} {bh}x128x128", (lambda x=x: torch.softmax(x, -1)), family="softmax", dtype=dt)
    for count in (4, 32, 96):
        xs = [torch.zeros(1024, device=dev) for _ in range(count)]
        add(f"_foreach_add_ {count}x1024", (lambda xs=xs: torch._foreach_add_(xs, 1.0)), family="foreach", tensors=count)
    try:
        out += triton_configs(dev)
    except Exception as e:  # noqa: BLE001 - a probe: say it and go on
        print("triton configs skipped:", repr(e), file=sys.stderr)
    return out


def triton_configs(dev):
    import triton
    import triton.language as tl

    @triton.jit
    def spin(x_ptr, iters, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs)
        for _ in range(iters):
            v = v * 0.999 + 0.001
        tl.store(x_ptr + offs, v)

    @triton.jit
    def spin16(x_ptr, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, iters, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs)
        v += tl.load(p1 + offs) + tl.load(p2 + offs) + tl.load(p3 + offs) + tl.load(p4 + offs) + tl.load(p5 + offs)
        v += tl.load(p6 + offs) + tl.load(p7 + offs) + tl.load(p8 + offs) + tl.load(p9 + offs) + tl.load(p10 + offs)
        v += tl.load(p11 + offs) + tl.load(p12 + offs) + tl.load(p13 + offs) + tl.load(p14 + offs) + tl.load(p15 + offs)
        for _ in range(iters):
            v = v * 0.999 + 0.001
        tl.store(x_ptr + offs, v)

    out = []
    for grid in (1, 132, 1056, 8448):
        x = torch.zeros(grid * 128, device=dev)
        for iters in (1, 200, 2000):
            out.append((f"triton spin grid={grid} iters={iters}",
                        (lambda x=x, grid=grid, iters=iters: spin[(grid,)](x, iters, BLOCK=128)),
                        {"family": "triton_spin", "grid_blocks": grid, "iters": iters, "ptr_args": 1}))
        if grid in (1, 1056):
            ps = [torch.zeros(grid * 128, device=dev) for _ in range(15)]
            for iters in (1, 200):
                out.append((f"triton spin16 grid={grid} iters={iters}",
                            (lambda x=x, ps=ps, grid=grid, iters=iters: spin16[(grid,)](x, *ps, iters, BLOCK=128)),
                            {"family": "triton_spin16", "grid_blocks": grid, "iters": iters, "ptr_args": 16}))
    return out


def capture(op, k):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            op()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(k):
            op()
    g.replay()
    torch.cuda.synchronize()
    return g


def replay_us(g) -> float:
    samples = []
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(REPS):
            g.replay()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) / REPS * 1e6)
    return statistics.median(samples)


def gpu_events(fn, name_chars: int = 60) -> list[dict]:
    """The GPU operations of one call of fn, in order (kernels, memcpys, memsets), from a profile."""
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    os.unlink(path)
    ev = [e for e in events if e.get("ph") == "X" and e.get("cat") in GPU_CATS]
    return sorted(({"ts": float(e["ts"]), "dur": float(e["dur"]), "cat": e["cat"], "name": e.get("name", "")[:name_chars],
                    **{k: (e.get("args") or {}).get(k) for k in ("grid", "block", "registers per thread",
                                                                  "shared memory", "blocks per SM")}}
                   for e in ev), key=lambda r: r["ts"])


def run_experiment(cfgs=None) -> list[dict]:
    """Every config timed (unprofiled), then profiled; one row each (see the module docstring).
    `cfgs`: (name, op, features) triples as configs() makes them (None: configs())."""
    cfgs = cfgs if cfgs is not None else configs()
    rows = []
    for name, op, feat in cfgs:  # phase 1: time, nothing profiled yet in this process
        try:
            g1, g2 = capture(op, K1), capture(op, K2)
            w1, w2 = replay_us(g1), replay_us(g2)
            rows.append({"name": name, **feat, "wall_k1_us": round(w1, 3), "wall_k2_us": round(w2, 3),
                         "slope_us": round((w2 - w1) / (K2 - K1), 4), "_g2": g2})
        except Exception as e:  # noqa: BLE001
            rows.append({"name": name, **feat, "error": repr(e)[:300]})
        print("timed", name, rows[-1].get("slope_us", rows[-1].get("error")), file=sys.stderr, flush=True)
    for (name, op, feat), r in zip(cfgs, rows):  # phase 2: profile
        if "error" in r:
            continue
        g2 = r.pop("_g2")
        try:
            eager = gpu_events(lambda: [op() for _ in range(K2)])
            graph = gpu_events(g2.replay)
            per_call = max(1, round(len(eager) / K2))
            r["ops_per_call"] = per_call
            r["per_node_us"] = round(r["slope_us"] / per_call, 4)
            r["eager_mean_us"] = round(statistics.fmean(e["dur"] for e in eager), 4)
            r["graph_mean_us"] = round(statistics.fmean(e["dur"] for e in graph), 4)
            gaps = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(graph, graph[1:])]
            r["graph_gap_median_us"] = round(statistics.median(gaps), 4) if gaps else None
            r["extra_us"] = round(r["per_node_us"] - r["eager_mean_us"], 4)
            r["kernels"] = eager[:per_call]
        except Exception as e:  # noqa: BLE001
            r["profile_error"] = repr(e)[:300]
        print("profiled", name, r.get("extra_us"), file=sys.stderr, flush=True)
    return rows


def derive(rows: list[dict]) -> dict:
    """The median per-node extra (µs beyond the eager-profiled duration) and the band's δ."""
    x = [r["extra_us"] for r in rows if r.get("extra_us") is not None]
    if len(x) < 5:
        raise ValueError(f"node costs need at least 5 measured configs, got {len(x)}")
    return spread_summary(x, "median_extra_us")


def spread_summary(values: list[float], median_key: str) -> dict:
    """How a cost varies over configs: their count, the median (under `median_key`), the p10 and
    p90, and the band's spread, half the p10-p90 range (µs, rounded to 4 places)."""
    x = sorted(values)
    q = lambda f: x[round(f * (len(x) - 1))]  # noqa: E731
    return {"configs": len(x), median_key: round(q(0.5), 4), "p10_us": round(q(0.1), 4),
            "p90_us": round(q(0.9), 4), "spread_us": round((q(0.9) - q(0.1)) / 2, 4)}


def record(out_path: str, force: bool = False) -> dict:
    """Run the experiment on this GPU and write the node_costs recording (atomically)."""
    from ..recordings import store
    from ..engine.measure import _torch_version
    store.check_target(out_path, force=force)
    rows = run_experiment()
    doc = {"meta": store.new_meta("node_costs", torch.cuda.get_device_name(0), _torch_version(), "cuda",
                                  k1=K1, k2=K2, reps=REPS, rounds=ROUNDS),
           "rows": rows, "derived": derive(rows)}
    store.write(out_path, doc, overwrite=force)
    return {"out": str(out_path), **doc["derived"]}

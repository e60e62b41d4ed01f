"""What an eager kernel costs beyond its profiled duration when the GPU never waits for the host:
the stream gap γs, measured on kernels of our own making (node_costs.py's configs).

The diagnosis predicts a device-bound eager step as B + (K−1)·γs + s: the profiled durations and
one gap between separately launched operations. γs came from the chain kernel alone (calibrate.py);
a real network launches cuBLAS, cuDNN, layer norm, softmax and fills of every grid size, and the
gap after each may differ, as the graph's per-node cost did (node_costs.py). This experiment times,
for each config, a chain of K1 and of K2 of its operations launched one by one *behind a sleep
kernel* long enough that the host has queued them all before the GPU reaches the first, so the
chain's wall is the GPU's alone:

    per_op_us = (wall(K2) − wall(K1)) / (K2 − K1) / ops_per_call        (unprofiled)
    gap_us    = per_op_us − the mean duration of the op in an eager profile

A row whose host took longer to queue its K2 operations than the sleep lasts is not GPU-bound and
is left out (`gpu_bound: false`). `derive_stream(rows)` reads the median gap over the configs and
its spread, half the p10-p90 range, as node_costs.derive does for a node.

What the diagnosis does with it, fixed before the H200 was asked (2026-12-03): where the device's
node_costs recording has this "stream" section, every eager gap is priced at its median (γs,
replacing the chain's), and the band moves each gap by ± its spread (δs) the way it moves each
graph node by ±δ: band = [eager(H_lo, γs − δs) / graph(γn + δ), eager(H_hi, γs + δs) / graph(γn − δ)].

    python -m runtime_core node-costs --stream --out lessons/recordings/node_costs_h200.json   (CUDA, ~60 s)

Run it in a process of its own: a profiled process launches more slowly afterwards.
"""
from __future__ import annotations

import statistics
import sys
import time

import torch

from .node_costs import K1, K2, ROUNDS, configs, gpu_events, spread_summary

SLEEP_MARGIN = 2.0     # the sleep lasts at least this many times the host's time to queue K2 ops ...
SLEEP_MIN_US = 2000.0  # ... and at least this long


def cycles_per_us() -> float:
    """GPU clock cycles of torch.cuda._sleep per µs, from one long sleep timed by events."""
    torch.cuda._sleep(1000)
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    torch.cuda._sleep(20_000_000)
    b.record()
    torch.cuda.synchronize()
    return 20_000_000 / (a.elapsed_time(b) * 1e3)


def queue_us(op, k: int) -> float:
    """Host µs to queue `k` calls of `op` (the GPU kept busy behind a sleep while it does)."""
    torch.cuda._sleep(50_000_000)
    t0 = time.perf_counter()
    for _ in range(k):
        op()
    dt = (time.perf_counter() - t0) * 1e6
    torch.cuda.synchronize()
    return dt


def chain_wall_us(op, k: int, sleep_cycles: int) -> float:
    """The median over ROUNDS of: a sleep, then `k` calls of `op` queued behind it, to the sync (µs)."""
    out = []
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        torch.cuda._sleep(sleep_cycles)
        for _ in range(k):
            op()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(out)


def run_stream(cfgs=None) -> list[dict]:
    """Every config timed behind a sleep (unprofiled), then profiled eagerly; one row each."""
    cfgs = cfgs if cfgs is not None else configs()
    per_us = cycles_per_us()
    rows = []
    for name, op, feat in cfgs:  # time first: nothing profiled yet in this process
        try:
            for _ in range(3):
                op()
            host = queue_us(op, K2)
            sleep_us = max(SLEEP_MIN_US, SLEEP_MARGIN * host)
            cyc = int(sleep_us * per_us)
            w1, w2 = chain_wall_us(op, K1, cyc), chain_wall_us(op, K2, cyc)
            rows.append({"name": name, **feat, "host_queue_us": round(host, 1), "sleep_us": round(sleep_us, 1),
                         "gpu_bound": host < sleep_us, "wall_k1_us": round(w1, 3), "wall_k2_us": round(w2, 3),
                         "slope_us": round((w2 - w1) / (K2 - K1), 4)})
        except Exception as e:  # noqa: BLE001 - a probe: say it and go on
            rows.append({"name": name, **feat, "error": repr(e)[:300]})
        print("timed stream", name, rows[-1].get("slope_us", rows[-1].get("error")), file=sys.stderr, flush=True)
    for (name, op, feat), r in zip(cfgs, rows):
        if "error" in r:
            continue
        try:
            ev = gpu_events(lambda: [op() for _ in range(K2)])
            per_call = max(1, round(len(ev) / K2))
            r["ops_per_call"] = per_call
            r["per_op_us"] = round(r["slope_us"] / per_call, 4)
            r["eager_mean_us"] = round(statistics.fmean(e["dur"] for e in ev), 4)
            r["gap_us"] = round(r["per_op_us"] - r["eager_mean_us"], 4)
        except Exception as e:  # noqa: BLE001
            r["profile_error"] = repr(e)[:300]
    return rows


def derive_stream(rows: list[dict]) -> dict:
    """The median stream gap over the GPU-bound configs (µs beyond the eager-profiled duration) and
    the band's δs, half its p10-p90 spread."""
    x = [r["gap_us"] for r in rows if r.get("gap_us") is not None and r.get("gpu_bound")]
    if len(x) < 5:
        raise ValueError(f"stream gaps need at least 5 GPU-bound configs, got {len(x)}")
    return spread_summary(x, "median_gap_us")


def record_stream(out_path: str) -> dict:
    """Run the experiment on this GPU and write it into the node_costs recording at `out_path`
    (same device) as its "stream" section, with its own date and torch version."""
    from ..recordings import store
    from ..engine.measure import _torch_version
    from ..errors import UsageError
    from .node_mix import existing_node_costs
    doc = existing_node_costs(out_path, "--stream")
    rows = run_stream()
    try:
        derived = derive_stream(rows)
    except ValueError as e:
        import json
        print(json.dumps(rows), file=sys.stderr)
        raise UsageError(f"node-costs --stream: {e}; nothing written (the rows are on stderr)") from e
    doc["stream"] = {"recorded_at": store.now_utc(), "torch_version": _torch_version(), "k1": K1, "k2": K2,
                     "rows": rows, "derived": derived}
    store.write(out_path, doc, overwrite=True)
    return {"out": str(out_path), **derived}

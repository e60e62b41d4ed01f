"""The malloc_async lab's measurement (runtime_core/labs/malloc_async.py) in THIS process, under
its PYTORCH_CUDA_ALLOC_CONF (the lab starts one fresh child per backend): an allocation's cost,
reserved memory as torch and the driver see it, and a CUDA-graph capture of one small step.
"""
from __future__ import annotations

import time

SIZES = {"4 KiB": 4 << 10, "1 MiB": 1 << 20, "64 MiB": 64 << 20}
PAIRS = 2000


def _pair_us(torch, nbytes: int, n: int = PAIRS) -> float:
    for _ in range(50):
        x = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        del x
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        x = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        del x
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


def _step(torch, x, w1, w2):
    return ((x @ w1).relu() @ w2).sum(dim=1)


def backend_facts() -> dict:
    """In THIS (fresh) process, under its PYTORCH_CUDA_ALLOC_CONF: the three measurements."""
    import os

    import torch
    torch.cuda.init()
    free0, total = torch.cuda.mem_get_info()
    out = {"alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
           "allocator_backend": torch.cuda.get_allocator_backend(), "torch_version": torch.__version__}
    out["alloc_free_us"] = {label: round(_pair_us(torch, n), 3) for label, n in SIZES.items()}
    sizes = [(i % 7 + 1) * (3 << 20) for i in range(48)]
    peak_driver = 0
    for step in range(4):
        xs = [torch.empty(s, dtype=torch.uint8, device="cuda") for s in sizes]
        del xs[::2]
        xs += [torch.empty(s + (1 << 20), dtype=torch.uint8, device="cuda") for s in sizes[::3]]
        torch.cuda.synchronize()
        peak_driver = max(peak_driver, free0 - torch.cuda.mem_get_info()[0])
        del xs
    torch.cuda.synchronize()
    out["memory"] = {"reserved_bytes": torch.cuda.memory_reserved(), "allocated_bytes": torch.cuda.memory_allocated(),
                     "driver_used_after_bytes": free0 - torch.cuda.mem_get_info()[0],
                     "driver_used_peak_bytes": peak_driver, "device_total_bytes": total}
    try:
        out["memory"]["reserved_peak_bytes"] = torch.cuda.memory_stats().get("reserved_bytes.all.peak")
    except RuntimeError as e:
        out["memory"]["stats_error"] = " ".join(str(e).split())[:300]
    out["graph"] = _graph(torch)
    return out


def _graph(torch) -> dict:
    torch.manual_seed(0)
    x = torch.randn(256, 512, device="cuda")
    w1, w2 = torch.randn(512, 1024, device="cuda"), torch.randn(1024, 512, device="cuda")
    want = _step(torch, x, w1, w2)
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                _step(torch, x, w1, w2)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        t = time.perf_counter()
        with torch.cuda.graph(g):
            y = _step(torch, x, w1, w2)
        capture_s = time.perf_counter() - t
        g.replay()
        torch.cuda.synchronize()
        err = float((y - want).abs().max())
        t = time.perf_counter()
        for _ in range(200):
            g.replay()
        torch.cuda.synchronize()
        return {"captured": True, "capture_ms": round(capture_s * 1e3, 3), "max_abs_err": err,
                "matches_eager": err <= 1e-3 * float(want.abs().max()),
                "replay_us": round((time.perf_counter() - t) / 200 * 1e6, 3)}
    except Exception as e:  # the capture's own error is the finding
        return {"captured": False, "error": f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"}

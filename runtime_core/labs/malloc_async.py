"""malloc_async lab: PyTorch's cudaMallocAsync backend vs its native caching allocator (CUDA).

One fresh child process per backend (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, or
unset: "native"), each measuring the same three things:

    alloc_free_us   µs per torch.empty + del pair, steady state, at 4 KiB, 1 MiB and 64 MiB
    memory          over a few training-like steps (a list of tensors of mixed sizes, half freed,
                    reallocated): torch.cuda.memory_reserved / memory_allocated, and the driver's
                    own view (cudaMemGetInfo: bytes used above the process's start)
    graph           torch.cuda.graph capture of the same small step, one replay checked against
                    eager, µs per replay; or the error the capture raised

On a machine without a GPU the lab shows the shipped recording, or says it is owed.
"""
from __future__ import annotations

import time

from .gpu_recorded import in_child, live_or_recorded

LAB = dict(name="malloc_async",
           summary="the cudaMallocAsync allocator backend vs native: allocation cost, reserved memory, "
                   "CUDA-graph capture of the same step (one fresh process each)",
           page="pages/3_Caching_allocator.py", panel="malloc_async",
           renderer="pages.ui.labs29_panels:malloc_async", text_key="malloc_async_backend")

WHAT = "the cudaMallocAsync backend against the native allocator"
BACKENDS = {"native": None, "cudaMallocAsync": "backend:cudaMallocAsync"}
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


def measure() -> dict:
    out = {"backends": {}, "errors": []}
    for name, conf in BACKENDS.items():
        r = in_child("malloc_async", "backend_facts", 180, env={"PYTORCH_CUDA_ALLOC_CONF": conf})
        out["backends"][name] = r
        if "error" in r:
            out["errors"].append(f"{name}: {r['error']}")
    return finish(out)


def finish(r: dict) -> dict:
    """signal: both backends ran and captured the same step; the verdict compares their costs."""
    b = r.get("backends") or {}
    nat, asy = b.get("native") or {}, b.get("cudaMallocAsync") or {}
    ok = all("alloc_free_us" in x for x in (nat, asy))
    r["signal"] = bool(ok and asy.get("allocator_backend") == "cudaMallocAsync")
    if not ok:
        r["verdict"] = "Nothing to compare: " + "; ".join(r.get("errors") or ["a backend did not report"])
        return r
    mib = lambda x: (x.get("memory") or {}).get("driver_used_peak_bytes", 0) / 2**20  # noqa: E731
    cap = lambda x: "captured" if (x.get("graph") or {}).get("captured") else "failed to capture"  # noqa: E731
    r["verdict"] = (f"A 1 MiB torch.empty + del pair cost {nat['alloc_free_us']['1 MiB']:.2f} µs native and "
                    f"{asy['alloc_free_us']['1 MiB']:.2f} µs with cudaMallocAsync; the driver saw {mib(nat):.0f} vs "
                    f"{mib(asy):.0f} MiB at peak; the same step {cap(nat)} natively and {cap(asy)} with cudaMallocAsync.")
    return r


def run(backend: str = "sim") -> dict:
    return live_or_recorded("malloc_async", WHAT, backend, measure)

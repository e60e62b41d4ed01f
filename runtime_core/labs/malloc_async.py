"""malloc_async lab: PyTorch's cudaMallocAsync backend vs its native caching allocator (CUDA).

One fresh child process per backend (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, or
unset: "native"), each measuring the same three things:

    alloc_free_us   µs per torch.empty + del pair, steady state, at 4 KiB, 1 MiB and 64 MiB
    memory          over a few training-like steps (a list of tensors of mixed sizes, half freed,
                    reallocated): memory_reserved() / memory_allocated(), and the driver's
                    own view (cudaMemGetInfo: bytes used above the process's start)
    graph           a CUDA-graph capture of the same small step, one replay checked against
                    eager, µs per replay; or the error the capture raised

On a machine without a GPU the lab shows the shipped recording, or says it is owed.
"""
from __future__ import annotations

from .gpu_recorded import in_child, live_or_recorded

LAB = dict(name="malloc_async",
           summary="the cudaMallocAsync allocator backend vs native: allocation cost, reserved memory, "
                   "CUDA-graph capture of the same step (one fresh process each)",
           page="pages/3_Caching_allocator.py", panel="malloc_async",
           renderer="pages.ui.labs29_panels:malloc_async", text_key="malloc_async_backend")

WHAT = "the cudaMallocAsync backend against the native allocator"
BACKENDS = {"native": None, "cudaMallocAsync": "backend:cudaMallocAsync"}


def measure() -> dict:
    out = {"backends": {}, "errors": []}
    for name, conf in BACKENDS.items():
        r = in_child("allocator.torch_malloc_async", "backend_facts", 180, env={"PYTORCH_CUDA_ALLOC_CONF": conf})
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
                    f"{mib(asy):.0f} MiB at peak; the same step {cap(nat)} natively and {cap(asy)} "
                    "with cudaMallocAsync.")
    return r


def run(backend: str = "sim") -> dict:
    return live_or_recorded("malloc_async", WHAT, backend, measure)

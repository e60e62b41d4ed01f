"""Hot-path allocation lab: a driver allocation in every step vs a pool that keeps its segments.

Each step allocates a few buffers, runs a kernel on each and frees them. With the pool kept
(PyTorch's default), only the first step reaches the driver. Calling empty_cache() every step
hands the segments back, so every step pays cudaMalloc again before its first kernel: the same
cost as allocating raw on the hot path, and reserved memory saws up and down.

This lab reuses the allocator package's loop (runtime_core/allocator/hot_path.py) rather than
writing another: on sim our CachingPool drives a SimDevice, with each driver call costing the
H200-derived SIM_DRIVER_CALL_US; on CUDA it is PyTorch's caching allocator on the wall clock,
plus the measured µs of one raw cudaMalloc+cudaFree pair vs one pooled torch.empty (compare.py).
"""
from __future__ import annotations

from ..allocator import compare, hot_path
from .common import cuda_name, header, resolve_backend

SIM_STEPS = 6
CUDA_STEPS = 20
PAIR_BYTES = 1 << 20  # cuda: the buffer size for the per-pair costs


def run(backend: str = "sim") -> dict:
    """Per-step µs, driver mallocs after step 1 and reserved-memory drops, both ways.

    Returns the header keys plus "raw_each_step" (empty_cache every step) and "pool_kept",
    each {steps, per_step_us, driver_mallocs_after_first_step, reserved_drops}; on sim
    `timelines` {"raw_each_step": spans} showing the driver calls; on CUDA
    raw_pair_us / pool_pair_us for 1 MiB; then signal and verdict.
    """
    backend = resolve_backend(backend)
    loop, steps = ((hot_path.hot_path_cuda, CUDA_STEPS) if backend == "cuda"
                   else (hot_path.hot_path_sim, SIM_STEPS))
    runs = {"raw_each_step": loop(steps=steps, empty_cache_each_step=True),
            "pool_kept": loop(steps=steps, empty_cache_each_step=False)}
    out = header("malloc", backend, cuda_name() if backend == "cuda" else "SimDevice (simulated)")
    for name, r in runs.items():
        out[name] = {"steps": steps, "per_step_us": round(r["wall_us"] / steps, 1),
                     "driver_mallocs": r["driver_mallocs"],
                     "driver_mallocs_after_first_step": r["driver_mallocs_after_first_step"],
                     "reserved_drops": _drops([s[2] for s in r["samples"]])}
    if backend == "sim":
        out["timelines"] = {"raw_each_step": [
            {"lane": lane, "kind": _kind(lane, name), "name": name,
             "start_us": round(a, 3), "end_us": round(b, 3)}
            for lane, name, a, b in runs["raw_each_step"]["spans"]]}
    else:
        out["raw_pair_us"] = compare.raw(PAIR_BYTES, "cuda")["alloc_free_us"]
        out["pool_pair_us"] = compare.torch_empty(PAIR_BYTES, "cuda")["alloc_free_us"]
    raw, kept = out["raw_each_step"], out["pool_kept"]
    out["signal"] = raw["driver_mallocs_after_first_step"] > 0 and raw["reserved_drops"] > 0
    out["verdict"] = (f"Allocating from the driver every step: {raw['per_step_us']:.0f} µs per step, "
                      f"{raw['driver_mallocs_after_first_step']} driver mallocs after step 1 and a "
                      f"sawtooth of {raw['reserved_drops']} drops in reserved memory. Pool kept: "
                      f"{kept['per_step_us']:.0f} µs per step, "
                      f"{kept['driver_mallocs_after_first_step']} mallocs after step 1.")
    return out


def _kind(lane: str, name: str) -> str:
    if name in ("cudaMalloc", "cudaFree"):
        return "driver"
    return "kernel" if lane == "gpu" else "launch"


def _drops(reserved_bytes: list[int]) -> int:
    """How many times reserved memory went down: each drop is segments handed back."""
    return sum(1 for a, b in zip(reserved_bytes, reserved_bytes[1:]) if b < a)

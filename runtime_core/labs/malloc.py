"""Hot-path allocation lab: a driver allocation in every step vs a pool that keeps its segments.

Each step allocates a few buffers, runs a kernel on each and frees them. With the pool kept,
only the first step reaches the driver. Calling empty_cache() every step hands the segments
back, so every step pays cudaMalloc again before its first kernel: the same cost as allocating
raw on the hot path, and reserved memory saws up and down.

One program for both devices: the allocator package's loop (allocator/hot_path.py) on the
device's raw allocator, plus the per-pair cost of a raw malloc+free against the device's own
caching allocator (allocator/compare.py).
"""
from __future__ import annotations

from ..allocator import compare
from ..allocator.hot_path import SIM_PARAMS, hot_path
from ..recordings.shipped import get_device
from .common import header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="malloc", summary="driver allocation every step vs a kept pool",
           page="pages/8_Failure_modes.py", panel="failure_modes",
           renderer="pages.ui.lab_panels:malloc", text_key="hot_malloc")

STEPS = 6
PAIR_BYTES = 1 << 20  # the buffer size for the per-pair costs


def run(backend: str = "sim") -> dict:
    """Per-step µs, driver mallocs after step 1 and reserved-memory drops, both ways.

    Returns the header keys plus "raw_each_step" (empty_cache every step) and "pool_kept",
    each {steps, per_step_us, driver_mallocs, driver_mallocs_after_first_step, reserved_drops};
    raw_pair_us / pool_pair_us for 1 MiB; where the device traces for free, `timelines`
    {"raw_each_step": spans} showing the driver calls; then signal and verdict.
    """
    dev = get_device(backend, **SIM_PARAMS)
    runs = {"raw_each_step": hot_path(dev, steps=STEPS, empty_cache_each_step=True),
            "pool_kept": hot_path(dev, steps=STEPS, empty_cache_each_step=False)}
    out = header("malloc", dev)
    for name, r in runs.items():
        out[name] = {"steps": STEPS, "per_step_us": round(r["wall_us"] / STEPS, 1),
                     "driver_mallocs": r["driver_mallocs"],
                     "driver_mallocs_after_first_step": r["driver_mallocs_after_first_step"],
                     "reserved_drops": _drops([s[2] for s in r["samples"]])}
    if runs["raw_each_step"]["spans"]:
        out["timelines"] = {"raw_each_step": [
            {"lane": lane, "kind": _kind(lane, name), "name": name,
             "start_us": round(a, 3), "end_us": round(b, 3)}
            for lane, name, a, b in runs["raw_each_step"]["spans"]]}
    out["raw_pair_us"] = compare.raw(dev, PAIR_BYTES)["alloc_free_us"]
    out["pool_pair_us"] = compare.framework(dev, PAIR_BYTES)["alloc_free_us"]
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

"""Sync lab: a tiny two-kernel training-style step, with and without a `.item()` in every step.

Without the sync the host launches step after step and the GPU drains the queue behind it.
With one, every step ends with the host waiting for the GPU to finish (and the round trip of
that wait), so the next step's launches start from an empty queue: the GPU idles while the
host launches, and the host idles while the GPU works. No kernel gets slower; the step does.

One program for both devices: two chain kernels on a small buffer, and `dev.item(x)` (a
device-to-host read of one value, like `loss.item()`) at the end of each synced step.
"""
from __future__ import annotations

from ..engine.tracing import trace_inline
from ..recordings.shipped import get_device
from .common import header, span_rows, timed_us

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="sync", summary="a sync (.item()) in every step of a tiny loop",
           page="pages/2_Streams_and_async.py", panel="sync",
           renderer="pages.ui.lab_panels:sync", text_key="sync_in_loop")

STEPS = 200           # timed steps per variant
TIMELINE_STEPS = 3    # steps drawn in each timeline
OP_WORK_US = 5.0      # per kernel: long enough that, without a sync, the GPU is rarely idle

# The simulated machine: the seed's 6 µs launch tax, and a sync round trip of ≈5 µs once the GPU
# is idle, what calibrate() measured on the H200 (sweep_h200.json, meta.calibration.sync_us).
SIM_PARAMS = {"tax_us": 6.0, "sync_us": 5.0}


def numbers(r: dict) -> dict[str, str]:
    """The lab's numbers as printed, from the stored (rounded) fields of a result `r`: the page's
    metrics and the verdict both print these, so they cannot disagree in the last digit."""
    return {"step": f"{r['step_us']:.1f}", "step_with_sync": f"{r['step_with_sync_us']:.1f}",
            "slowdown": f"{r['slowdown']:.2f}", "idle": f"{r['gpu_idle_us_per_step']:.1f}",
            "idle_with_sync": f"{r['gpu_idle_with_sync_us_per_step']:.1f}"}


def verdict(r: dict) -> str:
    """The verdict sentence of a result `r`, from `numbers(r)` (a recorded result's stored
    verdict may predate this and round the unrounded values: show this one)."""
    n = numbers(r)
    return (f"A sync in every step took it from {n['step']} to {n['step_with_sync']} µs ({n['slowdown']}×); "
            f"the GPU now idles {n['idle_with_sync']} µs of every step instead of {n['idle']}.")


def run(backend: str = "sim") -> dict:
    """µs per step and GPU idle µs per step, without and with a sync each step.

    Returns the header keys plus step_us / step_with_sync_us, gpu_idle_us_per_step /
    gpu_idle_with_sync_us_per_step, slowdown, signal, verdict and, where the device traces for
    free (the simulator), `timelines` {"no_sync": spans, "sync": spans} of the first steps.
    """
    dev = get_device(backend, **SIM_PARAMS)
    x = dev.new_buffer(dev.numel_for_work(OP_WORK_US))
    busy_us = dev.chain_busy_us(2, x.numel)  # the step's two kernels, timed in bulk

    def steps(k: int, sync: bool) -> None:
        for _ in range(k):
            dev.launch_chain_kernel(x)
            dev.launch_chain_kernel(x)
            if sync:
                dev.item(x)  # what .item() does: copy one value out and wait for it

    res, timelines = {}, {}
    for variant, sync in (("no_sync", False), ("sync", True)):
        steps(20, sync)  # warm-up
        step_us = timed_us(dev, lambda: steps(STEPS, sync)) / STEPS
        res[variant] = {"step_us": step_us, "idle_us": max(0.0, step_us - busy_us)}
        tr = trace_inline(dev, lambda: steps(TIMELINE_STEPS, sync))
        if tr is not None:
            timelines[variant] = span_rows(tr.spans)
    plain, synced = res["no_sync"], res["sync"]
    slowdown = synced["step_us"] / plain["step_us"]
    out = header("sync", dev)
    out.update({"steps": STEPS, "ops_per_step": 2,
                "step_us": round(plain["step_us"], 3),
                "step_with_sync_us": round(synced["step_us"], 3),
                "gpu_idle_us_per_step": round(plain["idle_us"], 3),
                "gpu_idle_with_sync_us_per_step": round(synced["idle_us"], 3),
                "gpu_busy_us_per_step": round(busy_us, 3),
                "slowdown": round(slowdown, 2)})
    # The symptom: the step is slower and the GPU idles more, though the kernels did not change.
    out["signal"] = slowdown > 1.2 and synced["idle_us"] > plain["idle_us"]
    out["verdict"] = verdict(out)
    if timelines:
        out["timelines"] = timelines
    return out

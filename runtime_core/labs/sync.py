"""Sync lab: a tiny two-op training-style step, with and without a `.item()` in every step.

Without the sync the host launches step after step and the GPU drains the queue behind it.
With one, every step ends with the host waiting for the GPU to finish (and the round trip of
that wait), so the next step's launches start from an empty queue: the GPU idles while the
host launches, and the host idles while the GPU works. No kernel gets slower; the step does.

sim:  two chain kernels per step; the sync is `synchronize()` with a round-trip cost.
cuda: `x.add_(1); s = x.sum()` on a small tensor, and `s.item()` in the synced variant.
"""
from __future__ import annotations

import time

from .common import cuda_name, header, resolve_backend, span_rows

STEPS = 200           # timed steps per variant
TIMELINE_STEPS = 3    # steps drawn in each timeline
CUDA_NUMEL = 1024     # cuda: a tiny tensor, so each op is a tiny kernel

# Simulated constants, µs. The launch tax is the seed's 6 µs; the round trip of a sync once the
# GPU is idle is ≈5 µs, what calibrate() measured on the H200 (sweep_h200.json, meta.calibration).
SIM_TAX_US = 6.0
SIM_SYNC_US = 5.0
SIM_OP_WORK_US = 5.0  # per op: long enough that, without a sync, the GPU is rarely idle


def run(backend: str = "sim") -> dict:
    """µs per step and GPU idle µs per step, without and with a sync each step.

    Returns the header keys plus step_us / step_with_sync_us, gpu_idle_us_per_step /
    gpu_idle_with_sync_us_per_step, slowdown, signal, verdict and (sim) `timelines`
    {"no_sync": spans, "sync": spans} of the first few steps.
    """
    backend = resolve_backend(backend)
    res = _run_cuda() if backend == "cuda" else _run_sim()
    out = header("sync", backend, cuda_name() if backend == "cuda" else "SimDevice (simulated)")
    plain, synced = res["no_sync"], res["sync"]
    slowdown = synced["step_us"] / plain["step_us"]
    out.update({"steps": STEPS, "ops_per_step": 2,
                "step_us": round(plain["step_us"], 3),
                "step_with_sync_us": round(synced["step_us"], 3),
                "gpu_idle_us_per_step": round(plain["idle_us"], 3),
                "gpu_idle_with_sync_us_per_step": round(synced["idle_us"], 3),
                "gpu_busy_us_per_step": round(plain["busy_us"], 3),
                "slowdown": round(slowdown, 2)})
    # The symptom: the step is slower and the GPU idles more, though the kernels did not change.
    out["signal"] = slowdown > 1.2 and synced["idle_us"] > plain["idle_us"]
    out["verdict"] = (f"A sync in every step took it from {plain['step_us']:.1f} to "
                      f"{synced['step_us']:.1f} µs ({slowdown:.1f}×); the GPU now idles "
                      f"{synced['idle_us']:.1f} µs of every step instead of {plain['idle_us']:.1f}.")
    if res.get("timelines"):
        out["timelines"] = res["timelines"]
    return out


# ---- simulated ---------------------------------------------------------------------------
def _run_sim() -> dict:
    from ..engine.sim_device import SimDevice, SimParams
    out, timelines = {}, {}
    for variant in ("no_sync", "sync"):
        dev = SimDevice(SimParams.of(tax_us=SIM_TAX_US, sync_us=SIM_SYNC_US))
        x = dev.new_buffer(dev.numel_for_work(SIM_OP_WORK_US))

        def steps(k: int) -> None:
            for _ in range(k):
                dev.launch_chain_kernel(x)  # op 1
                dev.launch_chain_kernel(x)  # op 2
                if variant == "sync":
                    dev.synchronize()  # what .item() does: wait for the GPU, then read

        with dev.trace() as tr:
            steps(TIMELINE_STEPS)
        timelines[variant] = span_rows(tr.spans)
        with dev.trace() as tr:
            t0 = dev.host_now_us()
            steps(STEPS)
            dev.synchronize()
            wall_us = dev.host_now_us() - t0
        busy_us = tr.kernel_busy_us() / STEPS
        out[variant] = {"step_us": wall_us / STEPS, "busy_us": busy_us,
                        "idle_us": wall_us / STEPS - busy_us}
    out["timelines"] = timelines
    return out


# ---- real GPU ----------------------------------------------------------------------------
def _run_cuda() -> dict:
    import torch
    x = torch.zeros(CUDA_NUMEL, device="cuda")

    def step(sync: bool) -> None:
        x.add_(1.0)
        s = x.sum()
        if sync:
            s.item()  # copies the scalar to the host: the host waits for the GPU

    busy_us = _gpu_busy_us_per_step(x)
    out = {}
    for variant, sync in (("no_sync", False), ("sync", True)):
        for _ in range(20):
            step(sync)  # warm-up
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(STEPS):
            step(sync)
        torch.cuda.synchronize()
        step_us = (time.perf_counter() - t0) * 1e6 / STEPS
        out[variant] = {"step_us": step_us, "busy_us": busy_us, "idle_us": max(0.0, step_us - busy_us)}
    return out


def _gpu_busy_us_per_step(x, replays: int = 200) -> float:
    """GPU time of one step's two kernels, timed in bulk: a captured step replayed many times
    between two events (one event pair around one tiny kernel reads far too high)."""
    import torch
    from ..engine.capture import warm_up_and_capture
    from ..engine.cuda_device import CudaDevice

    def step():
        x.add_(1.0)
        x.sum()
    g = warm_up_and_capture(CudaDevice.shared(), step)[0].g
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    g.replay()
    start.record()
    for _ in range(replays):
        g.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000.0 / replays

"""Overlap lab: a host→device copy on a side stream, from pinned vs pageable host memory.

The step is a compute chain on the main stream (ten big matmuls) plus one 64 MiB upload on a
side stream, issued first. From pinned memory the copy is a DMA the host only enqueues, so it
runs beside the compute. From pageable memory the driver stages the bytes through a bounce
buffer while the host waits, so the host reaches the matmul launches only after the copy:
the two serialize.

sim:  each matmul is one simulated kernel; a pinned copy is a cudaMemcpyAsync on a side stream;
      a pageable copy is a blocking host call (the host clock advances by the copy's time).
cuda: real tensors: 64 MiB float32 pinned / pageable host buffers, 4096² float32 matmuls.
"""
from __future__ import annotations

import statistics
import time

from .common import cuda_name, header, resolve_backend, span_rows

COPY_BYTES = 64 << 20      # one 64 MiB upload
MATMULS = 10               # matmuls in the compute chain
MATMUL_DIM = 4096          # cuda: square float32 matmuls of this size
VARIANTS = ("compute", "pinned", "pageable")

# Simulated durations, µs. Taken from one H200 run (shared/reference/h200-measurements.md,
# "Streams and copies"); the simulator replays them, it does not measure them.
SIM_MATMUL_US = 2700.0         # ten 4096² matmuls ≈ 27.0 ms
SIM_PINNED_COPY_US = 1270.0    # 64 MiB from pinned memory ≈ 1.27 ms
SIM_PAGEABLE_COPY_US = 9280.0  # 64 MiB from pageable memory ≈ 9.28 ms


def run(backend: str = "sim") -> dict:
    """Compute-only vs compute + pinned copy vs compute + pageable copy, wall µs per step.

    Returns the header keys plus compute_only_wall_us, pinned_wall_us, pageable_wall_us,
    pinned_added_us / pageable_added_us (each minus compute-only), signal, verdict and, on
    sim, `timelines` {variant: spans} with lanes "cpu", "gpu compute" and "gpu copy".
    """
    backend = resolve_backend(backend)
    walls, timelines = _run_cuda() if backend == "cuda" else _run_sim()
    out = header("overlap", backend, cuda_name() if backend == "cuda" else "SimDevice (simulated)")
    hidden_us = walls["pinned"] - walls["compute"]
    added_us = walls["pageable"] - walls["compute"]
    out.update({"copy_bytes": COPY_BYTES, "matmuls": MATMULS,
                "compute_only_wall_us": round(walls["compute"], 1),
                "pinned_wall_us": round(walls["pinned"], 1),
                "pageable_wall_us": round(walls["pageable"], 1),
                "pinned_added_us": round(hidden_us, 1), "pageable_added_us": round(added_us, 1)})
    # The symptom: the pageable copy costs the step far more than the pinned one does.
    out["signal"] = added_us > 4 * max(hidden_us, 1.0)
    out["verdict"] = (f"The pinned copy added {hidden_us:.0f} µs to the step (it ran beside the "
                      f"compute); the pageable copy added {added_us:.0f} µs (the host waited for it "
                      f"before it could launch the matmuls).")
    if timelines:
        out["timelines"] = timelines
    return out


# ---- simulated ---------------------------------------------------------------------------
def _run_sim() -> tuple[dict, dict]:
    from ..engine.sim_device import SimDevice, SimParams
    # One element per µs, so a buffer's size *is* its kernel time: tiny numpy arrays.
    dev = SimDevice(SimParams(elems_per_us=1.0))
    a = dev.new_buffer(int(SIM_MATMUL_US))
    # SimDevice.copy takes half a kernel's time per element: size the source to the copy time.
    src, dst = dev.new_buffer(int(2 * SIM_PINNED_COPY_US)), dev.new_buffer(int(2 * SIM_PINNED_COPY_US))
    side = dev.new_stream()

    def step(variant: str) -> None:
        if variant == "pinned":
            with dev.use_stream(side):
                dev.copy(dst, src)  # enqueued; the host goes straight on to the matmuls
        elif variant == "pageable":
            dev.host_spin(SIM_PAGEABLE_COPY_US)  # the host stages the bytes itself and waits
        for _ in range(MATMULS):
            dev.launch_chain_kernel(a)

    walls, timelines = {}, {}
    for variant in VARIANTS:
        with dev.trace() as tr:
            t0 = dev.host_now_us()
            step(variant)
            dev.synchronize()
            walls[variant] = dev.host_now_us() - t0
        timelines[variant] = span_rows(
            tr.spans, lane_of=lambda s: "cpu" if s.lane == "cpu" else f"gpu {'copy' if s.kind == 'copy' else 'compute'}",
            rename={("cpu", "spin"): "pageable H2D copy (host blocked)",
                    ("gpu", "copy"): "pinned H2D copy", ("gpu", "kernel"): "matmul"})
    return walls, timelines


# ---- real GPU ----------------------------------------------------------------------------
def _run_cuda(repeats: int = 3) -> tuple[dict, dict]:
    import torch
    numel = COPY_BYTES // 4
    host = {"pinned": torch.empty(numel, pin_memory=True), "pageable": torch.empty(numel)}
    dst = torch.empty(numel, device="cuda")
    a = torch.randn(MATMUL_DIM, MATMUL_DIM, device="cuda")
    c = torch.empty_like(a)
    side = torch.cuda.Stream()

    def step(variant: str) -> None:
        if variant != "compute":
            with torch.cuda.stream(side):  # issued first, on its own stream
                dst.copy_(host[variant], non_blocking=True)
        for _ in range(MATMULS):
            torch.mm(a, a, out=c)
        torch.cuda.synchronize()

    walls = {}
    for variant in VARIANTS:
        step(variant)  # warm-up: cuBLAS handles and workspace, the first touch of the buffers
        samples = []
        for _ in range(repeats):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            step(variant)
            samples.append((time.perf_counter() - t0) * 1e6)
        walls[variant] = statistics.median(samples)
    return walls, {}

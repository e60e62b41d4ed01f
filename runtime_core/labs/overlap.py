"""Overlap lab: a host→device copy on a side stream, from pinned vs pageable host memory.

The step is a compute chain on the main stream (ten long kernels, about as long as ten 4096²
float32 matmuls) plus one 64 MiB upload on a side stream, issued first. From pinned memory the
copy is a DMA the host only enqueues, so it runs beside the compute. From pageable memory the
driver stages the bytes through a bounce buffer while the host waits, so the host reaches the
compute launches only after the copy: the two serialize.

One program for both devices: `dev.copy_from_host` on a side stream, `dev.launch_busy_kernel`
for the compute (a timed sleep kernel on a GPU). The simulator prices each part with the H200
measurements named in SimParams.
"""
from __future__ import annotations

import statistics

from ..engine.tracing import trace_inline
from ..recordings.shipped import get_device
from .common import header, span_rows, timed_us

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="overlap", summary="pinned vs pageable host-to-device copy beside compute",
           page="pages/2_Streams_and_async.py", panel="overlap",
           renderer="pages.ui.lab_panels:overlap", text_key=None)

COPY_BYTES = 64 << 20      # one 64 MiB upload
KERNELS = 10               # long kernels in the compute chain
KERNEL_US = 2700.0         # each ≈ one 4096² fp32 matmul: ten took ≈27.0 ms on an H200
                           # (shared/reference/h200-measurements.md, "Streams and copies")
VARIANTS = ("compute", "pinned", "pageable")
REPEATS = 3


def run(backend: str = "sim") -> dict:
    """Compute-only vs compute + pinned copy vs compute + pageable copy, wall µs per step.

    Returns the header keys plus compute_only_wall_us, pinned_wall_us, pageable_wall_us,
    pinned_added_us / pageable_added_us (each minus compute-only), signal, verdict and, where
    the device traces for free, `timelines` {variant: spans} with lanes "cpu", "gpu compute"
    and "gpu copy".
    """
    dev = get_device(backend)
    numel = COPY_BYTES // 4
    host = {"pinned": dev.new_host_buffer(numel, pinned=True),
            "pageable": dev.new_host_buffer(numel, pinned=False)}
    dst = dev.new_buffer(numel)
    side = dev.new_stream()

    def step(variant: str) -> None:
        if variant != "compute":
            with dev.use_stream(side):  # issued first, on its own stream
                dev.copy_from_host(dst, host[variant])
        for _ in range(KERNELS):
            dev.launch_busy_kernel(KERNEL_US)

    walls, timelines = {}, {}
    for variant in VARIANTS:
        timed_us(dev, lambda: step(variant))  # warm-up: first touch of buffers and handles
        walls[variant] = statistics.median(timed_us(dev, lambda: step(variant)) for _ in range(REPEATS))
        tr = trace_inline(dev, lambda: step(variant))
        if tr is not None:
            timelines[variant] = span_rows(
                tr.spans, lane_of=lambda s: "cpu" if s.lane == "cpu" else f"gpu {'copy' if s.kind == 'copy' else 'compute'}",
                rename={("cpu", "copy"): "pageable H2D copy (host blocked)",
                        ("gpu", "copy"): "H2D copy", ("gpu", "kernel"): "compute kernel"})
    out = header("overlap", dev)
    hidden_us = walls["pinned"] - walls["compute"]
    added_us = walls["pageable"] - walls["compute"]
    out.update({"copy_bytes": COPY_BYTES, "compute_kernels": KERNELS, "compute_kernel_us": KERNEL_US,
                "compute_only_wall_us": round(walls["compute"], 1),
                "pinned_wall_us": round(walls["pinned"], 1),
                "pageable_wall_us": round(walls["pageable"], 1),
                "pinned_added_us": round(hidden_us, 1), "pageable_added_us": round(added_us, 1)})
    # The symptom: the pageable copy costs the step far more than the pinned one does.
    out["signal"] = added_us > 4 * max(hidden_us, 1.0)
    out["verdict"] = (f"The pinned copy added {hidden_us:.0f} µs to the step (it ran beside the "
                      f"compute); the pageable copy added {added_us:.0f} µs (the host waited for it "
                      f"before it could launch the compute).")
    if timelines:
        out["timelines"] = timelines
    return out

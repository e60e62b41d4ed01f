"""What the torch-level labs share on a GPU: step timing, a capture that reports its failure
instead of raising (and puts the caller's stream back), launch counts from torch.profiler."""
from __future__ import annotations

import statistics
import time

import torch


def need_cuda() -> None:
    if not torch.cuda.is_available():
        raise RuntimeError("this lab measures on a CUDA device, and torch sees none here")


def environment() -> dict:
    return {"torch_version": torch.__version__, "cuda_version": torch.version.cuda,
            "gpu": torch.cuda.get_device_name(0)}


def step_us(fn, steps: int = 50, repeats: int = 5, warmup: int = 5) -> float:
    """Median wall µs per call of `fn` (host and GPU: a synchronize closes each batch of `steps`)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
        per.append((time.perf_counter() - t0) * 1e6 / steps)
    return round(statistics.median(per), 2)


def error_text(exc: BaseException, limit: int = 400) -> str:
    """The root cause of `exc` (the innermost of its chain: a failed capture_end raises over the
    error that broke the capture), "Type: first line"."""
    seen, e = [], exc
    while e is not None and e not in seen:
        seen.append(e)
        e = e.__cause__ or e.__context__
    root = seen[-1]
    first = (str(root).strip().splitlines() or [""])[0]
    return f"{type(root).__name__}: {first}"[:limit]


def try_capture(fn, generators=(), warmups: int = 2, warm=None, before=None):
    """Warm up on a side stream (`warm()`, default `fn()`, `warmups` times), call `before()` if
    given, then capture one call of `fn`.

    Returns (graph, out, None) or (None, None, error text). A capture that fails leaves the caller
    on the stream it started on (a raising capture_end skips torch's own restore)."""
    graph = torch.cuda.CUDAGraph()
    for gen in generators:
        graph.register_generator_state(gen)
    entry = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    side.wait_stream(entry)
    with torch.cuda.stream(side):
        for _ in range(warmups):
            (warm or fn)()
    entry.wait_stream(side)
    torch.cuda.synchronize()
    if before is not None:
        before()
    try:
        with torch.cuda.graph(graph, stream=side):
            out = fn()
    except Exception as e:  # the failure is the measurement
        err = error_text(e)
        torch.cuda.set_stream(entry)
        try:
            torch.cuda.synchronize()
        except Exception as e2:
            err += f" (then: {error_text(e2, 200)})"
        return None, None, err
    torch.cuda.synchronize()
    return graph, out, None


def launch_counts(fn, steps: int = 3) -> dict:
    """Kernel launches and graph launches per call of `fn`, counted by torch.profiler (CPU-side
    runtime calls), and the kernels the GPU ran per call."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
    launches = graphs = kernels = 0
    for e in prof.events():
        name = e.name or ""
        if "GraphLaunch" in name:
            graphs += 1
        elif "LaunchKernel" in name:
            launches += 1
        elif getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA and not name.startswith("Mem"):
            kernels += 1
    return {"kernel_launches": round(launches / steps, 1), "graph_launches": round(graphs / steps, 1),
            "gpu_kernels": round(kernels / steps, 1)}


def attempt(fn) -> dict:
    """fn()'s dict, or {"error": ...} when it raised (one part of a lab failing keeps the rest)."""
    try:
        return fn()
    except Exception as e:
        try:
            torch.cuda.synchronize()
        except Exception:
            pass
        return {"error": error_text(e)}

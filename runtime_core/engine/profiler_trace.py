"""Turn a torch.profiler run into our Trace: two lanes of spans on one clock, and counted calls.

We export the profiler's Chrome trace (the same JSON Perfetto opens) and read it back:
- CPU lane: the aten op that dispatched each chain kernel ("launch"), cudaGraphLaunch ("graph"),
  synchronize calls ("sync"), memcpy calls ("copy") and our extra-tax busy-wait ("spin");
- GPU lane: kernels ("kernel") and device copies ("copy").
CUDA runtime and driver calls are counted by name, so a graph replay shows up as exactly one
cudaGraphLaunch and its N kernels still appear on the GPU lane.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections import Counter

from .device import COPY_CALLS, GRAPH_LAUNCH, SYNC_CALLS, Trace
from ..result import Span

REGION = "runtime_core step"
_CPU_OPS = ("aten::add_",)


@contextlib.contextmanager
def trace_region(warmup=None):
    """Profile the enclosed code (CPU + CUDA activities); yields a Trace filled on exit.

    `warmup()`, if given, runs inside the same profiler session first: the first events of a
    session carry the profiler's own start-up cost, so the traced step should not be first.
    """
    import torch
    from torch.profiler import ProfilerActivity, record_function
    from ..quiet_profiler import quiet_profile
    tr = Trace()
    torch.cuda.synchronize()
    with quiet_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        if warmup is not None:
            warmup()
            torch.cuda.synchronize()
        with record_function(REGION):
            yield tr
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as f:
            chrome = json.load(f)
    finally:
        os.unlink(path)
    fill_from_chrome(tr, chrome)


def fill_from_chrome(tr: Trace, chrome: dict) -> None:
    """Fill `tr` from a Chrome-trace dict: spans relative to our region's start, and counts."""
    events = [e for e in chrome.get("traceEvents", []) if e.get("ph") == "X"]
    region = [e for e in events if e.get("name") == REGION and e.get("cat") == "user_annotation"]
    if not region:
        raise RuntimeError("profiler trace has no step region; was trace_region() used?")
    t0 = float(region[0]["ts"])
    t1 = t0 + float(region[0].get("dur", 0.0))
    counts: Counter = Counter()
    spans: list[Span] = []
    for e in events:
        cat, name = e.get("cat", ""), e.get("name", "")
        ts, dur = float(e["ts"]), float(e.get("dur", 0.0))
        if cat in ("cuda_runtime", "cuda_driver"):
            if not t0 <= ts <= t1:
                continue
            counts[name] += 1
            kind = _runtime_kind(name)
            if kind:
                spans.append(Span("cpu", kind, name, ts - t0, ts - t0 + dur))
        elif cat == "cpu_op" and name in _CPU_OPS and t0 <= ts <= t1:
            spans.append(Span("cpu", "launch", name, ts - t0, ts - t0 + dur))
        elif cat == "user_annotation" and name == "extra host tax" and t0 <= ts <= t1:
            spans.append(Span("cpu", "spin", name, ts - t0, ts - t0 + dur))
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset") and ts >= t0:
            spans.append(Span("gpu", "kernel" if cat == "kernel" else "copy", _short(name),
                              ts - t0, ts - t0 + dur))
    spans.sort(key=lambda s: (s.lane, s.start_us))
    tr.spans, tr.counts, tr.chrome_trace = spans, dict(counts), chrome


def _runtime_kind(name: str) -> str | None:
    if name == GRAPH_LAUNCH:
        return "graph"
    if name in SYNC_CALLS:
        return "sync"
    if name in COPY_CALLS:
        return "copy"
    return None  # launches are drawn as their aten op, which includes dispatch


def _short(name: str) -> str:
    return name if len(name) <= 60 else name[:57] + "..."

"""A profiled step redrawn on its unprofiled clock, so the picture agrees with the metrics beside it.

torch.profiler slows the host: under it a 120-kernel graph step's cudaGraphLaunch was drawn ~150 µs
wide and the step ~650 µs long, while the timed (unprofiled) step took 264 µs. A student reading
that picture learns the opposite of the lesson. `redraw` keeps what the profiler gets right, the
GPU lane's kernels with their durations and their order, and gives the host lane the costs the
unprofiled timing measured:

    launch     the point's measured launch tax t (extra tax included), one per kernel or copy
    replay     one cudaGraphLaunch of g(N) (the calibrated constants)
    sync       whatever is left of the measured wall time: the host waits until the step ends

GPU ops start once their launch is on the queue and the op before them has finished: separately
launched ops `stream_gap_us` apart; a replayed graph's nodes keep the profiler's spacing, its first
node `fixed_us` after the replay call returns. The step ends at the measured wall time or at the
last op's end plus the sync round trip, whichever is later.
"""
from __future__ import annotations

from ..constants import Constants
from .formulas import graph_launch_us

GPU = ("kernel", "copy")


def redraw(spans: list[dict], wall_us: float, tax_us: float, c: Constants) -> list[dict]:
    """`spans` (a profiled step's rows: lane, kind, name, start_us, end_us) laid out again with
    the unprofiled costs; [] stays []. What ran is read off the spans: a cudaGraphLaunch is a
    replay, a sync per op is blocking dispatch, else streams (a shape miss's fallback too)."""
    gpu = sorted((s for s in spans if s["lane"] == "gpu" and s["kind"] in GPU), key=lambda s: s["start_us"])
    if not gpu:
        return list(spans)
    names = {s["kind"]: s["name"] for s in spans if s["lane"] == "cpu"}
    syncs = sum(1 for s in spans if s["lane"] == "cpu" and s["kind"] == "sync")
    mode = "graph" if "graph" in names else "eager" if syncs >= len(gpu) else "streams"
    if mode == "graph":
        return _graph(gpu, names, wall_us, tax_us, c)
    return _launched(gpu, names, mode, wall_us, tax_us, c)


def _span(lane: str, kind: str, name: str, start: float, end: float) -> dict:
    return {"lane": lane, "kind": kind, "name": name, "start_us": round(start, 3), "end_us": round(end, 3)}


def _launched(gpu, names, mode: str, wall_us: float, tax_us: float, c: Constants) -> list[dict]:
    """Eager (launch, then wait for it) and streams (launch them all, wait once at the end)."""
    out, host, prev_end = [], 0.0, None
    per_kernel = wall_us / len(gpu) if mode == "eager" else None
    for i, op in enumerate(gpu):
        dur = op["end_us"] - op["start_us"]
        kind = "copy" if op["kind"] == "copy" else "launch"
        out.append(_span("cpu", kind, names.get(kind, "launch"), host, host + tax_us))
        host += tax_us
        start = host if prev_end is None else max(host, prev_end + c.stream_gap_us)
        out.append(_span("gpu", op["kind"], op["name"], start, start + dur))
        prev_end = start + dur
        if per_kernel is not None:  # blocking dispatch: wait for this kernel before the next launch
            until = max((i + 1) * per_kernel, prev_end + c.sync_us)
            out.append(_span("cpu", "sync", names.get("sync", "synchronize"), host, until))
            host = until
    if per_kernel is None:
        out.append(_span("cpu", "sync", names.get("sync", "synchronize"), host, max(wall_us, prev_end + c.sync_us)))
    return out


def _graph(gpu, names, wall_us: float, tax_us: float, c: Constants) -> list[dict]:
    """A replay: maybe a copy into the static input, one cudaGraphLaunch, the nodes as profiled."""
    out, host = [], 0.0
    copies = [op for op in gpu if op["kind"] == "copy"]
    nodes = [op for op in gpu if op["kind"] != "copy"]
    ready = 0.0
    if copies:
        cp = copies[0]
        out.append(_span("cpu", "copy", names.get("copy", "cudaMemcpyAsync"), 0.0, tax_us))
        out.append(_span("gpu", "copy", cp["name"], tax_us, tax_us + cp["end_us"] - cp["start_us"]))
        host, ready = tax_us, tax_us + cp["end_us"] - cp["start_us"]
    g = graph_launch_us(tax_us, c, len(nodes))
    out.append(_span("cpu", "graph", names.get("graph", "cudaGraphLaunch"), host, host + g))
    host += g
    if nodes:
        shift = max(host + c.fixed_us, ready) - nodes[0]["start_us"]
        out += [_span("gpu", op["kind"], op["name"], op["start_us"] + shift, op["end_us"] + shift) for op in nodes]
        ready = nodes[-1]["end_us"] + shift
    out.append(_span("cpu", "sync", names.get("sync", "synchronize"), host, max(wall_us, ready + c.sync_us)))
    return out


def step_length_us(spans: list[dict]) -> float:
    """How long the drawn step is: from its first span's start to its last span's end."""
    if not spans:
        return 0.0
    return max(s["end_us"] for s in spans) - min(s["start_us"] for s in spans)

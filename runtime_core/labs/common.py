"""What every failure-mode lab shares: the result header, timing a region, and span rows.

Each lab is one program written against the Device contract (engine/device.py), so the same
code runs on the simulator and on a GPU. A lab returns one plain dict (JSON-ready). Its first
keys say where the numbers come from:

    lab          the lab's name ("overlap", "sync", ...)
    backend      "sim" or "cuda"
    source       "simulated" (the SimDevice's virtual clock), "live" (this machine's GPU), or
                 "recorded" (a lab in REPLAYS_A_RECORDING, replaying a shipped GPU run)
    device_name  what ran it

then the lab's own numbers (units in the key names), `signal` (True when the failure mode's
symptom showed up), `verdict` (one sentence a student can read) and, where the device can trace
for free, `timelines`: lists of spans {lane, kind, name, start_us, end_us}.
"""
from __future__ import annotations


def capture_copy_chain(dev, numel: int, n_kernels: int):
    """A graph captured by hand, as the graph-bug labs use it: the region copies a static input
    into a static output and runs `n_kernels` chain kernels (each adds 1) on the output.
    Returns (static_in, static_out, graph); the region returns static_out."""
    from ..engine.capture import warm_up_and_capture
    static_in, static_out = dev.new_buffer(numel), dev.new_buffer(numel)
    dev.fill(static_in, 0.0)

    def region():
        dev.copy(static_out, static_in)
        for _ in range(n_kernels):
            dev.launch_chain_kernel(static_out)
        return static_out

    graph, _ = warm_up_and_capture(dev, region, pool=dev.new_pool())
    return static_in, static_out, graph


def header(lab: str, dev) -> dict:
    """The first keys of every lab's result."""
    return {"lab": lab, "backend": str(dev.backend), "source": dev.source_label, "device_name": dev.name}


def timed_us(dev, fn) -> float:
    """Host µs of `fn()` between two synchronizes (the device's own clock: virtual on sim)."""
    dev.synchronize()
    t0 = dev.host_now_us()
    fn()
    dev.synchronize()
    return dev.host_now_us() - t0


def span_rows(spans, lane_of=None, rename=None, limit: int = 400) -> list[dict]:
    """Spans as plain dicts for JSON and charts, times rounded to 0.001 µs.

    Args:
        spans: Span objects (lane, kind, name, start_us, end_us).
        lane_of: optional fn(span) -> lane name, to split the GPU lane (e.g. copy vs compute).
        rename: optional {(lane, kind): name} to give spans the name the lesson uses.
        limit: keep at most this many spans (the earliest), so a chart stays readable.
    """
    rows = []
    for s in sorted(spans, key=lambda s: s.start_us)[:limit]:
        rows.append({"lane": lane_of(s) if lane_of else s.lane, "kind": s.kind,
                     "name": (rename or {}).get((s.lane, s.kind), s.name),
                     "start_us": round(s.start_us, 3), "end_us": round(s.end_us, 3)})
    return rows

"""alloc_snapshot lab: PyTorch's own memory history over one training-like step (CUDA).

In a fresh child process: torch.cuda.memory._record_memory_history() from before the model
exists, one step of a small MLP (forward, backward, optimizer step, zero_grad), then
torch.cuda.memory._snapshot(). The snapshot is reduced here to what the page draws, the way
PyTorch's memory_viz draws it (frames dropped):

    events     the allocator's trace, in order: alloc, free_requested, free_completed,
               segment_alloc / segment_free (cudaMalloc / cudaFree), with bytes and address
    segments   the segments at the end, each with its blocks (offset, size, state), as
               block_map rows (the same rows our CachingPool.snapshot() gives)
    over_time  allocated and reserved bytes after each event (events_over_time)
    intervals  each allocation's lifetime [event it was made, event it was freed] at its address
    our_pool   the same allocation sequence (sizes in order, frees matched by address) replayed
               through our CachingPool on a simulated device: its segments and block map

On a machine without a GPU the lab shows the shipped recording, or says it is owed.
"""
from __future__ import annotations

import time

from .gpu_recorded import in_child, live_or_recorded

LAB = dict(name="alloc_snapshot",
           summary="torch.cuda.memory._record_memory_history + _snapshot() over one training step: "
                   "segments and blocks over time, beside our pool's block map of the same allocations",
           page="pages/3_Caching_allocator.py", panel="alloc_snapshot",
           renderer="pages.ui.labs29_panels:alloc_snapshot", text_key="allocator_snapshot")

WHAT = "PyTorch's memory snapshot of a training step"
MAX_EVENTS = 3000
STATE = {"active_allocated": "allocated", "inactive": "free", "active_pending_free": "awaiting_event"}
ACTIONS = ("alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "segment_map",
           "segment_unmap", "oom")


def step_snapshot(device: str = "cuda", width: int = 1024, batch: int = 64) -> dict:
    """In THIS (fresh) process: record the history over model creation and one step; reduce."""
    import torch
    torch.cuda.memory._record_memory_history(max_entries=100000, stacks="python")
    marks = {"start_us": time.time_ns() // 1000}
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                torch.nn.Linear(4 * width, width)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(batch, width, device=device)
    marks["forward_us"] = time.time_ns() // 1000
    loss = model(x).square().mean()
    marks["backward_us"] = time.time_ns() // 1000
    loss.backward()
    marks["optimizer_us"] = time.time_ns() // 1000
    opt.step()
    opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    marks["end_us"] = time.time_ns() // 1000
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    out = reduce_snapshot(snap)
    out.update(torch_version=torch.__version__, model=f"MLP {width}-{4 * width}-{width}, Adam, batch {batch}",
               marks=marks, reserved_bytes=torch.cuda.memory_reserved(), allocated_bytes=torch.cuda.memory_allocated())
    return out


def reduce_snapshot(snap: dict) -> dict:
    """A _snapshot() dict (segments, device_traces) -> events, segments as block_map rows,
    over_time, intervals and our pool's replay (see the module docstring)."""
    trace = (snap.get("device_traces") or [[]])[0]
    events = [{"action": e["action"], "addr": int(e.get("addr", 0)), "bytes": int(e.get("size", 0)),
               "t_us": e.get("time_us"), "stream": e.get("stream", 0)}
              for e in trace if e.get("action") in ACTIONS][:MAX_EVENTS]
    rows, segments = [], []
    for i, seg in enumerate(sorted(snap.get("segments", []), key=lambda s: s["address"])):
        offset, kind = 0, seg.get("segment_type", "large")
        for b in seg.get("blocks", []):
            rows.append({"segment": i, "segment_address": seg["address"], "kind": kind,
                         "expandable": bool(seg.get("is_expandable")), "offset_bytes": offset,
                         "size_bytes": int(b["size"]), "requested_bytes": int(b.get("requested_size", b["size"])),
                         "state": STATE.get(b.get("state"), "free"), "stream": str(seg.get("stream", 0)),
                         "used_on": []})
            offset += int(b["size"])
        segments.append({"address": seg["address"], "bytes": int(seg["total_size"]), "kind": kind,
                         "allocated_bytes": int(seg.get("allocated_size", 0)), "blocks": len(seg.get("blocks", []))})
    return {"events": events, "segments": segments, "block_rows": rows, "over_time": events_over_time(events),
            "intervals": intervals(events), "our_pool": our_pool_replay(events),
            "counts": {a: sum(e["action"] == a for e in events) for a in ACTIONS}}


def events_over_time(events: list[dict]) -> list[list]:
    """[event index, allocated bytes, reserved bytes, action] after each event."""
    allocated = reserved = 0
    out = []
    for i, e in enumerate(events):
        a = e["action"]
        allocated += e["bytes"] if a == "alloc" else -e["bytes"] if a == "free_completed" else 0
        reserved += e["bytes"] if a in ("segment_alloc", "segment_map") else (
            -e["bytes"] if a in ("segment_free", "segment_unmap") else 0)
        out.append([i, allocated, reserved, a])
    return out


def intervals(events: list[dict]) -> list[dict]:
    """Each allocation's life: {addr, bytes, start, end} in event indices (end None: still live)."""
    live, out = {}, []
    for i, e in enumerate(events):
        if e["action"] == "alloc":
            live[e["addr"]] = len(out)
            out.append({"addr": e["addr"], "bytes": e["bytes"], "start": i, "end": None})
        elif e["action"] == "free_completed" and e["addr"] in live:
            out[live.pop(e["addr"])]["end"] = i
    return out


def our_pool_replay(events: list[dict]) -> dict:
    """The snapshot's allocations, in order, through our CachingPool (PyTorch's size rules) on a
    simulated device: its block map at the end, its segments and driver mallocs."""
    from ..allocator.backends.sim import HostArenaBackend
    from ..allocator.caching_pool import CachingPool
    need = sum(e["bytes"] for e in events if e["action"] == "alloc")
    pool = CachingPool(HostArenaBackend(max(need * 2, 1 << 30)))
    live, peak = {}, 0
    for e in events:
        if e["action"] == "alloc" and e["bytes"] > 0:
            live[e["addr"]] = pool.malloc(e["bytes"])
            peak = max(peak, pool.stats()["allocated_bytes.current"])
        elif e["action"] == "free_completed" and e["addr"] in live:
            pool.free(live.pop(e["addr"]))
    s = pool.stats()
    return {"block_rows_end": pool.snapshot(), "peak_allocated_bytes": peak,
            "reserved_bytes": s["reserved_bytes.current"], "reserved_peak_bytes": s.get("reserved_bytes.peak"),
            "segments": len({r["segment"] for r in pool.snapshot()}), "driver_mallocs": s.get("num_driver_mallocs")}


def finish(r: dict) -> dict:
    """signal: the step's memory came from cached segments (fewer cudaMallocs than allocations)."""
    c = r.get("counts") or {}
    allocs, mallocs = c.get("alloc", 0), c.get("segment_alloc", 0) + c.get("segment_map", 0)
    r["signal"] = bool(allocs and mallocs < allocs)
    peak_alloc = max((s[1] for s in r.get("over_time", [])), default=0)
    peak_res = max((s[2] for s in r.get("over_time", [])), default=0)
    ours = r.get("our_pool") or {}
    r["verdict"] = (f"One training step made {allocs} allocations from {mallocs} cudaMalloc segments "
                    f"({len(r.get('segments', []))} at the end); allocated peaked at {peak_alloc / 2**20:.1f} MiB "
                    f"within {peak_res / 2**20:.1f} MiB reserved. Our pool, given the same sequence, reserved "
                    f"{(ours.get('reserved_peak_bytes') or 0) / 2**20:.1f} MiB in {ours.get('segments')} segments.")
    return r


def run(backend: str = "sim") -> dict:
    def measure() -> dict:
        r = in_child("alloc_snapshot", "step_snapshot", 240, device="cuda")
        if "error" in r:
            raise RuntimeError(f"the alloc_snapshot lab's child process failed: {r['error']}")
        return finish(r)
    return live_or_recorded("alloc_snapshot", WHAT, backend, measure)

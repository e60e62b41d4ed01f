"""PyTorch's own memory history over one training-like step (CUDA), reduced to what the
alloc_snapshot lab (runtime_core/labs/alloc_snapshot.py) draws: step_snapshot() runs in THIS
(fresh) process; reduce_snapshot() and our_pool_replay() are plain data, so they run anywhere.
"""
from __future__ import annotations

import time

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
            if "address" in b:   # newer snapshots give each block's address; else blocks are in order
                offset = int(b["address"]) - int(seg["address"])
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
    from .backends.sim import HostArenaBackend
    from .caching_pool import CachingPool
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

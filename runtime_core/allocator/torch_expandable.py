"""PyTorch's own expandable_segments vs its default, on the allocation orders of labs.py (CUDA).

PYTORCH_CUDA_ALLOC_CONF is read once, when CUDA initializes, so each setting runs in a CHILD
process (../child_process.py): `python -m runtime_core.allocator.torch_expandable` prints one JSON object. The child
caps PyTorch at the order's capacity (set_per_process_memory_fraction) so the fragmenting
order can really run out of memory on a large GPU.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..child_process import run
from .labs import HEADROOM_BYTES, ORDERS
from .stats import fragmentation

REPO_ROOT = Path(__file__).resolve().parents[2]  # the child runs `-m runtime_core...` from here
SETTINGS = {"default": "", "expandable": "expandable_segments:True"}


ORDER_NAMES = ("fragmenting", "growing")  # the orders a child runs, in this order, in one process
PER_ORDER = "per order"  # a result's "mallocs_counted" once each order counts its own cudaMallocs


def per_order(child: dict) -> dict:
    """One child's {order: result} with every order's num_driver_mallocs its own. A child recorded
    before the count was taken per order (no "mallocs_counted") counted from the process's start,
    so a later order's count also held the earlier orders': those are taken off (the H200's growing
    order read 12 cudaMallocs for its 8 segments, 4 of them the fragmenting order's)."""
    out, earlier = dict(child), 0
    for name in ORDER_NAMES:
        r = child.get(name)
        if not isinstance(r, dict) or not isinstance(r.get("num_driver_mallocs"), int):
            return out
        if r.get("mallocs_counted") != PER_ORDER:
            out[name] = dict(r, num_driver_mallocs=r["num_driver_mallocs"] - earlier, mallocs_counted=PER_ORDER)
            earlier = r["num_driver_mallocs"]
    return out


def comparison_per_order(by_order: dict) -> dict:
    """per_order over torch_expandable_comparison's {order: {setting: result}} (one child a setting)."""
    orders = [o for o in ORDER_NAMES if isinstance(by_order.get(o), dict)]
    out = {o: dict(v) if isinstance(v, dict) else v for o, v in by_order.items()}
    for setting in {s for o in orders for s in by_order[o] if s != "order"}:
        own = per_order({o: by_order[o].get(setting) for o in orders})
        for o in orders:
            if setting in by_order[o]:
                out[o][setting] = own[o]
    return out


def _free_block_sizes(torch) -> list[int]:
    return [b["size"] for seg in torch.cuda.memory_snapshot() for b in seg["blocks"]
            if b["state"] == "inactive"]


def _run_order(torch, name: str) -> dict:
    order = ORDERS[name]
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(min(1.0, (order["capacity_bytes"] + HEADROOM_BYTES) / total))
    torch.cuda.reset_peak_memory_stats()
    # cudaMallocs are counted from the process's start (reset_peak_memory_stats leaves the count):
    # this order's own are those made after this point
    before = torch.cuda.memory_stats().get("segment.all.allocated", 0)
    live, oom = {}, None
    for step in order["steps"]:
        if step[0] == "malloc":
            live[step[1]] = torch.empty(step[2], dtype=torch.uint8, device="cuda")
        else:
            del live[step[1]]
    sizes = _free_block_sizes(torch)  # measured before the request, as in labs.py
    if order["request_bytes"] is not None:
        try:
            live["request"] = torch.empty(order["request_bytes"], dtype=torch.uint8, device="cuda")
        except torch.OutOfMemoryError as e:
            oom = str(e).splitlines()[0]
    stats = torch.cuda.memory_stats()
    live.clear()
    torch.cuda.empty_cache()
    return {"reserved_peak_bytes": stats["reserved_bytes.all.peak"], "free_bytes": sum(sizes),
            "largest_free_block_bytes": max(sizes, default=0),
            "fragmentation": round(fragmentation(sizes), 4),
            "num_driver_mallocs": stats.get("segment.all.allocated", 0) - before, "mallocs_counted": PER_ORDER,
            "request_oom": oom is not None, "oom_message": oom}


def child_main() -> None:
    """Entry point of the child: run every order under this process's PYTORCH_CUDA_ALLOC_CONF."""
    import torch
    out = {"alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")}
    for name in ORDER_NAMES:
        out[name] = _run_order(torch, name)
    print(json.dumps(out))


def torch_expandable_comparison(timeout_s: float = 300.0) -> dict:
    """Run the child once per setting; return {order: {"default": {...}, "expandable": {...}}}."""
    results = {}
    for setting, conf in SETTINGS.items():
        done = run("allocator child", [sys.executable, "-m", "runtime_core.allocator.torch_expandable"],
                   timeout_s=timeout_s, env={"PYTORCH_CUDA_ALLOC_CONF": conf}, cwd=REPO_ROOT)
        results[setting] = ({"error": done.error} if done.error else
                            done.reply() or {"error": "allocator child printed no JSON result"})
    out = {}
    for name in ORDER_NAMES:
        out[name] = {"order": ORDERS[name]["label"]}
        for setting in SETTINGS:
            out[name][setting] = results[setting].get(name, results[setting])
    return out


if __name__ == "__main__":
    child_main()

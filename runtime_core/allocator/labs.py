"""Allocation orders and scenarios that the page and the CLI show (plain data in, plain data out).

ORDERS are scripts of ("malloc", tag, bytes) / ("free", tag) steps, then one final request
(None: no final request).
The "fragmenting" order is the classic "OOM with gigabytes free": 4 x 2 GiB blocks are freed
and reused by 4 x 1.5 GiB requests, each split off a 2 GiB block, leaving four 0.5 GiB holes in
four segments that can't be released. 2 GiB is free, but a 1 GiB request cannot fit anywhere.
"""
from __future__ import annotations

from .backends.sim import HostArenaBackend
from .caching_pool import CachingPool
from .errors import AllocatorOOM
from .sizes import GiB, MiB


def _fill_then_shrink(big: int, small: int, n: int) -> list:
    steps = [("malloc", f"a{i}", big) for i in range(n)] + [("free", f"a{i}") for i in range(n)]
    return steps + [("malloc", f"b{i}", small) for i in range(n)]


def _growing(start: int, step: int, n: int) -> list:
    steps = []
    for i in range(n):  # a batch that grows each iteration: alloc, use, free
        steps += [("malloc", f"x{i}", start + i * step), ("free", f"x{i}")]
    return steps


# room beyond an order's capacity, as PyTorch's run of the orders is capped (torch_expandable.py):
# an expandable segment maps 20 MiB pages, so filling the capacity exactly maps a little past it
HEADROOM_BYTES = 64 * MiB

ORDERS = {
    "fragmenting": {
        "label": "fill 4 x 2 GiB, free all, then 4 x 1.5 GiB (fragments)",
        "capacity_bytes": 8 * GiB, "steps": _fill_then_shrink(2 * GiB, 3 * GiB // 2, 4),
        "request_bytes": 1 * GiB},
    "non_fragmenting": {
        "label": "fill 4 x 2 GiB, free all, then 3 x 2 GiB (same sizes: no holes)",
        "capacity_bytes": 8 * GiB, "steps": _fill_then_shrink(2 * GiB, 2 * GiB, 4)[:-1],
        "request_bytes": 1 * GiB},
    "growing": {
        "label": "a batch that grows: 11, 13, ... 25 MiB, each freed before the next",
        "capacity_bytes": 1 * GiB, "steps": _growing(11 * MiB, 2 * MiB, 8),
        "request_bytes": None},
}


def run_order(name: str, expandable: bool = False, request: bool = False) -> dict:
    """Play ORDERS[name] on a fresh host pool; with `request`, also try the final request.

    Returns {"pool", "stats" and "snapshot" (at the end of the order, before the request),
    "timeline", "oom": the AllocatorOOM message or None, "oom_fragmented"}.
    """
    if name not in ORDERS:
        raise ValueError(f"unknown order {name!r}; choose one of {sorted(ORDERS)}")
    order = ORDERS[name]
    pool = CachingPool(HostArenaBackend(order["capacity_bytes"] + HEADROOM_BYTES), expandable=expandable,
                       record_timeline=True)
    live = {}
    for step in order["steps"]:
        if step[0] == "malloc":
            live[step[1]] = pool.malloc(step[2])
        else:
            pool.free(live.pop(step[1]))
    stats, snapshot = pool.stats(), pool.snapshot()  # the order's end state, before any request
    oom, fragmented = None, False
    if request and order["request_bytes"] is not None:
        try:
            live["request"] = pool.malloc(order["request_bytes"])
        except AllocatorOOM as e:
            oom, fragmented = str(e), e.fragmented
    return {"pool": pool, "stats": stats, "snapshot": snapshot,
            "timeline": [s.__dict__ for s in pool.timeline()], "oom": oom, "oom_fragmented": fragmented}


def expandable_comparison() -> dict:
    """Default vs expandable on the fragmenting and growing orders (bytes, fraction, OOM or not)."""
    out = {}
    for name in ("fragmenting", "growing"):
        out[name] = {"order": ORDERS[name]["label"], "request_bytes": ORDERS[name]["request_bytes"]}
        for mode, exp in (("default", False), ("expandable", True)):
            r = run_order(name, expandable=exp, request=True)
            out[name][mode] = {"reserved_peak_bytes": r["stats"]["reserved_bytes.peak"],
                               "fragmentation": round(r["stats"]["fragmentation"], 4),
                               "largest_free_block_bytes": r["stats"]["largest_free_block_bytes"],
                               "free_bytes": r["stats"]["free_bytes"],
                               "num_driver_mallocs": r["stats"]["num_driver_mallocs"],
                               "request_oom": r["oom"] is not None}
    return out

"""Capture-storm lab: CUDA graphs against shapes that keep changing.

Requests cycle through `shapes` distinct input sizes. Two GraphExecutor policies serve them:

    recapture  a graph per shape in an LRU cache of `cache_size` graphs. With the cache at least
               as big as the shape count, each shape is captured once; smaller, and the round-robin
               order evicts every graph just before it is needed again: a capture on every call.
    bucket     pad each request up to a power of two and keep one graph per bucket: few captures,
               paid for with the padded elements (wasted work).

The counts come from GraphExecutor.stats, so they are what the executor did, not a formula.
The lab also reports how much the device's reserved memory grew (dev.reserved_bytes()).
"""
from __future__ import annotations

from ..recordings.shipped import get_device
from ..engine.graph_executor import GraphExecutor, bucket_numel
from ..engine.workload import ChainWorkload
from ..errors import UsageError
from .common import header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="storm", summary="graph capture against dynamic shapes: recapture vs bucket",
           page="pages/4_CUDA_graphs.py", panel="storm",
           renderer="pages.ui.lab_panels:storm", text_key="capture_dynamic")

N_KERNELS = 20       # kernels per captured chain
BASE_NUMEL = 4000    # the smallest request; requests are BASE_NUMEL + 32·k elements
SHAPE_STEP = 32
MAX_SHAPES = 64
MAX_CALLS = 512
MAX_CACHE = 64


def run(backend: str = "sim", cache_size: int = 4, shapes: int = 8, calls: int = 32) -> dict:
    """Serve `calls` requests cycling over `shapes` sizes with recapture and with bucket.

    Args:
        backend: "auto", "cuda" or "sim".
        cache_size: graphs the LRU cache holds (1..64).
        shapes: distinct request sizes (1..64).
        calls: requests served (1..512).
    Returns the header keys plus "recapture" and "bucket", each GraphStats.as_dict() with
    capture_ms and pool_growth_mb, and signal / verdict about the recapture run.
    """
    _check("cache_size", cache_size, MAX_CACHE)
    _check("shapes", shapes, MAX_SHAPES)
    _check("calls", calls, MAX_CALLS)
    dev = get_device(backend)
    out = header("storm", dev)
    out.update({"n_kernels": N_KERNELS, "cache_size": cache_size, "shapes": shapes, "calls": calls})
    for policy in ("recapture", "bucket"):
        # each policy on a device of its own asking: the simulator's reserved bytes are a running
        # peak, so a shared one would show the second policy the first one's peak and no growth
        # (a GPU hands back its one shared device: the caching allocator is the process's anyway)
        out[policy] = _serve(get_device(backend), policy, cache_size, shapes, calls)
    out["signal"] = out["recapture"]["captures"] > out["recapture"]["distinct_shapes"]
    out["verdict"] = verdict(out)
    return out


def verdict(r: dict) -> str:
    """The verdict sentence of a result `r`, from its counts (a recorded result's stored verdict may
    predate this wording: show this one)."""
    rec, cache_size = r["recapture"], r["cache_size"]
    if rec["captures"] > rec["distinct_shapes"]:
        return (f"Capture storm: {rec['captures']} captures for {rec['distinct_shapes']} shapes "
                f"({rec['evictions']} evictions, {rec['capture_ms']:.1f} ms capturing) because "
                f"the cache holds {cache_size} graph{'s' if cache_size != 1 else ''}, fewer than the "
                f"{rec['distinct_shapes']} shapes the requests cycle through in order: a least-recently-used "
                "cache then has always just evicted the graph the next request needs. "
                + _bucket_words(r))
    return (f"No storm: each of the {rec['distinct_shapes']} shapes was captured once "
            f"({rec['capture_ms']:.1f} ms) and every later call replayed.")


def _bucket_words(r: dict) -> str:
    """What bucketing cost in the same run: its captures, and its evictions when its buckets did
    not fit the cache either (at a cache of one graph, two buckets take turns)."""
    bk = r["bucket"]
    waste = f"wasted {bk['wasted_work_pct']:.0f}% of the work on padding."
    if not bk.get("evictions"):
        return f"Bucketing needed {bk['captures']} captures and {waste}"
    shapes = r.get("shapes") or 0  # a recording from before the lab stored it: no count
    buckets = len({bucket_numel(request_numel(i, shapes)) for i in range(shapes)})
    return (f"Bucketing thrashed too, though less: its {f'{buckets} ' if buckets else ''}buckets do not fit "
            f"a cache of {r['cache_size']} "
            f"either, so it needed {bk['captures']} captures ({bk['evictions']} evictions, one each time "
            f"the requests crossed into the other bucket), and {waste}")


def request_numel(call: int, shapes: int) -> int:
    """Elements of request number `call`: the sizes cycle round-robin over `shapes` values."""
    return BASE_NUMEL + SHAPE_STEP * (call % shapes)


def _serve(dev, policy: str, cache_size: int, shapes: int, calls: int) -> dict:
    ex = GraphExecutor(dev, ChainWorkload(N_KERNELS, 0.0), policy=policy, cache_size=cache_size)
    dev.synchronize()
    reserved0 = dev.reserved_bytes()
    for call in range(calls):
        x = dev.new_buffer(request_numel(call, shapes))
        dev.fill(x, float(call % 5))
        ex.run(x)
    stats = ex.stats.as_dict()
    stats["capture_ms"] = round(stats["capture_us"] / 1000.0, 3)
    stats["capture_us"] = round(stats["capture_us"], 3)
    dev.synchronize()
    stats["pool_growth_mb"] = round((dev.reserved_bytes() - reserved0) / 1e6, 2)
    return stats


def _check(name: str, value, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
        raise UsageError(f"{name} must be a whole number from 1 to {hi}, got {value!r}")

"""PyTorch's own caching allocator, shown working: the same three things our pool teaches, measured
on torch.cuda rather than on our CachingPool.

    stream_reuse(record_stream)   a block freed while a side stream still uses it: without
                                  Tensor.record_stream the next allocation of that size gets the
                                  same block at once (the side stream's kernel is still running);
                                  with it, the allocator holds the block back until the stream's
                                  recorded event completes, and the allocation gets another block
    empty_cache()                 what it hands back to the driver: memory_reserved before and
                                  after, with memory_allocated unchanged (live tensors stay put)
    step_counters()               torch.cuda.memory_stats over a few training-like steps: how many
                                  allocations the cache served against how many segments it had
                                  to cudaMalloc, and the peaks

`measure()` runs all three on a CUDA device (about a second); elsewhere it says why not.
"""
from __future__ import annotations

SLEEP_CYCLES = 200_000_000   # a side-stream kernel long enough (~0.1 s) to be running at the reuse
BLOCK_BYTES = 8 << 20
STAT_KEYS = ("allocation.all.allocated", "segment.all.allocated", "active_bytes.all.peak",
             "reserved_bytes.all.peak", "reserved_bytes.all.current", "num_alloc_retries", "num_device_alloc",
             "num_device_free", "num_sync_all_streams")


def measure() -> dict:
    """All three on the current CUDA device, or {"skipped": why}."""
    import torch
    if not torch.cuda.is_available():
        return {"skipped": "needs a CUDA device: torch's caching allocator serves GPU memory"}
    out = {"device_name": torch.cuda.get_device_name(), "torch_version": torch.__version__,
           "block_bytes": BLOCK_BYTES}
    stream_reuse(record_stream=False)  # warm-up: a first launch of a kernel loads its module, which waits
    out["without_record_stream"] = stream_reuse(record_stream=False)
    out["with_record_stream"] = stream_reuse(record_stream=True)
    out["empty_cache"] = empty_cache()
    out["step_counters"] = step_counters()
    return out


def stream_reuse(record_stream: bool) -> dict:
    """Free a block on the host while a side stream's kernel still reads it, then allocate the
    same size on the default stream: is the block handed out again at once?"""
    import torch
    torch.cuda._sleep(1000)   # load the sleep kernel first: a lazy module load waits for the device
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    side = torch.cuda.Stream()
    x = torch.ones(BLOCK_BYTES // 4, device="cuda")
    x_ptr = x.data_ptr()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)   # the side stream is busy ...
        x.mul_(2)                         # ... and then still has to use x
    if record_stream:
        x.record_stream(side)             # "x is in use on side": free only once side gets there
    del x                                 # the host is done with x: its block goes back to the cache
    y = torch.empty(BLOCK_BYTES // 4, device="cuda")
    busy = not side.query()
    same = y.data_ptr() == x_ptr
    torch.cuda.synchronize()
    return {"record_stream": record_stream, "same_block_handed_out": same, "side_stream_busy_then": busy,
            "unsafe": same and busy}


def empty_cache() -> dict:
    """Allocate and free a set of tensors, keep one, then empty the cache."""
    import torch
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    keep = torch.empty(BLOCK_BYTES // 4, device="cuda")
    tmp = [torch.empty(64 << 18, device="cuda") for _ in range(8)]  # 8 × 64 MiB, then freed
    del tmp
    before = {"reserved_bytes": torch.cuda.memory_reserved(), "allocated_bytes": torch.cuda.memory_allocated()}
    torch.cuda.empty_cache()
    after = {"reserved_bytes": torch.cuda.memory_reserved(), "allocated_bytes": torch.cuda.memory_allocated()}
    del keep
    return {"before": before, "after": after,
            "returned_to_driver_bytes": before["reserved_bytes"] - after["reserved_bytes"]}


def step_counters(steps: int = 5) -> dict:
    """memory_stats deltas over `steps` forward+backward+update steps of a small MLP."""
    import torch
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    torch.cuda.reset_peak_memory_stats()
    s0 = torch.cuda.memory_stats()
    for _ in range(steps):
        loss = model(torch.randn(256, 1024, device="cuda")).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    s1 = torch.cuda.memory_stats()
    out = {"steps": steps}
    for key in STAT_KEYS:
        if key.endswith((".peak", ".current")):
            out[key] = s1.get(key)
        else:
            out[key] = s1.get(key, 0) - s0.get(key, 0)
    return out


# ---- rows for the page (plain dicts) -------------------------------------------------------------
MIB = 1 << 20


def reuse_rows(r: dict) -> list[dict]:
    """One row per run of stream_reuse: was the block handed out again while the side stream ran?"""
    rows = []
    for key, label in (("without_record_stream", "freed, no record_stream"), ("with_record_stream", "freed after x.record_stream(side)")):
        x = r.get(key) or {}
        if not x:
            continue
        rows.append({"the side stream's tensor": label,
                     "next allocation got its block": "yes" if x.get("same_block_handed_out") else "no, another block",
                     "side stream still running then": "yes" if x.get("side_stream_busy_then") else "no",
                     "safe": "NO: the new owner can overwrite it first" if x.get("unsafe") else "yes"})
    return rows


def empty_cache_rows(r: dict) -> list[dict]:
    """memory_reserved and memory_allocated before and after torch.cuda.empty_cache()."""
    e = r.get("empty_cache") or {}
    if not e:
        return []
    return [{"": when, "memory_reserved (MiB)": round(e[when]["reserved_bytes"] / MIB, 1),
             "memory_allocated (MiB)": round(e[when]["allocated_bytes"] / MIB, 1)} for when in ("before", "after")]


def counter_rows(r: dict) -> list[dict]:
    """The memory_stats counters of a few training-like steps (byte counters in KiB/MiB/GiB)."""
    from .errors import fmt_bytes
    c = r.get("step_counters") or {}
    return [{"memory_stats key": k, "value": fmt_bytes(c[k]) if "_bytes." in k and isinstance(c[k], int) else c[k]}
            for k in STAT_KEYS if k in c]

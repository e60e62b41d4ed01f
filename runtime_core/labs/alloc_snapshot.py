"""alloc_snapshot lab: PyTorch's own memory history over one training-like step (CUDA).

In a fresh child process (allocator/torch_snapshot.py): memory._record_memory_history() from
before the model exists, one step of a small MLP (forward, backward, optimizer step, zero_grad),
then memory._snapshot(), reduced to what the page draws, the way PyTorch's memory_viz draws it
(frames dropped):

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

from ..allocator.torch_snapshot import reduce_snapshot  # noqa: F401  (the reduction lives in allocator/)
from .gpu_recorded import in_child, live_or_recorded

LAB = dict(name="alloc_snapshot",
           summary="PyTorch's _record_memory_history + _snapshot() over one training step: "
                   "segments and blocks over time, beside our pool's block map of the same allocations",
           page="pages/3_Caching_allocator.py", panel="alloc_snapshot",
           renderer="pages.ui.labs29_panels:alloc_snapshot", text_key="allocator_snapshot")

WHAT = "PyTorch's memory snapshot of a training step"


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
        r = in_child("allocator.torch_snapshot", "step_snapshot", 240, device="cuda")
        if "error" in r:
            raise RuntimeError(f"the alloc_snapshot lab's child process failed: {r['error']}")
        return finish(r)
    return live_or_recorded("alloc_snapshot", WHAT, backend, measure)

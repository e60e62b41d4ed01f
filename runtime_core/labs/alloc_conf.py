"""alloc_conf lab: the fragmentation lab under each PYTORCH_CUDA_ALLOC_CONF setting (CUDA).

The allocation orders of allocator/labs.py, run by PyTorch's own allocator in a fresh child
process per setting (CUDA reads PYTORCH_CUDA_ALLOC_CONF once, at initialisation), capped at the
order's capacity: the child is allocator/torch_expandable.py's. Per setting and order:
reserved at peak vs free, the largest free block, fragmentation, cudaMallocs, and whether the
final request of the fragmenting order (1 GiB with 2 GiB free in four 0.5 GiB holes) still OOMs.

    default                       PyTorch's rules: the 1.5 GiB requests split the cached 2 GiB blocks
    max_split_size_mb:1024        blocks above 1 GiB are never split: the 1.5 GiB requests do not
                                  carve up the 2 GiB blocks, the cache is released and re-malloced
    garbage_collection_threshold:0.6  past 60% of the capped memory, cached blocks are reclaimed
    expandable_segments:True      segments grow by mapping pages: no holes between segments

On a machine without a GPU the lab shows the shipped recording, or says it is owed.
"""
from __future__ import annotations

import sys

from .gpu_recorded import REPO_ROOT, live_or_recorded

LAB = dict(name="alloc_conf",
           summary="the OOM-with-free-memory lab under each PYTORCH_CUDA_ALLOC_CONF: default, max_split_size_mb, "
                   "garbage_collection_threshold, expandable_segments (one fresh process each)",
           page="pages/3_Caching_allocator.py", panel="alloc_conf",
           renderer="pages.ui.labs29_panels:alloc_conf", text_key="allocator_conf")

WHAT = "PyTorch's allocator under each PYTORCH_CUDA_ALLOC_CONF"
SETTINGS = {"default": "", "max_split_size_mb": "max_split_size_mb:1024",
            "garbage_collection_threshold": "garbage_collection_threshold:0.6",
            "expandable_segments": "expandable_segments:True"}
ORDER_NAMES = ("fragmenting", "growing")


def measure(timeout_s: float = 120.0) -> dict:
    """One child per setting; {"settings": {name: {"alloc_conf", "fragmenting", "growing"}}}."""
    from ..child_process import run
    out = {"settings": {}, "errors": []}
    for name, conf in SETTINGS.items():
        done = run(f"allocator child ({name})", [sys.executable, "-m", "runtime_core.allocator.torch_expandable"],
                   timeout_s=timeout_s, env={"PYTORCH_CUDA_ALLOC_CONF": conf}, cwd=REPO_ROOT)
        reply = None if done.error else done.reply()
        if reply is None:
            out["settings"][name] = {"alloc_conf": conf, "error": done.error or "printed no JSON result"}
            out["errors"].append(f"{name}: {out['settings'][name]['error']}")
        else:
            out["settings"][name] = dict(reply, alloc_conf=conf, child_wall_s=round(done.wall_s, 3))
    return finish(out)


def finish(r: dict) -> dict:
    """signal: the default setting OOMs on the fragmenting order's final request with memory free."""
    s = r.get("settings") or {}
    frag = {n: (v.get("fragmenting") or {}) for n, v in s.items()}
    ooms = [n for n, f in frag.items() if f.get("request_oom")]
    fits = [n for n, f in frag.items() if f and not f.get("request_oom")]
    default = frag.get("default") or {}
    r["signal"] = bool(default.get("request_oom"))
    r["oom_settings"], r["fit_settings"] = ooms, fits
    if not frag or not any(frag.values()):
        r["verdict"] = "Nothing measured: " + "; ".join(r.get("errors") or ["no settings ran"])
        return r
    r["verdict"] = (f"The 1 GiB request after the fragmenting order OOMed under {', '.join(ooms) or 'no setting'}"
                    f" and fit under {', '.join(fits) or 'no setting'}"
                    + (f"; by default {default.get('free_bytes', 0) / 2**30:.2f} GiB was free, the largest "
                       f"free block {default.get('largest_free_block_bytes', 0) / 2**30:.2f} GiB." if default else "."))
    return r


def run(backend: str = "sim") -> dict:
    return live_or_recorded("alloc_conf", WHAT, backend, measure)

"""D2H-hazard lab: a non_blocking copy to pinned host memory, read before the stream is
synchronized (engine/cuda/torch_labs/d2h_hazard.py measures it on a GPU).

Each trial writes a new value on the GPU behind a busy kernel, copies it to the host with
non_blocking=True and reads it; the checksum is compared with the synchronized copy's. Read at
once, the host sees what the buffer held before (stale); a sync before the copy is the wrong place
(the copy itself is still in flight); an event recorded after the copy, or a stream sync after it,
fixes it. Stream priorities are measured beside it: the latency of a small result issued from a
high- vs a normal-priority stream while a background job runs; the recording decides whether the
difference is measurable, and the text says which.
"""
from __future__ import annotations

from . import gpu_only

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="d2h_hazard", summary="a non_blocking copy to pinned memory read before the sync; event vs sync; stream priorities",
           page="pages/2_Streams_and_async.py", panel="d2h",
           renderer="pages.ui.torch_lab_panels:d2h_hazard", text_key=None)

WAYS = ("early", "to_cpu", "sync_before", "event", "sync_after")
PRIORITY_GAIN = 0.8     # high priority measurable: its median latency below this fraction of normal's...
PRIORITY_MIN_US = 5.0   # ...and at least this many µs shorter


def priority_measurable(p: dict | None) -> bool | None:
    """Whether the high-priority stream's latency was measurably shorter (None: not measured)."""
    if not p or not p.get("normal_us") or p.get("high_us") is None:
        return None
    return p["high_us"] < PRIORITY_GAIN * p["normal_us"] and p["normal_us"] - p["high_us"] >= PRIORITY_MIN_US


def judge(raw: dict) -> dict:
    out = gpu_only.header("d2h_hazard", raw)
    out.update(raw)
    ways = raw.get("ways") or {}
    stale = {w: (ways.get(w) or {}).get("stale_trials") for w in WAYS}
    out["stale"] = stale
    out["fix_exact"] = stale.get("event") == 0 and stale.get("sync_after") == 0
    out["signal"] = bool(stale.get("early")) and out["fix_exact"]
    p = raw.get("priority") if isinstance(raw.get("priority"), dict) else None
    out["priority_measurable"] = priority_measurable(p)
    out["verdict"] = verdict(out)
    return out


def verdict(r: dict) -> str:
    s, n = r.get("stale") or {}, r.get("trials")
    if s.get("early") is None or s.get("event") is None:
        return "The lab did not finish: " + str(r.get("error") or "no trials") + "."
    text = (f"Read at once after a non_blocking copy, the host saw stale values in {s['early']} of {n} trials "
            f"(x.to('cpu', non_blocking=True): {s.get('to_cpu')} of {n}; a sync before the copy: "
            f"{s.get('sync_before')} of {n}). With an event after the copy: {s['event']} of {n}; "
            f"with a stream sync after it: {s.get('sync_after')} of {n}.")
    p, m = r.get("priority") or {}, r.get("priority_measurable")
    if m is not None:
        text += (f" A separate question, stream priority: a small result behind a busy background stream took "
                 f"{p['high_us']:.0f} µs from a high-priority "
                 f"stream and {p['normal_us']:.0f} µs from a normal one: "
                 + ("measurably sooner." if m else _short_of_a_gain(p)))
    return text


def _short_of_a_gain(p: dict) -> str:
    """Why a priority gap is not called a gain, naming the test it fails (priority_measurable's)."""
    sooner_us = p["normal_us"] - p["high_us"]
    if sooner_us <= 0:
        return "no sooner."
    pct, need = 100 * sooner_us / p["normal_us"], 100 * (1 - PRIORITY_GAIN)
    if p["high_us"] >= PRIORITY_GAIN * p["normal_us"]:
        return f"{pct:.1f}% sooner, short of the {need:.0f}% this lab asks of a clear gain."
    return f"{sooner_us:.1f} µs sooner, short of the {PRIORITY_MIN_US:.0f} µs this lab asks of a clear gain."


def _live() -> dict:
    from ..engine.cuda.torch_labs import d2h_hazard as gpu
    return judge(gpu.measure())


def run(backend: str = "sim") -> dict:
    """On CUDA: measure and judge. On the simulator: the shipped recording (its verdict written
    again from its numbers, by the wording above), or the owed notice."""
    r = gpu_only.run("d2h_hazard", backend, _live)
    recorded = r.get("source") != "live" and not r.get("owed_recording") and isinstance(r.get("stale"), dict)
    return dict(r, verdict=verdict(r)) if recorded else r

"""The reduce-overhead lab's points and verdict, whichever backend measured them (__init__.py
says what each point shows; sim.py and cuda.py are where the numbers come from)."""
from __future__ import annotations


POINTS = ("fresh_inputs", "kept_output", "mark_step", "kernels", "new_shapes", "skips", "skips_partition_off")
RECORD_COMMAND = ("python -m runtime_core aot reduce-overhead --json "
                  "--record lessons/recordings/reduce_overhead_h200.json")


def points_from_decoder(rec) -> dict:
    """What the decoder recording (aot decoder --record) already holds of this lab: the graphs
    recorded per batch, ms and launches per token of both graphs, our capture's stale input."""
    ro = rec.labs.get("reduce_overhead") or {}
    dec = ro.get("decoder") or {}
    variants = rec.data.get("decoder", {}).get("variants", {})
    out = {"torch_version": rec.meta.torch_version}
    if rec.labs.get("stale_input"):
        out["fresh_inputs"] = {"manual_capture": rec.labs["stale_input"], "partial": "the compiled step's side"}
    if dec:
        out["new_shapes"] = {"batches": dec.get("batches"), "per_batch": None,
                             "recordings_batch1_all_positions": dec.get("recordings_batch1_all_positions"),
                             "recordings_for_new_batches": dec.get("recordings_for_new_batches"),
                             "recordings_total": dec.get("recordings_total"), "warning": None, "warn_limit": None}
    if "our_graph" in variants and "reduce_overhead" in variants:
        out["kernels"] = {name: {"ms_per_token": variants[name]["ms_per_token"], "kernels": None,
                                 "launch_calls": variants[name].get("kernel_launches_per_token"),
                                 "graph_launches": variants[name].get("graph_launches_per_token")}
                          for name in ("our_graph", "reduce_overhead")}
        out["kernels"]["partial"] = "the kernel counts of both graphs"
    return out


def finish(points: dict, backend: str, source: str, device_name: str, recording: str | None = None) -> dict:
    """The lab's dict from its points: header keys first, then the points, owed, signal, verdict."""
    out = {"lab": "reduce_overhead", "backend": backend, "source": source, "device_name": device_name}
    if recording:
        out["recording"] = recording
    out.update({k: v for k, v in points.items() if k not in ("lab", "backend", "source", "device_name",
                                                             "recording", "signal", "verdict", "owed")})
    out.setdefault("errors", [])
    out["owed"] = [p for p in POINTS if _owed(out.get(p))]
    out["signal"] = signal(out)
    out["verdict"] = verdict(out)
    return out


def _owed(point) -> bool:
    """No numbers for this point (absent, skipped on this device, failed), or only part of them."""
    return not point or "partial" in point or set(point) <= {"skipped"} or "error" in point


def signal(r: dict) -> bool:
    """A reduce-overhead pitfall showed up: a kept output raised or changed, a new shape
    recorded a new graph, or a region was left un-graphed."""
    bug = ((r.get("kept_output") or {}).get("bug") or {}).get("behaviour")
    shapes = r.get("new_shapes") or {}
    per_batch = shapes.get("per_batch") or []
    new_graphs = any(p.get("new_recordings", 0) > 0 for p in per_batch[1:]) or (shapes.get("recordings_for_new_batches") or 0) > 0
    skipped = any((s or {}).get("skips", 0) > 0 for s in (r.get("skips") or {}).values() if isinstance(s, dict))
    return bug in ("raised", "changed") or new_graphs or skipped


def verdict(r: dict) -> str:
    """One sentence per measured point; the owed points named with the command that records them."""
    from .text import sentences
    parts = sentences(r)
    if r.get("errors"):
        parts.append(f"{len(r['errors'])} point(s) failed: " + "; ".join(r["errors"])[:400] + ".")
    if r["owed"] and r["source"] == "recorded":
        parts.append(f"Not recorded yet: {', '.join(r['owed'])} (a GPU records them: `{RECORD_COMMAND}`).")
    return " ".join(parts) or "Nothing measured: no GPU here and no recording of this lab ships."

"""trees_lifecycle lab: a cudagraph tree's life under torch.compile(mode="reduce-overhead") (CUDA).

Measured in a fresh child process (cudagraph trees are per-process state), on a small MLP:

    per_call        what each call did: warm-up (run eagerly in the tree's pool), record, replay,
                    counted by wrapping CUDAGraphTreeManager.run_eager / record_function /
                    execute_node (torch/_inductor/cudagraph_trees.py)
    overwritten     one generation's output read after the next call (on the recording: changed, no error);
                    a clone keeps it; torch.compiler.cudagraph_mark_step_begin() once, two calls in
                    that step, the first read; a mark before every call, the previous one read
    rerecord        a fresh ordinary input each call is copied in (no re-record); a new static
                    input (a parameter at a new address) each call re-records, and past
                    torch._inductor.config.triton.cudagraph_unexpected_rerecord_limit (set to 2)
                    the function runs without graphs, with torch's reason
    skip_dynamic    dynamic=True over five sizes: a graph per size, and with
                    triton.cudagraph_skip_dynamic_graphs = True none (skipped, with the reason)
    max_autotune    torch._inductor.list_mode_options() of each mode, and the graphs a
                    mode="max-autotune" compile records: it turns cudagraphs on too

On a machine without a GPU the lab shows the shipped recording, or says it is owed.
"""
from __future__ import annotations

from ..aot.trees_points import DYNAMIC_SIZES, RERECORD_LIMIT  # noqa: F401  (the measurements live in aot/)
from .gpu_recorded import from_recording, in_child, live_or_recorded

LAB = dict(name="trees_lifecycle",
           summary="cudagraph trees under reduce-overhead: warm-up, record, replay per call; outputs "
                   "overwritten by the next generation; re-records and their limit; skipped dynamic "
                   "graphs; max-autotune graphs too",
           page="pages/4_CUDA_graphs.py", panel="trees_lifecycle",
           renderer="pages.ui.labs29_panels:trees_lifecycle", text_key="cudagraph_tree_lifecycle")

WHAT = "a cudagraph tree's warm-up, record and replay (torch.compile on a GPU)"


def finish(out: dict) -> dict:
    """signal: a kept output raised or changed when the next generation ran; verdict in numbers."""
    ow = out.get("overwritten") or {}
    kept = (ow.get("kept_across_calls") or {}).get("behaviour")
    rr, sd = out.get("rerecord") or {}, out.get("skip_dynamic") or {}
    rows = (out.get("per_call") or {}).get("rows") or []
    out["signal"] = kept in ("raised", "changed")
    parts = []
    if rows:
        total = {k: sum(r[k] for r in rows) for k in ("warmup", "record", "replay")}
        parts.append(f"Of {len(rows)} calls, {total['warmup']} warmed up, {total['record']} recorded a graph and "
                     f"{total['replay']} replayed it.")
    if kept:
        said = {"raised": "raised an error", "changed": "changed silently", "kept": "was kept"}[kept]
        parts.append(f"An output kept across the next call {said}.")
    if rr.get("rows"):
        parts.append(f"Graphs re-recorded for new weights: {rr['records_for_new_weights']}, with the limit at "
                     f"{rr['limit']}; calls that then ran without a graph: {rr['graphless_calls_for_new_weights']}.")
    if sd.get("default") and sd.get("skip"):
        parts.append(f"dynamic=True recorded {sd['default']['records']} graphs over {len(DYNAMIC_SIZES)} sizes, "
                     f"{sd['skip']['records']} with cudagraph_skip_dynamic_graphs.")
    out["verdict"] = " ".join(parts) or ("Nothing measured: " + "; ".join(out.get("errors") or ["no points ran"]))
    return out


def run(backend: str = "sim") -> dict:
    """Live in a fresh child on CUDA; on the simulator the shipped recording (or owed).
    Raises RuntimeError if the child failed before it could report."""
    def measure() -> dict:
        r = in_child("aot.trees_points", "points", 400, device="cuda")
        if "error" in r and "errors" not in r:
            raise RuntimeError(f"the trees_lifecycle lab's child process failed: {r['error']}")
        return finish(r)
    def recorded() -> dict:  # the verdict in today's words, from the recording's numbers
        r = from_recording("trees_lifecycle", WHAT)
        return finish(r) if r.get("per_call") or r.get("rerecord") else r
    return live_or_recorded("trees_lifecycle", WHAT, backend, measure, recorded)

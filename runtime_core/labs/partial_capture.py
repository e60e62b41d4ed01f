"""Partial-capture lab: make_graphed_callables (torch's CUDA graphs API) on a network's static parts, its dynamic
middle left eager (engine/cuda/torch_labs/partial_capture.py measures it on a GPU).

The network: a head and a tail of Linear+ReLU layers around a middle that reads one value to the
host (`.item()`) and picks one of two blocks in Python. Three ways to run a step, timed:
    eager          every kernel launched from Python
    partial graph  head and tail each replayed as one graph; the middle eager between them
    whole graph    the whole forward cannot be captured (the capture raises at the .item()); with
                   the branch fixed beforehand it captures, and replays that branch for every input
The saving comes from launches: the partial graph removes the head's and tail's kernel launches
from the host's path and keeps the middle's. Without a GPU the shipped recording is shown.
"""
from __future__ import annotations

from . import gpu_only

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="partial_capture", summary="make_graphed_callables on a network's static parts, the dynamic middle eager",
           page="pages/4_CUDA_graphs.py", panel="torch_graphs",
           renderer="pages.ui.torch_lab_panels:partial_capture", text_key=None)

MATCH_TOL = 1e-4   # relative error (max |diff| / max |eager|) for "the same output as eager"
WRONG_TOL = 1e-2   # relative error above which an output is plainly wrong


def parts(raw: dict) -> list[dict]:
    """What may be captured and what may not, part by part, with the capture's own answer."""
    n = raw.get("layers_per_part")
    return [
        {"part": f"head: {n} × (Linear + ReLU)", "captured": True,
         "why": "fixed shapes, no host read: make_graphed_callables replays it as one graph"},
        {"part": "gate: h.abs().mean().item() > threshold", "captured": False,
         "why": raw.get("whole_capture_error") or "(the whole-forward capture did not raise)"},
        {"part": "branch A (Linear + Tanh) or B (Linear + GELU), chosen in Python", "captured": False,
         "why": "the choice is made on the host each step; a capture records one branch"},
        {"part": f"tail: {n} × (Linear + ReLU)", "captured": True,
         "why": "fixed shapes, its input copied into the static buffer by the graphed callable"}]


def judge(raw: dict) -> dict:
    """The lab's result from the measured numbers: saving, launches removed, signal, verdict."""
    out = gpu_only.header("partial_capture", raw)
    out.update(raw)
    eager, partial, whole = raw.get("eager_us"), raw.get("partial_us"), raw.get("whole_fixed_us")
    el, pl = raw.get("eager_launches") or {}, raw.get("partial_launches") or {}
    out["parts"] = parts(raw)
    errs = raw.get("partial_rel_errs") or []
    out["partial_max_rel_err"] = max(errs) if errs else None
    out["partial_matches_eager"] = bool(errs) and max(errs) <= MATCH_TOL
    fixed = raw.get("fixed_branch_rel_errs")
    out["fixed_branch_wrong_inputs"] = sum(e > WRONG_TOL for e in fixed) if fixed else None
    out["saving_us"] = round(eager - partial, 2) if eager and partial else None
    out["partial_speedup"] = round(eager / partial, 2) if eager and partial else None
    out["whole_fixed_speedup"] = round(eager / whole, 2) if eager and whole else None
    removed = (el.get("kernel_launches") or 0) - (pl.get("kernel_launches") or 0)
    out["launches_removed"] = round(removed, 1) if "kernel_launches" in el and "kernel_launches" in pl else None
    out["saving_per_removed_launch_us"] = (round(out["saving_us"] / removed, 2)
                                           if out["saving_us"] is not None and removed > 0 else None)
    out["signal"] = bool(raw.get("whole_capture_error")) and out["partial_matches_eager"] and \
        out["saving_us"] is not None and out["saving_us"] > 0
    out["verdict"] = verdict(out)
    return out


def verdict(r: dict) -> str:
    if not r.get("eager_us") or not r.get("partial_us"):
        return "The lab did not finish: " + str(r.get("error") or "no step times were measured") + "."
    text = (f"The whole forward could not be captured ({'it raised at the .item()' if r.get('whole_capture_error') else 'it did not raise'}). "
            f"With the head and tail graphed and the middle eager, a step took {r['partial_us']:.0f} µs instead of "
            f"{r['eager_us']:.0f} µs eager ({r['partial_speedup']:.2f}×), "
            + ("with the same output as eager" if r["partial_matches_eager"] else
               f"but the output differs from eager by {r.get('partial_max_rel_err') or 0:.2g} (relative)") + ".")
    if r.get("launches_removed") is not None:
        text += f" It removed {r['launches_removed']:g} kernel launches per step from the host's path."
    if r.get("whole_fixed_us") and r.get("fixed_branch_wrong_inputs") is not None:
        text += (f" A whole graph with the branch fixed took {r['whole_fixed_us']:.0f} µs, and gave a wrong output "
                 f"for {r.get('fixed_branch_wrong_inputs', 0)} of {r.get('inputs', 0)} inputs (those that take the other branch).")
    return text


def _live() -> dict:
    from ..engine.cuda.torch_labs import partial_capture as gpu
    return judge(gpu.measure())


def run(backend: str = "sim") -> dict:
    """On CUDA: measure and judge. On the simulator: the shipped recording, or the owed notice."""
    return gpu_only.run("partial_capture", backend, _live)

"""Training-step lab: forward, backward and optimizer.step() captured in one CUDA graph, with
static input and target buffers and Adam(capturable=True) (engine/cuda/torch_labs/training_step.py
measures it on a GPU).

Measured: a step eager vs replayed; the same capture with capturable=False (it raises: the step
counter lives on the host); and the silent failure: each new target rebound to the old name
instead of copied into the static target buffer. First the signal (the loss the graph reports
against the loss of its own prediction on the real target), then the fix (copy_ the target), both
beside eager training from the same weights on the same batches.
"""
from __future__ import annotations

from . import gpu_only

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="training_step", summary="forward, backward and Adam(capturable=True) in one graph; a target not copied in",
           page="pages/4_CUDA_graphs.py", panel="torch_graphs",
           renderer="pages.ui.torch_lab_panels:training_step", text_key=None)

SAME_REL = 1e-3    # relative loss gap below which two runs train alike (capturable Adam's order differs)
STALE_REL = 1e-2   # a gap above which the stale target is plainly seen


def rel_gap(a: list[float] | None, b: list[float] | None) -> float | None:
    """Largest |a_i - b_i| / |b_i| over the steps both lists hold (None when either is missing)."""
    if not a or not b:
        return None
    return max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(a, b))


def judge(raw: dict) -> dict:
    out = gpu_only.header("training_step", raw)
    out.update(raw)
    stale = raw.get("stale_target") or {}
    eager = raw.get("eager_losses")
    out["copied_rel_gap"] = rel_gap(raw.get("graph_losses"), eager)
    out["stale_reported_vs_true_gap"] = rel_gap(stale.get("reported_losses"), stale.get("true_losses"))
    out["stale_true_vs_eager_gap"] = rel_gap(stale.get("true_losses"), eager)
    e, g = raw.get("eager_step_us"), raw.get("graph_step_us")
    out["speedup"] = round(e / g, 2) if e and g else None
    nc = raw.get("without_capturable") or {}
    out["capturable_false_raised"] = bool(nc.get("raised"))
    fix_ok = out["copied_rel_gap"] is not None and out["copied_rel_gap"] < SAME_REL
    seen = out["stale_reported_vs_true_gap"] is not None and out["stale_reported_vs_true_gap"] > STALE_REL
    out["fix_exact"] = fix_ok
    out["signal"] = bool(seen and fix_ok)
    out["verdict"] = verdict(out)
    return out


def verdict(r: dict) -> str:
    if not r.get("eager_step_us") or not r.get("graph_step_us"):
        return "The lab did not finish: " + str(r.get("capture_error") or r.get("error") or "no step times") + "."
    text = (f"One training step took {r['graph_step_us']:.0f} µs replayed against {r['eager_step_us']:.0f} µs eager "
            f"({r['speedup']:.2f}×). ")
    text += ("With capturable=False the capture raised. " if r["capturable_false_raised"]
             else "With capturable=False the capture did not raise. ")
    if r.get("stale_reported_vs_true_gap") is not None:
        text += (f"With the target rebound instead of copied, the loss the graph reported was off the loss on the "
                 f"real target by up to {100 * r['stale_reported_vs_true_gap']:.0f}%, with no error; ")
    if r.get("copied_rel_gap") is not None:
        text += (f"copied into the static buffer, the graph's losses matched eager training within "
                 f"{100 * r['copied_rel_gap']:.2g}%.")
    return text


def _live() -> dict:
    from ..engine.cuda.torch_labs import training_step as gpu
    return judge(gpu.measure())


def run(backend: str = "sim") -> dict:
    """On CUDA: measure and judge. On the simulator: the shipped recording, or the owed notice."""
    return gpu_only.run("training_step", backend, _live)

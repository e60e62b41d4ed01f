"""Graph-RNG lab: dropout inside a captured region (engine/cuda/torch_labs/graph_rng.py measures
it on a GPU).

Captured, dropout draws from the default CUDA generator, which the graph tracks (Philox: a seed
and an offset the graph reads on the device; each replay moves the offset on), so each replay draws
a new mask. Two failures: a generator of your own that the graph was not told about
(register_generator_state) raises at capture; a mask drawn on the host before capture is baked
into the graph and repeats on every replay, silently. The signal compares masks across replays.
"""
from __future__ import annotations

from . import gpu_only

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="graph_rng", summary="dropout in a graph: a new mask each replay; an untracked generator; a frozen host mask",
           page="pages/4_CUDA_graphs.py", panel="torch_graphs",
           renderer="pages.ui.torch_lab_panels:graph_rng", text_key=None)


def fresh(stats: dict | None) -> bool:
    """Every replay drew its own mask."""
    return bool(stats) and stats.get("distinct_masks") == stats.get("replays") and stats.get("replays", 0) > 1


def frozen(stats: dict | None) -> bool:
    """Every replay applied the same mask."""
    return bool(stats) and stats.get("distinct_masks") == 1 and stats.get("replays", 0) > 1


def offset_steps(offsets: list[int] | None) -> list[int]:
    return [b - a for a, b in zip(offsets, offsets[1:])] if offsets else []


def judge(raw: dict) -> dict:
    out = gpu_only.header("graph_rng", raw)
    out.update(raw)
    off = (raw.get("philox_offsets") or {}).get("offsets")
    out["offset_steps"] = offset_steps(off)
    out["in_graph_fresh"] = fresh(raw.get("in_graph"))
    out["registered_fresh"] = fresh(raw.get("registered"))
    out["host_mask_frozen"] = frozen(raw.get("host_mask"))
    out["unregistered_raised"] = bool((raw.get("unregistered") or {}).get("raised"))
    out["fix_exact"] = out["in_graph_fresh"] and out["registered_fresh"]
    out["signal"] = out["host_mask_frozen"] and out["fix_exact"]
    out["verdict"] = verdict(out)
    return out


def verdict(r: dict) -> str:
    g, h = r.get("in_graph") or {}, r.get("host_mask") or {}
    if "distinct_masks" not in g or "distinct_masks" not in h:
        return "The lab did not finish: " + str(r.get("in_graph_error") or h.get("error") or "no masks compared") + "."
    text = (f"Dropout captured in the graph drew {g['distinct_masks']} different masks in {g['replays']} replays "
            f"(neighbouring replays agreed on {100 * g['mean_agreement']:.0f}% of positions). ")
    text += ("A generator of our own, not registered with the graph, raised at capture. " if r["unregistered_raised"]
             else "A generator of our own, not registered with the graph, did not raise at capture. ")
    text += (f"A mask drawn on the host before capture gave {h['distinct_masks']} mask in {h['replays']} replays: "
             "the same positions dropped every time, with no error.")
    return text


def _live() -> dict:
    from ..engine.cuda.torch_labs import graph_rng as gpu
    return judge(gpu.measure())


def run(backend: str = "sim") -> dict:
    """On CUDA: measure and judge. On the simulator: the shipped recording, or the owed notice."""
    return gpu_only.run("graph_rng", backend, _live)

"""What torch.compile(mode="reduce-overhead") really does, measured on the decoder step.

    run_points(device)    every point, in THIS process, in the order they must run:
        fresh_inputs   a fresh input tensor each call is copied in: outputs match eager
                       (ro_buffers.py; beside it, the same mistake with our hand capture)
        kept_output    the next replay overwrites a kept output; a clone keeps it
        mark_step      cudagraph_mark_step_begin(): what one marked step keeps
        kernels        our graph vs reduce-overhead's: kernels per step and ms per token
                       (ro_kernels.py; CUDA only)
        new_shapes     one graph per new size, and torch's warning past its limit (ro_shapes.py)
        skips          regions left un-graphed, with the reason torch logs; skips_partition_off
                       the same with torch._inductor.config.graph_partition = False
    run_in_child(device)  the same in a fresh child process (child.py "ro-lab"), the way the
                          lab runs it: cudagraph trees and step marks are per process state,
                          and the profiler slows every later launch of the process it ran in.

Each point is measured on its own: one that fails records {"error": ...} and the others still
run; `errors` lists them. On a CPU the same code runs (torch.compile works there) but Inductor
records no CUDA graph: the tests use that to run every line without a GPU.
"""
from __future__ import annotations

import traceback

SMALL_DECODER = {"layers": 2, "d": 32, "heads": 2}   # the CPU smoke run's model (fast to compile)
CHILD_TIMEOUT_S = 900.0


def _point(out: dict, name: str, fn, *args, **kw) -> None:
    try:
        out[name] = fn(*args, **kw)
    except Exception as e:  # one broken point must not hide the others: record it loudly
        out[name] = {"error": f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"}
        out["errors"].append(f"{name}: {out[name]['error']}")
        out["tracebacks"][name] = traceback.format_exc(limit=6)[-2000:]


def run_points(device: str = "cuda", small: bool = False) -> dict:
    """Measure every point on `device` in this process (see the module docstring).

    Args:
        small: a 2-layer, width-32 decoder (the CPU smoke test), instead of the lesson's 12 x 256.
    Returns a dict: device, device_name, torch_version, config, one dict per point, errors.
    """
    import torch

    from .coldwarm import device_name
    from .models import make_decoder
    from .ro_buffers import fresh_inputs, kept_output, mark_step, warm
    from .ro_kernels import kernels_per_step
    from .ro_shapes import new_shapes, skipped_graphs
    cuda = device.startswith("cuda")
    kw = SMALL_DECODER if small else {}
    out = {"device": device, "device_name": device_name("cuda" if cuda else "cpu"),
           "torch_version": torch.__version__, "config": {"layers": 12, "d": 256, "batch": 1, **kw},
           "errors": [], "tracebacks": {}}
    torch._dynamo.reset()
    model = make_decoder(device, max_batch=8, **kw)
    compiled = torch.compile(model, mode="reduce-overhead")
    _point(out, "warm_up", warm, compiled, device)
    manual = _manual_capture(model, device) if cuda else None
    graphed = (out["warm_up"].get("recordings", 0) > 0) if "error" not in out["warm_up"] else None
    _point(out, "fresh_inputs", fresh_inputs, model, compiled, device, manual, graphed)
    _point(out, "kept_output", kept_output, model, compiled, device)
    _point(out, "mark_step", mark_step, model, compiled, device)   # from here on, marks end steps
    if cuda:
        _point(out, "kernels", kernels_per_step, model, compiled, device)
    else:
        out["kernels"] = {"skipped": "needs a CUDA device: there is no graph to count on a CPU"}
    _point(out, "new_shapes", new_shapes, device, batches=(1, 2, 3, 4) if small else (1, 2, 3, 4, 5, 6), **kw)
    _point(out, "skips", skipped_graphs, device)   # this torch's default (graph partitioning on, 2.11+)
    _point(out, "skips_partition_off", skipped_graphs, device, partition=False)
    return out


def _manual_capture(model, device: str):
    """The stale-input demo of our hand capture (decoder_bench), as a callable for fresh_inputs."""
    def run() -> dict:
        from .decoder_bench import stale_input_demo
        from .graph_capture import StaticGraphStep
        from .models import decoder_inputs
        token, pos = decoder_inputs(device)
        return stale_input_demo(model, StaticGraphStep(model, token, pos))
    return run


def run_in_child(device: str = "cuda", small: bool = False, timeout_s: float = CHILD_TIMEOUT_S) -> dict:
    """run_points(device, small) in a fresh child process. Raises RuntimeError (with the child's
    last line) if the child crashed, timed out or failed before it could report."""
    from .spawn import run_child
    r = run_child(["ro-lab", device] + (["small"] if small else []), timeout_s=timeout_s)
    if "error" in r and "errors" not in r:
        raise RuntimeError(f"the reduce-overhead lab's child process failed: {r['error']}")
    r.pop("process_wall_s", None)
    return r

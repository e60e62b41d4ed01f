"""Why reduce-overhead beats our hand capture on the decoder: fewer graph nodes (not shorter
ones: their mean duration is about the same).

Both replay one CUDA graph per token, so both pay one launch. What differs is what the graph
holds: our capture records the decoder's eager kernels one for one, while reduce-overhead
records the kernels Inductor generated, after fusing neighbours. One step of each is profiled
(torch.profiler, CUDA activity): GPU kernels, their summed and mean time, launch calls. The
ms per token come first, timed without the profiler (profiling slows later launches in a
process), and the profiled steps last. CUDA only: ro_lab.py runs it in its own child process.
"""
from __future__ import annotations

import torch

from .models import decoder_inputs
from .token_timing import interleaved_ms_per_token, token_inputs

TOP = 3  # kernels named per variant (the ones that took the most GPU time)


def kernels_per_step(model, compiled, device: str, tokens: int = 40, blocks: int = 5) -> dict:
    """Time, then profile, one step of our graph and one of the (warm) reduce-overhead step.

    Returns {"our_graph": {...}, "reduce_overhead": {...}}, each with ms_per_token (median of
    interleaved blocks), kernels (GPU kernel events in one step: the graph's nodes plus any
    kernel launched outside it, such as an input copy), gpu_ops (kernels + copies), busy_us
    (summed GPU time), kernel_mean_us, launch_calls, graph_launches, copy_calls, top_kernels.
    """
    from ..diagnose.profile_step import summarize
    from ..engine.profiler_trace import trace_region
    from .graph_capture import StaticGraphStep
    token, pos = decoder_inputs(device)
    ours = StaticGraphStep(model, token, pos)

    def ro_step(tok, p):
        torch.compiler.cudagraph_mark_step_begin()  # a new step: the last output may be reused
        return compiled(tok, p)
    steps = {"our_graph": ours.step, "reduce_overhead": ro_step}
    with torch.no_grad():
        for step in steps.values():  # warm: reduce-overhead records on its second call at a position
            for _ in range(3):
                step(token, pos)
    ms = interleaved_ms_per_token(steps, token_inputs(device, tokens), blocks)
    out = {}
    for name, step in steps.items():
        with torch.no_grad(), trace_region(warmup=lambda s=step: s(token, pos)) as trace:
            step(token, pos)
        p = summarize(trace)
        out[name] = {"ms_per_token": ms[name], "kernels": p.kernels, "gpu_ops": p.gpu_ops,
                     "busy_us": round(p.busy_us, 3), "kernel_mean_us": round(p.kernel_mean_us, 3),
                     "launch_calls": p.launch_calls, "graph_launches": p.graph_launches,
                     "copy_calls": p.copy_calls, "top_kernels": p.top_kernels[:TOP]}
    return out

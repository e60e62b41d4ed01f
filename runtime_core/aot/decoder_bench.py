"""The decoder worked example (GPU): eager vs our graph vs raw torch.cuda.graph vs reduce-overhead.

A 12-layer, width-256 decoder step at batch 1 with a static KV cache, one token per step. All
four variants run in ONE process (eager time moves by ~30% between processes on the H200), their
timing blocks interleaved, and each reports ms/token (median of blocks, timed in bulk with a
sync) and launches/token (torch.profiler: cudaLaunchKernel + cuLaunchKernel + cudaGraphLaunch).

It also shows the stale-input bug: a graph reads its captured input buffer, so a token written
into a fresh tensor is never seen; copying it into the captured buffer matches eager exactly.
"""
from __future__ import annotations

import torch

from ..errors import NoCudaDevice

from .graph_capture import RawGraphStep, StaticGraphStep
from .models import decoder_inputs, make_decoder
from .token_timing import interleaved_ms_per_token, launches_per_token, token_inputs

CONFIG = {"layers": 12, "d": 256, "batch": 1, "kv_cache_slots": 128, "vocab": 1024}


def stale_input_demo(model, ours: StaticGraphStep) -> dict:
    """Replay after a fresh-tensor token (wrong) and after copying it in (exact). Max abs errors."""
    old_tok, pos = decoder_inputs("cuda", token_id=11, pos=50)
    new_tok, _ = decoder_inputs("cuda", token_id=900, pos=50)
    with torch.no_grad():
        want = model(new_tok, pos).clone()
        ours.step(old_tok, pos)                # the captured buffer now holds the old token
        static_token = ours.static_token
        static_token = new_tok.clone()         # the bug: rebinding the name to a fresh tensor...
        stale = ours.replay_as_is().clone()    # ...the graph still reads the captured buffer
        right = ours.step(static_token, pos).clone()  # the fix: copy into the captured buffer
    return {"fresh_tensor_max_abs_err": float((stale - want).abs().max()),
            "copied_in_max_abs_err": float((right - want).abs().max()),
            "copied_in_exact": bool(torch.equal(right, want))}


def run_decoder_bench(tokens: int = 50, blocks: int = 8, with_reduce_overhead: bool = True) -> dict:
    """Measure the four variants in this process. Returns per-variant numbers and the ratios.

    Args:
        tokens: tokens per timing block (>= 50 recommended); blocks x tokens are timed in all.
        blocks: timing blocks per variant, interleaved; the median block is reported.
        with_reduce_overhead: include torch.compile(mode="reduce-overhead") (~15 s to compile).
    """
    if not torch.cuda.is_available():
        raise NoCudaDevice("the decoder benchmark needs a CUDA device (CUDA graphs are GPU-only)")
    model = make_decoder("cuda")
    token, pos = decoder_inputs("cuda")
    steps = {"eager": model,
             "our_graph": StaticGraphStep(model, token, pos).step,
             "raw_graph": RawGraphStep(model, token, pos).step}
    compile_s = None
    if with_reduce_overhead:
        from .reduce_overhead import compiled_step
        steps["reduce_overhead"], compile_s = compiled_step(model)
    inputs = token_inputs("cuda", tokens)
    ms = interleaved_ms_per_token(steps, inputs, blocks)
    variants = {name: {"ms_per_token": ms[name], **launches_per_token(step, inputs[:20])}
                for name, step in steps.items()}
    out = {"config": CONFIG, "tokens_per_block": tokens, "blocks": blocks, "variants": variants,
           "outputs_match_eager": _outputs_match(model, steps),
           "reduce_overhead_compile_s": compile_s}
    out["speedup_vs_eager"] = {n: ms["eager"] / ms[n] for n in ms}
    out["our_vs_raw_speedup_ratio"] = out["speedup_vs_eager"]["our_graph"] / out["speedup_vs_eager"]["raw_graph"]
    out["stale_input"] = stale_input_demo(model, StaticGraphStep(model, token, pos))
    return out


def _outputs_match(model, steps: dict) -> dict:
    tok, pos = decoder_inputs("cuda", token_id=333, pos=77)
    with torch.no_grad():
        want = model(tok, pos)
        return {name: bool(torch.allclose(step(tok, pos), want, rtol=1e-3, atol=1e-3))
                for name, step in steps.items() if name != "eager"}


def recording(results: dict, reduce_overhead: dict | None = None) -> dict:
    """A recording (lessons/recordings/decoder_*.json): meta, one point per variant, the labs."""
    points = [{"variant": name, **v} for name, v in results["variants"].items()]
    labs = {"stale_input": results["stale_input"]}
    if reduce_overhead is not None:
        labs["reduce_overhead"] = reduce_overhead
    from ..recordings.store import new_meta
    meta = new_meta("decoder", torch.cuda.get_device_name(0), torch.__version__, "cuda")
    return {"meta": meta, "points": points, "decoder": results, "labs": labs}

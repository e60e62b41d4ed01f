"""torch.compile(mode="reduce-overhead") on the decoder step: cudagraph trees, recordings, skips.

reduce-overhead compiles with Inductor and then records each compiled region as a CUDA graph,
managed by a *cudagraph tree* (torch/_inductor/cudagraph_trees.py): one tree per device, one
memory pool for all of its graphs. What this file measures (GPU only):

    positions   pos is a tensor input, so a new position is new data: still one recording
    batches     each new batch size is a new shape: a recompile and a new recording
    two halves  a graph break splits the step into two regions: two graphs, the second recorded
                as a child of the first in the same tree (same pool), eager code between them
    skip        a region that copies a result to the CPU cannot be a graph; Inductor skips it,
                bumps counters["inductor"]["cudagraph_skips"] and logs why ("cudagraphs" log)
"""
from __future__ import annotations

import contextlib
import logging
import time

import torch

from ..errors import NoCudaDevice

from .models import DecoderStep, TwoHalvesStep, decoder_inputs, make_decoder
from .token_timing import launches_per_token, time_block_ms, token_inputs


class CpuIslandStep(DecoderStep):
    """The decoder step that also returns the largest logit *on the CPU* (a host-side readout)."""

    def forward(self, token, pos):
        logits = super().forward(token, pos)
        return logits, logits.amax().cpu()


@contextlib.contextmanager
def count_recordings():
    """Count CUDA-graph recordings made by cudagraph trees inside the block: yields a dict."""
    from torch._inductor import cudagraph_trees
    box = {"recordings": 0}
    original = cudagraph_trees.CUDAGraphTreeManager.record_function

    def counting(self, *args, **kwargs):
        box["recordings"] += 1
        return original(self, *args, **kwargs)
    cudagraph_trees.CUDAGraphTreeManager.record_function = counting
    try:
        yield box
    finally:
        cudagraph_trees.CUDAGraphTreeManager.record_function = original


@contextlib.contextmanager
def capture_torch_logs(artifacts=("cudagraphs", "perf_hints")):
    """Collect messages of torch's artifact loggers (e.g. why cudagraphs were skipped, or the
    warning about too many distinct sizes)."""
    import importlib
    for module in ("compile_fx", "cudagraph_utils", "cudagraph_trees", "output_code"):
        try:  # importing them creates their loggers (output_code is newer than some torches)
            importlib.import_module(f"torch._inductor.{module}")
        except ImportError:
            pass
    messages: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())
    handler, touched = Keep(logging.DEBUG), []
    for name in list(logging.root.manager.loggerDict):
        if any(name.endswith(f".__{a}") for a in artifacts):
            log = logging.getLogger(name)
            touched.append((log, log.level))
            log.addHandler(handler)
            log.setLevel(logging.DEBUG)
    try:
        yield messages
    finally:
        for log, level in touched:
            log.removeHandler(handler)
            log.setLevel(level)


def tree_shape(device_index: int = 0) -> dict:
    """Nodes and depth of this device's cudagraph tree (depth 2: a child graph, same pool)."""
    from torch._inductor import cudagraph_trees
    mgr = cudagraph_trees.get_manager(device_index, create_if_none_exists=False)
    if mgr is None:
        return {"tree_nodes": 0, "tree_depth": 0}

    def walk(nodes, depth):
        count, deepest = 0, depth - 1
        for node in nodes:
            c, d = walk([n for kids in node.children.values() for n in kids], depth + 1)
            count, deepest = count + 1 + c, max(deepest, d, depth)
        return count, deepest
    n, d = walk([n for roots in mgr.roots.values() for n in roots], 1)
    return {"tree_nodes": n, "tree_depth": d}


def compiled_step(model, warm_calls: int = 3, batch: int = 1):
    """torch.compile(model, mode="reduce-overhead"), warmed up. Returns (step, compile_s).

    Calls 1-2 compile and warm up; a later call records the graph; after that calls replay.
    """
    compiled = torch.compile(model, mode="reduce-overhead")

    def step(token, pos):
        torch.compiler.cudagraph_mark_step_begin()  # a new step: earlier outputs may be reused
        return compiled(token, pos)
    token, pos = decoder_inputs("cuda", batch=batch)
    t0 = time.perf_counter()
    with torch.no_grad():
        for _ in range(warm_calls):
            step(token, pos)
    torch.cuda.synchronize()
    return step, time.perf_counter() - t0


def _phase(model_cls, tokens: int, batches=(1,)) -> dict:
    """Compile model_cls, run `tokens` steps at each batch size; count recordings and skips."""
    from torch._dynamo.utils import counters
    skips0 = counters["inductor"]["cudagraph_skips"]
    out = {}
    with count_recordings() as rec, capture_torch_logs() as logs:
        model = make_decoder("cuda", model_cls)
        step, out["compile_s"] = compiled_step(model)
        inputs = token_inputs("cuda", tokens)
        time_block_ms(step, inputs)
        out["recordings_batch1_all_positions"] = rec["recordings"]
        out["ms_per_token"] = min(time_block_ms(step, inputs) for _ in range(3))
        out.update(launches_per_token(step, inputs[:20]))
        for b in batches[1:]:
            for tok, pos in token_inputs("cuda", 4, batch=b):
                with torch.no_grad():
                    step(tok, pos)
        out["recordings_total"] = rec["recordings"]
    out["cudagraph_skips"] = counters["inductor"]["cudagraph_skips"] - skips0
    out["skip_messages"] = [m for m in logs if "skip" in m.lower()][:5]
    out["batches"] = list(batches)
    return out


def run_reduce_overhead(tokens: int = 50) -> dict:
    """Run the four experiments on the GPU and return their numbers (see the module docstring)."""
    if not torch.cuda.is_available():
        raise NoCudaDevice("reduce-overhead needs a CUDA device (CUDA graphs are GPU-only)")
    torch._dynamo.reset()
    plain = _phase(DecoderStep, tokens, batches=(1, 2, 4))
    plain["recordings_for_new_batches"] = plain["recordings_total"] - plain["recordings_batch1_all_positions"]
    torch._dynamo.reset()
    halves = _phase(TwoHalvesStep, tokens)
    halves.update(tree_shape(torch.cuda.current_device()))
    torch._dynamo.reset()
    skip = _phase(CpuIslandStep, 10)
    return {"decoder": plain, "graph_break": halves, "cpu_island": skip, "tokens": tokens}

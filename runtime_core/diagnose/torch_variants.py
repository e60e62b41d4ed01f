"""The torch ways to cut launch overhead, set up on one model step (GPU only):

    graphed_callables   torch.cuda.make_graphed_callables: PyTorch's one-call capture (forward only
                        here: nothing requires grad, so no backward graph is captured)
    compile             torch.compile(model): Inductor fuses kernels, but launches them one by one
    reduce_overhead     torch.compile(model, mode="reduce-overhead"): fusion, then cudagraph trees
                        record and replay the compiled region

Each returns a measure_variants.Variant with its setup time (capture, or compile + warm-up +
recording) and the memory its graphs keep. Compiles use static shapes, and the runner resets
Dynamo after every diagnosis (CudaRunner.cleanup), so a second batch size is a fresh compile of
that shape, not a dynamic-shape recompile. The two compiled variants of one step share the
model's code object; Dynamo keeps one cache entry per backend (its BACKEND_MATCH guard), so each
runs its own compiled code. Inductor's on-disk caches stay on: a later compile of the same graph
can be faster than the first.
"""
from __future__ import annotations

import time

import torch

from ..errors import UsageError
from .measure_variants import Variant

COMPILE_WARM_CALLS = 3  # compile, warm up, record (reduce-overhead replays from the next call)


def make_variant(runner, name: str, step) -> Variant:
    """Set up variant `name` of `step` on the GPU; UsageError for a name we don't know."""
    makers = {"graphed_callables": _graphed_callables, "compile": _compiled, "reduce_overhead": _reduce_overhead}
    if name not in makers:
        raise UsageError(f"unknown variant {name!r}; choose from eager, our_graph, {', '.join(makers)}")
    before = runner.reserved_bytes()
    t0 = time.perf_counter()
    fn = makers[name](step)
    torch.cuda.synchronize()
    setup_s = time.perf_counter() - t0
    return Variant(fn, setup_s, runner.graph_pool_bytes(step, before, runner.reserved_bytes()))


def _graphed_callables(step):
    """make_graphed_callables over clones of the inputs. It copies a call's inputs into those
    clones only when they are other tensors (we always pass other tensors, as our graph does).

    It gets a function that calls the model, not the module: handed a module, it replaces that
    module's forward with the graphed one, and every other variant (eager too) would replay it.
    """
    sample = step.clone_inputs()
    model = step.model
    with torch.no_grad():
        graphed = torch.cuda.make_graphed_callables(lambda *xs: model(*xs), sample)

    def run(*xs):
        with torch.no_grad():
            return graphed(*xs)
    return run


def _compiled(step):
    compiled = torch.compile(step.model, dynamic=False)

    def run(*xs):
        with torch.no_grad():
            return compiled(*xs)
    _warm(run, step)
    return run


def _reduce_overhead(step):
    compiled = torch.compile(step.model, mode="reduce-overhead", dynamic=False)

    def run(*xs):
        torch.compiler.cudagraph_mark_step_begin()  # a new step: the last step's outputs may be reused
        with torch.no_grad():
            return compiled(*xs)
    _warm(run, step)
    return run


def _warm(run, step) -> None:
    xs = step.clone_inputs()
    for _ in range(COMPILE_WARM_CALLS):
        run(*xs)

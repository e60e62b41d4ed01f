"""Output-overwrite lab: a captured graph's output is a static buffer, and the next replay writes it.

The region copies its static input into a static output buffer and runs a chain of N_KERNELS
kernels (+1 each) on it, so one replay turns input v into v + N_KERNELS. Step 1 serves
FIRST_VALUE and the caller keeps "its result": a reference to the buffer the graph returned.
Step 2 serves SECOND_VALUE with one more replay. The kept step-1 result now reads step 2's
answer: the replay wrote the same address, and nothing said so. (A graph captured by hand
hands back the same static output tensor on every replay and checks nothing. torch.compile's
reduce-overhead mode reuses its outputs the same way and, by default, says nothing either (the
recorded reduce_overhead and trees_lifecycle labs: the kept output changed, no error); only once
torch.compiler.cudagraph_mark_step_begin() marks the steps does reading an output after the next
marked step raise an error instead of returning the new values.)

The fix: copy (clone) the output into a buffer of your own before the next replay. That copy
keeps step 1's value. One program for both devices: static buffers from dev.new_buffer, the
warm-up-and-capture recipe (engine/capture.py), replays on the current stream.
"""
from __future__ import annotations

from ..recordings.shipped import get_device
from .common import capture_copy_chain, header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="output_overwrite", summary="a graph's output kept across replays vs cloned",
           page="pages/4_CUDA_graphs.py", panel="graph_bugs",
           renderer="pages.ui.bug_lab_panels:output_overwrite", text_key="output_kept_across_replays")

N_KERNELS = 4        # kernels in the captured chain, each adds 1
NUMEL = 1024         # elements of the static input and output buffers
FIRST_VALUE = 1.0    # step 1's request
SECOND_VALUE = 2.0   # step 2's request


def run(backend: str = "sim") -> dict:
    """Keep a reference to step 1's output, replay step 2, read both.

    Returns the header keys plus expected_step1_value (PyTorch eager on step 1's input),
    step1_value_read_at_step1 (the output read right after step 1), kept_reference_value (that
    same output object read after step 2), cloned_value (a clone taken after step 1, read after
    step 2), step2_value, kept_is_static_output (the kept object is the graph's static output,
    same address), n_kernels, signal (the kept result changed) and verdict.
    """
    dev = get_device(backend)
    static_in, static_out, graph = capture_copy_chain(dev, NUMEL, N_KERNELS)
    out = static_out  # what the captured region returned
    expected = _eager(dev, FIRST_VALUE)

    _serve(dev, graph, static_in, FIRST_VALUE)
    kept = out                                   # the bug: keep a reference to the static output
    at_step1 = dev.read(kept)[0]
    clone = dev.new_buffer(NUMEL)
    dev.copy(clone, out)                         # the fix: clone it before the next replay
    _serve(dev, graph, static_in, SECOND_VALUE)
    kept_after, cloned, step2 = dev.read(kept)[0], dev.read(clone)[0], dev.read(out)[0]

    res = header("output_overwrite", dev)
    res.update({"n_kernels": N_KERNELS, "numel": NUMEL, "first_value": FIRST_VALUE,
                "second_value": SECOND_VALUE, "expected_step1_value": expected,
                "step1_value_read_at_step1": at_step1, "kept_reference_value": kept_after,
                "cloned_value": cloned, "step2_value": step2,
                "kept_is_static_output": kept.address == static_out.address,
                "fix_exact": cloned == expected})
    res["signal"] = kept_after != expected and at_step1 == expected
    res["verdict"] = (f"Step 1's result read {at_step1:g} right after its replay, but the reference "
                      f"kept to it read {kept_after:g} after step 2's replay (step 2's answer), with no "
                      f"error: both are the graph's one static output buffer. A clone taken before "
                      f"the next replay still reads {cloned:g}"
                      f"{' (correct)' if cloned == expected else ''}.")
    return res


def _serve(dev, graph, static_in, value: float) -> None:
    """One request: the input arrives in a fresh buffer, is copied into the static input, replay."""
    x = dev.new_buffer(static_in.numel)
    dev.fill(x, value)
    dev.copy(static_in, x)
    graph.replay()


def _eager(dev, value: float) -> float:
    """PyTorch eager (async launches, no graph) on one request: the oracle."""
    x = dev.new_buffer(NUMEL)
    dev.fill(x, value)
    for _ in range(N_KERNELS):
        dev.launch_chain_kernel(x)
    return dev.read(x)[0]

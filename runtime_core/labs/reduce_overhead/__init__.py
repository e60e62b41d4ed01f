"""reduce-overhead lab: what torch.compile(mode="reduce-overhead") really does, on the decoder step.

Four points, each measured (aot/ro_lab.py runs them; points.py labels and explains them):
    fresh_inputs  inputs that are not parameters or buffers are copied into static buffers for
                  you: a fresh tensor each call still gives eager's answer. "Route inputs through
                  static buffers" is the rule for a graph captured by hand (the stale lab).
    kept_output   the next replay overwrites the outputs: a kept output raises or changes; a
                  clone keeps it, and cudagraph_mark_step_begin() sets where a step ends.
    new_shapes    every new shape records a new graph, and torch warns past its limit; skips:
                  some regions are never graphed (a mutated input, a CPU tensor), with a reason.
    kernels       why it beats our hand capture: Inductor's fusion leaves fewer nodes.

Two peers, like diagnose's runners: on CUDA the lab runs live, in a child process (cuda.py);
without a GPU it replays a shipped recording (sim.py), labelled "recorded" (the simulator has no torch.compile to
run): the reduce-overhead recording when one ships (`aot reduce-overhead --record`), else the
labs recording's copy, else what the decoder recording holds of it, with the rest listed as owed.
"""
from __future__ import annotations

from ...engine.device import resolve_backend
from ...knobs import Backend
from . import cuda, sim
from .points import POINTS, RECORD_COMMAND, finish, points_from_decoder, signal, verdict  # noqa: F401

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="reduce_overhead",
           summary="torch.compile(mode='reduce-overhead') on the decoder: inputs copied in, outputs "
                   "overwritten, a graph per shape, skips, fewer nodes than our capture",
           page="pages/4_CUDA_graphs.py", panel="reduce_overhead",
           renderer="pages.ui.ro_lab_panel:show", text_key=None)

_BY_BACKEND = {Backend.CUDA: cuda.run, Backend.SIM: sim.run}


def run(backend: str = "sim") -> dict:
    """The lab's result: the header keys, the points, `owed` (points with no numbers), signal
    and verdict. Raises UsageError for a bad backend (or cuda without a GPU), RuntimeError if
    the live child process failed."""
    return _BY_BACKEND[resolve_backend(backend)]()

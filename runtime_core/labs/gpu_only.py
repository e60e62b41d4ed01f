"""The labs that only a GPU can run (issue 28: partial_capture, training_step, graph_rng,
d2h_hazard): they drive torch itself (make_graphed_callables, an optimizer, dropout's generator,
pinned copies), which the simulator's device contract cannot express.

On CUDA a lab measures live (engine/cuda/torch_labs/) and judges the raw numbers; on the simulator
it shows the lab's run in the shipped labs recording (labs_h200.json), labelled "recorded", or,
while that recording is owed, a result that says so (gpu_recorded.owed: `owed_recording` True,
no numbers, signal False, and the commands that record it).
A registry keyed on the backend, like reduce_overhead's: tests/test_device_contract.py lists it.
"""
from __future__ import annotations

from ..engine.device import resolve_backend
from ..knobs import Backend
from .gpu_recorded import from_recording

RECORD_SCRIPT = "bash tests/gpu_runs/session12_labs.sh   # on one H200, writes $OUT/labs28/<lab>.json"
MERGE_COMMAND = "python tests/gpu_runs/merge_labs28.py OUT/labs28/*.json"
WHAT = {"partial_capture": "graphing part of a network with make_graphed_callables",
        "training_step": "capturing a whole training step",
        "graph_rng": "dropout's random masks inside a graph",
        "d2h_hazard": "a non_blocking copy read before the sync"}


def recorded(name: str) -> dict:
    """Lab `name` as the shipped labs recording holds it, labelled recorded; while none ships it,
    the owed result (gpu_recorded.owed, with this issue's commands)."""
    return from_recording(name, WHAT[name], record_command=RECORD_SCRIPT, merge_command=MERGE_COMMAND)


def run(name: str, backend: str, live) -> dict:
    """`live()` on CUDA (it measures and judges), the recording on the simulator."""
    table = {Backend.CUDA: live, Backend.SIM: lambda: recorded(name)}
    return table[resolve_backend(backend)]()


def header(name: str, raw: dict) -> dict:
    """The first keys of a live result: the GPU's name as torch gives it (raw["env"])."""
    env = raw.get("env") or {}
    return {"lab": name, "backend": "cuda", "source": "live",
            "device_name": f"{env.get('gpu', 'CUDA device')} · torch {env.get('torch_version', '?')}"}

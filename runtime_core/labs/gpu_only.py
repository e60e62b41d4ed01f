"""The labs that only a GPU can run (issue 28: partial_capture, training_step, graph_rng,
d2h_hazard): they drive torch itself (make_graphed_callables, an optimizer, dropout's generator,
pinned copies), which the simulator's device contract cannot express.

On CUDA a lab measures live (engine/cuda/torch_labs/) and judges the raw numbers; on the simulator
it shows the lab's run in the shipped labs recording (labs_h200.json), labelled "recorded", or,
while that recording is owed, a result that says so (`recording_owed`: True, no numbers, signal False).
A registry keyed on the backend, like reduce_overhead's: tests/test_device_contract.py lists it.
"""
from __future__ import annotations

from ..engine.device import resolve_backend
from ..knobs import Backend

RECORD_SCRIPT = "tests/gpu_runs/session12_labs.sh"
MERGE_COMMAND = "python tests/gpu_runs/merge_labs28.py <the script's $OUT>/labs28/*.json"


def owed(name: str) -> dict:
    """The result shown for lab `name` while its H200 recording is owed: no numbers at all."""
    return {"lab": name, "backend": "sim", "source": "recorded", "device_name": "no recording of this lab shipped",
            "recording_owed": True, "signal": False,
            "verdict": f"The H200 recording of this lab is owed: {RECORD_SCRIPT} records it on one GPU, "
                       f"then {MERGE_COMMAND} adds it to lessons/recordings/labs_h200.json."}


def recorded(name: str) -> dict:
    """Lab `name` as the shipped labs recording holds it, labelled recorded; else `owed(name)`."""
    from ..recordings import store
    rec = store.best("labs")
    lab = rec.labs.get(name) if rec else None
    if not isinstance(lab, dict) or "signal" not in lab:
        return owed(name)
    return dict(lab, backend="sim", source="recorded", device_name=recorded_label(rec, name, lab))


def recorded_label(rec, name: str, lab: dict) -> str:
    """device · torch · date of this lab's own run (merged later than the rest of the file, it
    carries its environment and meta.parts_recorded_at its date)."""
    env = lab.get("env") if isinstance(lab.get("env"), dict) else {}
    at = ((rec.data.get("meta") or {}).get("parts_recorded_at") or {}).get(name) or rec.meta.recorded_at
    return f"{env.get('gpu') or rec.meta.device_name} · torch {env.get('torch_version') or rec.meta.torch_version} · {str(at)[:10]}"


def run(name: str, backend: str, live) -> dict:
    """`live()` on CUDA (it measures and judges), the recording on the simulator."""
    table = {Backend.CUDA: live, Backend.SIM: lambda: recorded(name)}
    return table[resolve_backend(backend)]()


def header(name: str, raw: dict) -> dict:
    """The first keys of a live result: the GPU's name as torch gives it (raw["env"])."""
    env = raw.get("env") or {}
    return {"lab": name, "backend": "cuda", "source": "live",
            "device_name": f"{env.get('gpu', 'CUDA device')} · torch {env.get('torch_version', '?')}"}

"""What the labs of issue 29 share (trees_lifecycle, compile_cache, alloc_snapshot, alloc_conf,
malloc_async): a measurement in a fresh child process, and the shipped recording in place of a
simulator that cannot run them.

    in_child(module, function, timeout_s, env=..., **kwargs)
        runs runtime_core.MODULE.FUNCTION(**kwargs) (MODULE dotted: "aot.trees_points") in a
        fresh Python process (through
        ../child_process.py; `env` on top of this one's, e.g. PYTORCH_CUDA_ALLOC_CONF, which CUDA
        reads once) and returns its JSON answer, or {"error": one line}
    from_recording(name, what)
        the lab as the shipped labs recording holds it (labelled "recorded", with the file and the
        lab's own device · torch · date), or, when none ships it, owed(name, what): no number,
        signal False (key "owed_recording"), and the commands that record it (by default issue 29's
        RECORD_SCRIPT on one H200, then MERGE_COMMAND; labs/gpu_only.py passes issue 28's)

Child entry point: python -m runtime_core.labs.gpu_recorded MODULE FUNCTION JSON_KWARGS
"""
from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
RECORD_SCRIPT = "bash tests/gpu_runs/session12_labs29.sh   # on one H200, writes $OUT/labs29_h200.json"
MERGE_COMMAND = ("python tests/gpu_runs/merge_labs29.py OUT/labs29_h200.json "
                 "lessons/recordings/labs_h200.json")


def in_child(module: str, function: str, timeout_s: float, env: dict | None = None, **kwargs) -> dict:
    """runtime_core.MODULE.FUNCTION(**kwargs) in a fresh Python process; its JSON answer or {"error": ...}."""
    from ..child_process import run
    done = run(f"lab child {module}.{function}",
               [sys.executable, "-m", "runtime_core.labs.gpu_recorded", module, function, json.dumps(kwargs)],
               timeout_s=timeout_s, env=env, cwd=REPO_ROOT)
    reply = done.reply()
    if done.error:
        return {"error": (reply or {}).get("error") or done.error, "child_wall_s": round(done.wall_s, 3)}
    if reply is None:
        return {"error": f"lab child {module}.{function} printed no JSON result"}
    reply["child_wall_s"] = round(done.wall_s, 3)
    return reply


def owed(name: str, what: str, record_command: str = RECORD_SCRIPT, merge_command: str = MERGE_COMMAND) -> dict:
    """A result with no numbers: the lab's H200 recording is owed. `what`: what it would show."""
    return {"lab": name, "backend": "sim", "source": "recorded", "device_name": "no GPU recording shipped",
            "signal": False, "owed_recording": True,
            "verdict": f"Not recorded yet: {what} needs a CUDA GPU, and no GPU recording of this lab ships. "
                       "No number is shown until one does.",
            "record_command": record_command, "merge_command": merge_command}


def from_recording(name: str, what: str, kind: str = "labs", **commands) -> dict:
    """Lab `name` from the best shipped recording of `kind` that holds it (one with a boolean
    signal), else owed(name, what, **commands)."""
    from ..recordings import store
    found, _ = store.scan(kind)
    holding = [r for r in found if isinstance(r.labs.get(name), dict) and "signal" in r.labs[name]]
    rec = max(holding, key=store.rank, default=None)
    if rec is None:
        return owed(name, what, **commands)
    lab = rec.labs[name]
    return dict(lab, backend="sim", source="recorded", device_name=recorded_label(rec, name, lab),
                recording=rec.meta.file)


def recorded_label(rec, name: str, lab: dict) -> str:
    """device · torch · date of this lab's own run: a lab merged into the file later than the rest
    carries its date in meta.parts_recorded_at (and may carry its environment, lab["env"])."""
    parts = (rec.data.get("meta") or {}).get("parts_recorded_at") or {}
    if name not in parts:
        return rec.label()
    env = lab.get("env") if isinstance(lab.get("env"), dict) else {}
    return (f"{env.get('gpu') or rec.meta.device_name} · torch {env.get('torch_version') or rec.meta.torch_version}"
            f" · {str(parts[name])[:10]}")


def child_main(argv: list[str]) -> int:
    """The child's side: import the lab module, call the function, print one JSON line."""
    import importlib
    module, function, kwargs = argv[0], argv[1], json.loads(argv[2]) if len(argv) > 2 else {}
    try:
        out = getattr(importlib.import_module(f"runtime_core.{module}"), function)(**kwargs)
    except Exception as e:  # the parent gets one line, the traceback goes to stderr
        traceback.print_exc()
        print(json.dumps({"error": f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"}), flush=True)
        return 1
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))


def live_or_recorded(name: str, what: str, backend: str, measure, recorded=None) -> dict:
    """The lab on this machine's GPU (`measure()` -> its numbers, labelled live), or, on the
    simulator, `recorded()` (default: from_recording(name, what)): a registry keyed on the
    backend, like labs/reduce_overhead's. UsageError for a bad backend or "cuda" without a GPU."""
    from ..engine.device import resolve_backend
    from ..knobs import Backend

    def live() -> dict:
        from ..aot.coldwarm import device_name
        r = measure()
        return {"lab": name, "backend": "cuda", "source": "live", "device_name": device_name("cuda"), **r}
    table = {Backend.CUDA: live, Backend.SIM: recorded or (lambda: from_recording(name, what))}
    return table[resolve_backend(backend)]()

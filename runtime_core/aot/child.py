"""Child-process steps of the AOT lesson: `python -m runtime_core.aot.child STEP ...` prints JSON.

Loading a compiled package runs native code we did not write; with torch 2.11 on the H200,
`aoti_load_package` segfaulted for every package. Running each step in its own process means a
crash kills only the child: the parent reports "loader crashed: SIGSEGV" as a result and
carries on. Fresh processes are also what a cold/warm start comparison needs.

Steps:
    load PACKAGE INPUT.npy OUTPUT.npy DEVICE   aoti_load_package, then run once and time it
    compile MODE DEVICE                        first call of the MLP: MODE is eager or compile;
                                               TORCHINDUCTOR_CACHE_DIR decides cold or warm;
                                               compile also reports its stages and cache counters
    package DEVICE [BATCH]                     export + AOTInductor package (cached on disk): the
                                               ranged package, or the exact-shape one for BATCH
    serve SPEC.json DEVICE                     load a serving plan's packages, serve its requests
                                               (serving_run.py; the parent turns the input check on)
    unchecked PACKAGE BATCH DEVICE             an exact-shape package called at another batch
    ro-lab DEVICE [small]                      what mode="reduce-overhead" really does (ro_lab.py;
                                               small: a 2-layer decoder, the CPU smoke test)
    crash                                      die by SIGSEGV (tests the crash reporting)
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time


def _sync(device: str) -> None:
    import torch
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def step_load(package: str, in_path: str, out_path: str, device: str) -> dict:
    """Load the package from Python and run it once on the saved input."""
    import numpy as np
    import torch
    x = torch.from_numpy(np.load(in_path)).to(device)
    t0 = time.perf_counter()
    fn = torch._inductor.aoti_load_package(package)
    load_s = time.perf_counter() - t0
    # The first load in a process also pays the loader's lazy imports of torch._inductor (~1-2 s
    # on a CPU); a second load of the same package times the loader itself.
    t0 = time.perf_counter()
    torch._inductor.aoti_load_package(package)
    again_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    y = fn(x)
    _sync(device)
    run_s = time.perf_counter() - t0
    np.save(out_path, y.detach().cpu().numpy())
    return {"load_s": load_s, "load_again_s": again_s, "first_run_s": run_s, "output_shape": list(y.shape)}


def step_compile(mode: str, device: str) -> dict:
    """Time the MLP's first call: eagerly, or through torch.compile (compile + run). A compile
    also reports compile_stages.compile_report(): seconds per stage, the caches' counters."""
    import torch
    from .models import make_mlp, mlp_input
    model, x = make_mlp().to(device), mlp_input(8).to(device)
    fn = torch.compile(model) if mode == "compile" else model
    t0 = time.perf_counter()
    with torch.no_grad():
        fn(x)
    _sync(device)
    first_s = time.perf_counter() - t0
    out = {"mode": mode, "first_call_s": first_s, "cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")}
    if mode == "compile":  # where the first call's time went, and what the caches did
        from .compile_stages import compile_report
        out.update(compile_report(out["cache_dir"]))
    return out


def describe_exit(returncode: int) -> str:
    """'crashed: SIGSEGV' for a signal death, 'exited with status N' otherwise."""
    if returncode < 0:
        try:
            return f"crashed: {signal.Signals(-returncode).name}"
        except ValueError:
            return f"crashed: signal {-returncode}"
    return f"exited with status {returncode}"


def last_json_object(stdout: str) -> dict | None:
    """The last line of `stdout` that is a JSON object (a library may print lines of its own)."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def child_env(env: dict | None) -> dict:
    """This process's environment with `env` on top; a value of None removes that variable."""
    merged = {**os.environ, **(env or {})}
    return {k: v for k, v in merged.items() if v is not None}


def run_child(args: list[str], env: dict | None = None, timeout_s: float = 300.0) -> dict:
    """Run one step in a fresh Python process and return its JSON, or an error result.

    Never raises for a failing child: a crash comes back as
    {"error": "loader crashed: SIGSEGV", "crashed": True, "signal": "SIGSEGV"}.
    """
    cmd = [sys.executable, "-m", "runtime_core.aot.child"] + [str(a) for a in args]
    from ..cache_paths import ROOT
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT,
                              env=child_env(env))
    except subprocess.TimeoutExpired:
        return {"error": f"{args[0]} timed out after {timeout_s:.0f} s", "crashed": False}
    wall_s = time.perf_counter() - t0
    if proc.returncode == 0:
        out = last_json_object(proc.stdout)
        if out is None:
            return {"error": f"child step '{args[0]}' printed no JSON result", "crashed": False}
        out["process_wall_s"] = wall_s
        return out
    crashed = proc.returncode < 0
    what = "loader" if args[0] == "load" else f"child step '{args[0]}'"
    tail = (proc.stderr.strip().splitlines() or [""])[-1][:300]
    return {"error": f"{what} {describe_exit(proc.returncode)}" + ("" if crashed else f": {tail}"),
            "crashed": crashed, "signal": describe_exit(proc.returncode).split(": ")[-1] if crashed else None}


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m runtime_core.aot.child {load,compile,package,serve,unchecked,ro-lab,crash} ...",
              file=sys.stderr)
        return 2
    step, rest = argv[0], argv[1:]
    if step == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if step == "load" and len(rest) == 4:
        out = step_load(*rest)
    elif step == "compile" and len(rest) == 2 and rest[0] in ("eager", "compile"):
        out = step_compile(*rest)
    elif step == "package" and len(rest) in (1, 2):
        from .export import build_package
        out = build_package(rest[0], batch=int(rest[1]) if len(rest) == 2 else None)
    elif step == "serve" and len(rest) == 2:
        from .serving_run import child_serve
        out = child_serve(*rest)
    elif step == "unchecked" and len(rest) == 3:
        from .serving_run import child_unchecked
        out = child_unchecked(rest[0], int(rest[1]), rest[2])
    elif step == "ro-lab" and len(rest) in (1, 2) and rest[1:] in ([], ["small"]):
        from .ro_lab import run_points
        out = run_points(rest[0], small=rest[1:] == ["small"])
    else:
        print(f"bad arguments for step {step!r}: {rest}", file=sys.stderr)
        return 2
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

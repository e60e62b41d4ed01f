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

The parent's side (run_child: start a step, read its JSON, turn a crash into a result) is
spawn.py, through ../child_process.py, the helper every child process of the app goes through.
"""
from __future__ import annotations

import json
import os
import signal
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

"""Measure serving with real AOT packages: the ranged one against exact-shape ones, guard by guard.

    measure_serving(device)   build the plan's packages (cached), serve its requests in a child
                              process, run an exact package unchecked in another, run the ranged
                              package in the C++ runner; save and return the results
    cached_serving(device)    the last saved results, or None

Like coldwarm.measure() it waits its turn in the AOT queue and holds the cache while it runs.
The first run compiles every package of the plan (each a child process); later runs find them
in the cache (looked up here, no child) and only serve. RUNTIME_PREBUILD_AOT=1 builds them at
server start (prebuild.py). The measured times of this machine class are a recording
(lessons/recordings/aot_timing_*.json), not a promise typed here. The child serving the requests runs with
AOTI_RUNTIME_CHECK_INPUTS=1, so the ranged package answers a size outside its range with its
own message; the unchecked child shows what an exact package does without that check.
If the Python loader crashes (it segfaulted with torch 2.11 on the H200), the C++ runner times
every package instead and the results say so.
"""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from .. import atomic
from .spawn import run_child
from .coldwarm import ATOL, RTOL, check_device
from ..cache_paths import cache_dir, cache_root, torch_tag
from .serving_plan import RANGED, SERVING_PLAN, ServingPlan, ranged_name
from .serving_run import serving_env
from ..safe_read import ReadRefused, read_json

PACKAGE_TIMEOUT_S = 900.0   # one AOTInductor compile (CUDA packages take longer)
SERVE_TIMEOUT_S = 300.0


def results_path(device: str) -> Path:
    """Where the last serving measurement for this device and torch version is saved."""
    return cache_root() / f"serving-{device}-{torch_tag()}.json"


def cached_serving(device: str) -> dict | None:
    """The last serving measurement saved for `device`, or None."""
    try:
        return read_json(results_path(device), what="results", finite=False)
    except (OSError, ReadRefused):  # bounded: a FIFO or a huge file in the cache is no result
        return None


def build_packages(plan: ServingPlan, device: str, progress=None, nice: int = 0, on_done=None) -> dict:
    """Every package of `plan`: found in the cache (looked up here, no child process), else
    built in a child process (with `nice` added to its niceness: the prebuild's are lowered).
    Returns {"packages": {"ranged" | "8": path}, "builds": [...], "errors": [...]}; a build
    is {"package", "cached", "package_s", "process_s"} (process_s: the child, start to exit),
    handed to `on_done` as each package is ready."""
    from .export import package_path
    out = {"packages": {}, "builds": [], "errors": []}
    todo = plan.packages()
    for i, batch in enumerate(todo, 1):
        key = "ranged" if batch is RANGED else str(batch)
        name = ranged_name() if batch is RANGED else f"exact package, batch {batch}"
        path = package_path(device, None if batch is RANGED else batch)
        if path.is_file():  # written by a rename, so a file there is a whole package
            out["packages"][key] = str(path)
            out["builds"].append({"package": name, "cached": True, "package_s": 0.0, "process_s": 0.0})
            if on_done:
                on_done(out["builds"][-1])
            continue
        if progress:
            progress("package", f"AOTInductor builds the {name} ({i} of {len(todo)})")
        args = ["package", device] + ([] if batch is RANGED else [str(batch)])
        r = run_child(args, env={"TORCHINDUCTOR_CACHE_DIR": str(cache_dir("inductor-aot"))},
                      timeout_s=PACKAGE_TIMEOUT_S, **({"nice": nice} if nice else {}))
        if "error" in r:
            out["errors"].append(f"{name}: {r['error']}")
            continue
        out["packages"][key] = r["package"]
        out["builds"].append({"package": name, "cached": r.get("cached"), "package_s": r.get("package_s"),
                              "process_s": r.get("process_wall_s")})
        if on_done:
            on_done(out["builds"][-1])
    return out


def measure_serving(device: str = "cpu", plan: ServingPlan = SERVING_PLAN, progress=None, on_wait=None,
                    save: bool = True) -> dict:
    """Build, serve, check and time (see the module docstring). Returns the results (saved
    for the page unless `save` is False): device, plan, builds, rows (one per request),
    unchecked, cpp (the C++ runner's rows), errors, torch_version, device_name, measured_at.

    Raises:
        UsageError / NoCudaDevice: a bad device (before waiting in line).
    """
    from ..cache_lock import cache_in_use
    from .coldwarm import device_name
    from .queue import aot_turn
    import torch
    check_device(device)
    with aot_turn(on_wait=on_wait), cache_in_use():
        built = build_packages(plan, device, progress)
        res = {"device": device, "plan": plan.as_dict(), "builds": built["builds"], "errors": built["errors"],
               "rows": [], "unchecked": None, "cpp": []}
        work = Path(tempfile.mkdtemp(dir=cache_dir("tmp")))
        try:
            if len(built["packages"]) == len(plan.packages()):
                _serve(res, plan, built["packages"], device, work, progress)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        res.update(torch_version=torch.__version__, device_name=device_name(device),
                   measured_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        if save:
            atomic.write_json(results_path(device), res, indent=2)
        return res


def _serve(res: dict, plan: ServingPlan, packages: dict, device: str, work: Path, progress) -> None:
    spec = work / "plan.json"
    spec.write_text(json.dumps({"plan": plan.as_dict(), "packages": packages}), encoding="utf-8")
    if progress:
        progress("serve", "serving the requests (child process, AOTInductor's input check on)")
    served = run_child(["serve", spec, device], env=serving_env(device, True), timeout_s=SERVE_TIMEOUT_S)
    if "error" in served:
        res["errors"].append(f"serving child: {served['error']}")
    else:
        res["rows"], res["threads"] = served["rows"], served.get("threads")
    if plan.unchecked:
        pkg, batch = plan.unchecked
        if progress:
            progress("unchecked", f"exact batch-{pkg} package at batch {batch}, nothing checking the size")
        unchecked = run_child(["unchecked", packages[str(pkg)], batch, device], env=serving_env(device, False))
        res["unchecked"] = {"package_batch": pkg, "batch": batch, **unchecked}  # kept when the child crashes
    if progress:
        progress("cpp", "the C++ runner serves the ranged package (no Python)")
    res["cpp"] = cpp_rows(plan, packages, device, work, every_package="error" in served)


def cpp_rows(plan: ServingPlan, packages: dict, device: str, work: Path, every_package: bool = False) -> list[dict]:
    """The C++ runner on the ranged package: one size inside its range (input check off, as a
    server would run it once the loop has checked), and the first request above the range with
    the package's own check on. With `every_package` (the Python child failed), also every
    package at every size the Python side would have timed."""
    from .export import BATCH_MAX, BATCH_MIN
    jobs = [("ranged", plan.cpp_batch, False)]
    above = [b for b in plan.requests if b > BATCH_MAX]
    if above:
        jobs.append(("ranged", above[0], True))
    if every_package:
        jobs += [("ranged", b, False) for b in plan.requests if BATCH_MIN <= b <= BATCH_MAX and b != plan.cpp_batch]
        jobs += [(str(b), b, False) for b in sorted(set(plan.compare_exact) | set(plan.loop_exact))]
    return [_cpp_row(key, batch, checked, packages, device, work) for key, batch, checked in jobs]


def _cpp_row(key: str, batch: int, checked: bool, packages: dict, device: str, work: Path) -> dict:
    import torch
    from .cpp_runner import run_cpp
    from .models import make_mlp, mlp_input
    x = mlp_input(batch)
    row = {"package": ranged_name() if key == "ranged" else f"exact package, batch {key}", "batch": batch,
           "input_check": "on" if checked else "off", "load_s": None, "run_ms": None, "runs": None,
           "process_ms": None, "matches_reference": None, "error": None}
    try:
        r = run_cpp(Path(packages[key]), x.numpy(), device, work, env=serving_env(device, checked))
    except RuntimeError as e:  # no compiler, or the runner failed to build
        return {**row, "error": str(e).splitlines()[0][:400]}
    if "error" in r:
        return {**row, "error": r["error"]}
    with torch.no_grad():
        want = make_mlp()(x).numpy()
    ok = r["output"].shape == want.shape and bool(np.allclose(r["output"], want, rtol=RTOL, atol=ATOL))
    process_ms = None if r.get("process_s") is None else 1e3 * r["process_s"]
    return {**row, "load_s": r.get("load_s"), "run_ms": 1e3 * r["run_s"], "runs": r.get("runs"),
            "process_ms": process_ms, "matches_reference": ok}

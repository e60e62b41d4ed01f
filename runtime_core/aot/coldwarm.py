"""Cold vs warm start, measured: every step in a fresh child process, results cached on disk.

    eager         the MLP's first eager call (the baseline: no compile at all)
    compile_cold  torch.compile's first call with an empty Inductor cache (a fresh temp dir)
    compile_warm  the same, with the cache dir under .cache/aot/ that an earlier run filled
    package       torch.export + AOTInductor into a .pt2 (cached, so usually instant)
    load_python   aoti_load_package in a child: a loader crash is a result, not an app crash
    load_cpp      the C++ runner (no Python) loads the same package

Cold and warm differ only in TORCHINDUCTOR_CACHE_DIR: Inductor's FX-graph cache (and the
AOTAutograd cache) live there, so a warm process reloads generated code instead of compiling.
It still traces and builds guards: each compile child reports its stages and the caches'
hit/miss counters (compile_cold_detail, compile_warm_detail; see compile_stages.py).

`measure()` is the one way in, for the CLI and the page alike: it waits for its turn in the AOT
queue (queue.py: one measurement or cache clear at a time, first come first served, across
threads and processes), holds the cache while it runs (a clear waits), tidies what killed runs
left behind, always removes its scratch folder (try/finally), and saves its results atomically.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from .. import atomic
from ..errors import NoCudaDevice, UsageError
from .spawn import run_child
from ..cache_paths import cache_dir, cache_root, torch_tag
from ..safe_read import ReadRefused, read_json

TEST_BATCH = 5            # not the export example (8): shows the dynamic batch at work
RTOL, ATOL = 1e-4, 1e-5   # how close a compiled output must be to eager
INDUCTOR_DIR_MAX_BYTES = 1 << 30  # an Inductor cache folder larger than this is emptied before a run


def _warm_cache_dir() -> Path:
    return cache_dir("inductor-warm")


def step_eager(device: str, state: dict) -> dict:
    r = run_child(["compile", "eager", device])
    return {"eager_first_call_s": r.get("first_call_s"), "eager_error": r.get("error")}


def step_compile_cold(device: str, state: dict) -> dict:
    fresh = tempfile.mkdtemp(prefix="inductor-cold-")
    try:
        r = run_child(["compile", "compile", device], env={"TORCHINDUCTOR_CACHE_DIR": fresh})
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return {"compile_cold_s": r.get("first_call_s"), "compile_cold_error": r.get("error"),
            "compile_cold_detail": _detail(r)}


def step_compile_warm(device: str, state: dict) -> dict:
    env = {"TORCHINDUCTOR_CACHE_DIR": str(_warm_cache_dir())}
    out = {}
    marker = _warm_cache_dir() / f"primed-{device}-{torch_tag()}"
    if not marker.exists():  # an empty cache would make "warm" a second cold start: fill it first
        prime = run_child(["compile", "compile", device], env=env)
        out["compile_warm_prime_s"] = prime.get("first_call_s")
        if "error" not in prime:
            marker.touch()
    r = run_child(["compile", "compile", device], env=env)
    return {**out, "compile_warm_s": r.get("first_call_s"), "compile_warm_error": r.get("error"),
            "compile_warm_detail": _detail(r)}


def _detail(r: dict) -> dict:
    """What a compile child reported beyond its first call's time: seconds per compile stage,
    the compile caches' counters, and autotuning results on disk (compile_stages.py)."""
    return {k: r.get(k) for k in ("stages", "counters", "fx_graph_cache", "autotune_best_configs")}


def step_package(device: str, state: dict) -> dict:
    env = {"TORCHINDUCTOR_CACHE_DIR": str(cache_dir("inductor-aot"))}
    r = run_child(["package", device], env=env, timeout_s=600)
    state["package"] = r.get("package")
    return {"package": r.get("package"), "package_cached": r.get("cached"),
            "export_s": r.get("export_s"), "aot_compile_s": r.get("package_s"),
            "package_error": r.get("error")}


def step_load_python(device: str, state: dict) -> dict:
    if not state.get("package"):
        return {"aot_load_python_s": None, "python_loader_error": "no package (the package step failed)"}
    work = Path(state["work_dir"])
    np.save(work / "in.npy", state["x"])
    r = run_child(["load", state["package"], work / "in.npy", work / "py_out.npy", device])
    out = {"aot_load_python_s": r.get("load_s"), "aot_load_python_again_s": r.get("load_again_s"),
           "python_loader_crashed": bool(r.get("crashed")),
           "python_loader_error": r.get("error")}
    if "error" not in r:
        out.update(_compare("python", np.load(work / "py_out.npy"), state["eager"]))
    return out


def step_load_cpp(device: str, state: dict) -> dict:
    from .cpp_runner import run_cpp
    if not state.get("package"):
        return {"aot_load_cpp_s": None, "cpp_error": "no package (the package step failed)"}
    try:
        r = run_cpp(Path(state["package"]), state["x"], device, Path(state["work_dir"]))
    except RuntimeError as e:   # g++ missing or the build failed
        return {"aot_load_cpp_s": None, "cpp_error": str(e)[:500]}
    out = {"aot_load_cpp_s": r.get("load_s"), "cpp_build_s": r.get("build_s"), "cpp_error": r.get("error")}
    if "error" not in r:
        out.update(_compare("cpp", r["output"], state["eager"]))
    return out


def _compare(who: str, got: np.ndarray, want: np.ndarray) -> dict:
    same_shape = got.shape == want.shape
    err = float(np.abs(got - want).max()) if same_shape else float("inf")
    ok = same_shape and bool(np.allclose(got, want, rtol=RTOL, atol=ATOL))
    return {f"{who}_max_abs_err": err, f"{who}_output_matches": ok}


STEPS = (
    ("eager", "eager first call (child process)", step_eager),
    ("compile_cold", "torch.compile, empty cache (child process)", step_compile_cold),
    ("compile_warm", "torch.compile, warm cache (child process)", step_compile_warm),
    ("package", "torch.export + AOTInductor package (child process; ~40 s the first time)", step_package),
    ("load_python", "load the package from Python (child process)", step_load_python),
    ("load_cpp", "load the package from C++ (no Python; builds the runner the first time)", step_load_cpp),
)


# ---- running the steps ---------------------------------------------------------------------
def results_path(device: str) -> Path:
    """The cached measurement for this device and torch version."""
    return cache_root() / f"results-{device}-{torch_tag()}.json"


def cached_results(device: str) -> dict | None:
    """The last measurement saved for this device, or None."""
    path = results_path(device)
    try:
        return read_json(path, what="results", finite=False)
    except (OSError, ReadRefused):  # bounded: a FIFO or a huge file in the cache is no result
        return None


def check_device(device: str) -> None:
    """UsageError unless `device` is "cpu" or "cuda"; NoCudaDevice for cuda without a GPU."""
    import torch
    if device not in ("cpu", "cuda"):
        raise UsageError(f"device must be cpu or cuda, got {device!r}")
    if device == "cuda" and not torch.cuda.is_available():
        raise NoCudaDevice("device 'cuda' asked for, but torch sees no CUDA device here")


def new_state(device: str) -> dict:
    """What the steps share: the test input, eager's output for it, a scratch directory (the
    caller removes it: measure() does, in a finally).

    Raises:
        UsageError: device is not "cpu" or "cuda"; NoCudaDevice: cuda asked for but absent.
    """
    import torch
    from .models import make_mlp, mlp_input
    check_device(device)
    x = mlp_input(TEST_BATCH)
    with torch.no_grad():
        eager = make_mlp().to(device)(x.to(device)).cpu().numpy()
    return {"x": x.numpy(), "eager": eager, "work_dir": tempfile.mkdtemp(dir=cache_dir("tmp"))}


def finish(results: dict, device: str, state: dict) -> dict:
    """Add the verdict and the labels, and save to the cache (atomically: a reader or a kill
    sees the old results or the new ones)."""
    import torch
    results["outputs_match"] = bool(results.get("python_output_matches") and results.get("cpp_output_matches"))
    results["warm_faster_than_cold"] = _faster(results.get("compile_warm_s"), results.get("compile_cold_s"))
    results.update(device=device, torch_version=torch.__version__, device_name=device_name(device),
                   test_batch=TEST_BATCH, measured_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    atomic.write_json(results_path(device), results, indent=2)
    return results


def tidy_cache() -> dict:
    """Before a measurement, under its lock: remove scratch folders that killed runs left in
    tmp/, and empty an Inductor cache folder that grew past INDUCTOR_DIR_MAX_BYTES.
    Returns what was removed."""
    removed = {"tmp": 0, "inductor": []}
    tmp = cache_root() / "tmp"
    if tmp.is_dir():
        for p in tmp.iterdir():  # nobody else measures now (queue.py): every entry is stale
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
            removed["tmp"] += 1
    for name in ("inductor-warm", "inductor-aot"):
        d = cache_root() / name
        if d.is_dir() and sum(f.stat().st_size for f in d.rglob("*") if f.is_file()) > INDUCTOR_DIR_MAX_BYTES:
            shutil.rmtree(d, ignore_errors=True)
            removed["inductor"].append(name)
    return removed


def measure(device: str = "cpu", progress=None, on_wait=None) -> dict:
    """Run every step (each in a child process) and return the merged results.

    Args:
        device: "cpu" or "cuda".
        progress: optional callable(name, label) told when this caller's turn comes ("turn")
            and before each step starts.
        on_wait: optional callable(queue.Waiting) told where this caller stands while it waits
            for its turn (another measurement or a cache clear is running).
    Raises:
        UsageError / NoCudaDevice: a bad device (before waiting in line).
    """
    from ..cache_lock import cache_in_use
    from .queue import aot_turn
    check_device(device)
    with aot_turn(on_wait=on_wait), cache_in_use():
        if progress:
            progress("turn", "your turn: preparing the input and eager's output")
        tidy_cache()
        state, results = new_state(device), {}
        try:
            for name, label, fn in STEPS:
                if progress:
                    progress(name, label)
                results.update(fn(device, state))
            return finish(results, device, state)
        finally:
            shutil.rmtree(state["work_dir"], ignore_errors=True)


def _faster(warm_s, cold_s) -> bool | None:
    return None if warm_s is None or cold_s is None else bool(warm_s < cold_s)


def device_name(device: str) -> str:
    """The GPU's name for cuda, else the CPU's."""
    import platform
    import torch
    if device == "cuda":
        return torch.cuda.get_device_name(0)
    return platform.processor() or platform.machine() or "cpu"

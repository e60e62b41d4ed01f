"""Build the C++ runner (runner.cpp) with g++ against the torch wheel's libtorch (../cpp_build.py),
and run it.

The runner loads a .pt2 package with `torch::inductor::AOTIModelPackageLoader`: no Python in
the process at all. The binary is cached under .cache/aot/bin/, keyed by the torch version and
a hash of the source and flags, so it is built once per torch install (~30 s on 2 cores).

Many sessions (threads of one server) and processes may ask for it at once: cached_build.py
builds it once, into a temporary name unique per process and thread, sets the execute bit and
renames it into place; the folder keeps the newest RUNNER_CAP.keep_newest binaries. `$CXX`
picks the compiler (g++ by default).
"""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import numpy as np

from ..cache_lock import cache_in_use
from ..cached_build import Cap
from ..cpp_build import binary_path, build_binary
from .spawn import child_env

SOURCE = Path(__file__).with_name("runner.cpp")
RUNNER_CAP = Cap("aot_runner-*", keep_newest=3, max_bytes=64 << 20)  # ~50 KB each on the CPU wheel


def runner_path() -> Path:
    return binary_path(SOURCE, "aot_runner")


def ensure_runner(timeout_s: float = 300.0, nice: int = 0) -> tuple[Path, float]:
    """Build the AOT runner unless a cached binary exists (the compiler at `nice` added
    niceness). Returns (path, build_s)."""
    return build_binary(SOURCE, "aot_runner", timeout_s=timeout_s, label="the C++ runner", cap=RUNNER_CAP,
                        nice=nice)


def run_cpp(package: Path, x: np.ndarray, device: str, work_dir: Path, timeout_s: float = 120.0,
            env: dict | None = None) -> dict:
    """Load `package` in the C++ runner, run it on x (float32), and return its report.

    `env` goes on top of this process's environment (None removes a variable), e.g.
    {"AOTI_RUNTIME_CHECK_INPUTS": "1"} to have the package check its input shapes itself.

    Returns:
        dict with load_s (the loader's constructor), first_run_s, run_s (the median of `runs`
        further calls), process_s (the runner process from start to exit, timed here: it
        includes starting the process, loading libtorch and the package, every call, writing
        the output), build_s and `output` (a float32 numpy array), or `error` (one line) if
        the runner failed.
    """
    with cache_in_use():  # "clear cache" waits: the binary and the package stay while they run
        exe, build_s = ensure_runner()
        in_path, out_path = work_dir / "cpp_in.bin", work_dir / "cpp_out.bin"
        np.ascontiguousarray(x, dtype="<f4").tofile(in_path)
        cmd = [str(exe), str(package), device, str(in_path), str(out_path)] + [str(d) for d in x.shape]
        try:
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=child_env(env))
            process_s = time.perf_counter() - t0
        except subprocess.TimeoutExpired:
            return {"error": f"C++ runner timed out after {timeout_s:.0f} s", "build_s": build_s}
    if proc.returncode != 0:
        return {"error": _failure_line(proc), "build_s": build_s}
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["output"] = np.fromfile(out_path, dtype="<f4").reshape(report["output_shape"])
    report["build_s"] = build_s
    report["process_s"] = process_s
    return report


def _failure_line(proc: subprocess.CompletedProcess) -> str:
    from .spawn import describe_exit
    lines = [ln.strip() for ln in proc.stderr.strip().splitlines() if ln.strip()]
    check = [ln for ln in lines if "input_handles" in ln and "expected" in ln]  # the package's input check
    tail = (check or lines or [""])[-1][:400]  # says why; on CUDA a generic "API call failed" line comes last
    return f"C++ runner {describe_exit(proc.returncode)}" + (f": {tail}" if tail else "")

"""Build the C++ runner (runner.cpp) with torch.utils.cpp_extension against the torch wheel's
libtorch (../cpp_build.py), and run it.

The runner loads a .pt2 package with `torch::inductor::AOTIModelPackageLoader`: no Python in
the process at all. The binary is cached under .cache/aot/bin/, keyed by the torch version and
a hash of the source and flags, so it is built once per torch install (~10 s on 2 cores).

Many sessions (threads of one server) and processes may ask for it at once: cached_build.py
publishes it once, under a filelock, through a temporary name unique per process and thread,
with the execute bit set before the rename; the folder keeps the newest RUNNER_CAP.keep_newest
binaries. `$CXX` picks the compiler (c++ by default); ninja runs the build.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..cache_lock import cache_in_use
from ..cached_build import Cap
from ..child_process import run
from ..cpp_build import binary_path, build_binary

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
        done = run("C++ runner", [exe, package, device, in_path, out_path, *x.shape], timeout_s=timeout_s,
                   env=env, pick_stderr=_input_check)
    report = None if done.error else done.reply()
    if report is None:
        return {"error": done.error or "C++ runner printed no JSON report", "build_s": build_s}
    report["output"] = np.fromfile(out_path, dtype="<f4").reshape(report["output_shape"])
    report["build_s"] = build_s
    report["process_s"] = done.wall_s
    return report


def _input_check(lines: list[str]) -> str | None:
    """The package's input check says why; on CUDA a generic "API call failed" line comes last."""
    check = [ln for ln in lines if "input_handles" in ln and "expected" in ln]
    return check[-1] if check else None

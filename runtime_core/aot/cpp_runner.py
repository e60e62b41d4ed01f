"""Build the C++ runner (runner.cpp) with g++ against the torch wheel's libtorch, and run it.

The runner loads a .pt2 package with `torch::inductor::AOTIModelPackageLoader`: no Python in
the process at all. The binary is cached under .cache/aot/bin/, keyed by the torch version and
a hash of the source and flags, so it is built once per torch install (~30 s on 2 cores).

Many sessions (threads of one server) and processes may ask for it at once: cached_build.py
builds it once, into a temporary name unique per process and thread, sets the execute bit and
renames it into place; the folder keeps the newest RUNNER_CAP.keep_newest binaries. `$CXX`
picks the compiler (g++ by default).
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np

from .cache_lock import cache_in_use
from .child import child_env
from .cached_build import Cap, build_once
from .paths import cache_dir, torch_tag

SOURCE = Path(__file__).with_name("runner.cpp")
RUNNER_CAP = Cap("aot_runner-*", keep_newest=3, max_bytes=64 << 20)  # ~50 KB each on the CPU wheel


def _torch_lib_dir() -> Path:
    from torch.utils.cpp_extension import library_paths
    return Path(library_paths()[0])


def wheel_has_cuda() -> bool:
    """True when this torch wheel ships its CUDA library (the runner then links it too)."""
    return (_torch_lib_dir() / "libtorch_cuda.so").exists()


def _include_paths(cuda: bool) -> list[str]:
    """libtorch's headers, plus the CUDA toolkit's when `cuda` (found by torch, or next to nvcc)."""
    from torch.utils.cpp_extension import include_paths
    try:  # torch ≥ 2.6 names the device; older releases took a flag
        return include_paths(device_type="cuda" if cuda else "cpu")
    except TypeError:
        return include_paths(cuda=cuda)
    except OSError:  # torch could not find CUDA_HOME: try the usual places of the toolkit
        import os
        import shutil
        homes = [os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
        if shutil.which("nvcc"):
            homes.append(str(Path(shutil.which("nvcc")).resolve().parents[1]))
        found = [f"{h}/include" for h in homes if h and Path(h, "include", "cuda_runtime_api.h").exists()]
        return include_paths(device_type="cpu") + found[:1]


def build_command(out_path: Path, source: Path = SOURCE, cuda: bool = False) -> list[str]:
    """The g++ command line that builds `source` against the installed torch (`cuda`: with the
    CUDA headers, for a program that launches kernels itself)."""
    import torch
    lib = _torch_lib_dir()
    libs = ["-ltorch", "-ltorch_cpu", "-lc10"]
    if wheel_has_cuda():
        libs += ["-ltorch_cuda", "-lc10_cuda"]
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)  # must match how libtorch was built, or link fails
    cudart = _cudart_library() if cuda else None  # a program that launches kernels calls cudart itself
    return ([os.environ.get("CXX") or "g++", "-O1", "-std=c++17", f"-D_GLIBCXX_USE_CXX11_ABI={abi}", str(source), "-o", str(out_path)]
            + [f"-I{p}" for p in _include_paths(cuda)]
            # --no-as-needed: nothing in runner.cpp names a CUDA symbol, but the CUDA package's
            # kernels need libtorch_cuda loaded, so the linker must not drop it as "unused".
            + [f"-L{lib}", f"-Wl,-rpath,{lib}", "-Wl,--no-as-needed"] + libs
            + ([str(cudart), f"-Wl,-rpath,{cudart.parent}"] if cudart else []))


def _cudart_library() -> Path | None:
    """The CUDA runtime library torch itself loads (its nvidia wheel, or the toolkit's)."""
    import glob
    site = _torch_lib_dir().parents[1]
    found = sorted(glob.glob(str(site / "nvidia" / "**" / "libcudart.so*"), recursive=True))
    found += sorted(glob.glob("/usr/local/cuda/lib64/libcudart.so*"))
    return Path(found[0]) if found else None


def binary_path(source: Path, name: str, cuda: bool = False) -> Path:
    """Where the cached binary for this torch version, this source and these flags lives."""
    cmd = " ".join(build_command(Path("x"), source, cuda))
    key = hashlib.sha256(source.read_bytes() + cmd.encode()).hexdigest()[:12]
    return cache_dir("bin") / f"{name}-{torch_tag()}-{key}"


def runner_path() -> Path:
    return binary_path(SOURCE, "aot_runner")


def build_binary(source: Path, name: str, cuda: bool = False, timeout_s: float = 300.0,
                 label: str | None = None) -> tuple[Path, float]:
    """Build `source` unless a cached binary exists. Returns (path, build_s); build_s is 0 when
    this call did not build it (a hit, or another thread or process built it meanwhile).

    Raises:
        RuntimeError: the compiler is missing or the build failed (its first errors included).
    """
    label = label or name

    def compile_to(tmp: Path) -> None:
        cmd = build_command(tmp, source, cuda)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except FileNotFoundError:
            raise RuntimeError(f"{cmd[0]} not found: install a C++ compiler to build {label}") from None
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"building {label} took over {timeout_s:.0f} s") from None
        if proc.returncode != 0:
            raise RuntimeError(f"building {label} failed: " + proc.stderr.strip()[:800])

    t0 = time.perf_counter()
    cap = RUNNER_CAP if name == "aot_runner" else Cap(f"{name}-*", keep_newest=3, max_bytes=64 << 20)
    path, built = build_once(binary_path(source, name, cuda), compile_to, mode=0o755, cap=cap)
    return path, (time.perf_counter() - t0) if built else 0.0


def ensure_runner(timeout_s: float = 300.0) -> tuple[Path, float]:
    """Build the AOT runner unless a cached binary exists. Returns (path, build_s)."""
    return build_binary(SOURCE, "aot_runner", timeout_s=timeout_s, label="the C++ runner")


def run_cpp(package: Path, x: np.ndarray, device: str, work_dir: Path, timeout_s: float = 120.0,
            env: dict | None = None) -> dict:
    """Load `package` in the C++ runner, run it on x (float32), and return its report.

    `env` goes on top of this process's environment (None removes a variable), e.g.
    {"AOTI_RUNTIME_CHECK_INPUTS": "1"} to have the package check its input shapes itself.

    Returns:
        dict with load_s (the loader's constructor), first_run_s, run_s, build_s and
        `output` (a float32 numpy array), or `error` (one line) if the runner failed.
    """
    with cache_in_use():  # "clear cache" waits: the binary and the package stay while they run
        exe, build_s = ensure_runner()
        in_path, out_path = work_dir / "cpp_in.bin", work_dir / "cpp_out.bin"
        np.ascontiguousarray(x, dtype="<f4").tofile(in_path)
        cmd = [str(exe), str(package), device, str(in_path), str(out_path)] + [str(d) for d in x.shape]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=child_env(env))
        except subprocess.TimeoutExpired:
            return {"error": f"C++ runner timed out after {timeout_s:.0f} s", "build_s": build_s}
    if proc.returncode != 0:
        return {"error": _failure_line(proc), "build_s": build_s}
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["output"] = np.fromfile(out_path, dtype="<f4").reshape(report["output_shape"])
    report["build_s"] = build_s
    return report


def _failure_line(proc: subprocess.CompletedProcess) -> str:
    from .child import describe_exit
    lines = [ln.strip() for ln in proc.stderr.strip().splitlines() if ln.strip()]
    check = [ln for ln in lines if "input_handles" in ln and "expected" in ln]  # the package's input check
    tail = (check or lines or [""])[-1][:400]  # says why; on CUDA a generic "API call failed" line comes last
    return f"C++ runner {describe_exit(proc.returncode)}" + (f": {tail}" if tail else "")

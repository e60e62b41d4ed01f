"""Build a C++ program with g++ against the torch wheel's libtorch, once per torch install.

The binary is cached under .cache/aot/bin/, keyed by the torch version and a hash of the source
and flags; cached_build.py builds it once however many threads and processes ask at the same
moment. `$CXX` picks the compiler (g++ by default). In the base layer because two layers build
with it: the AOT lesson's runner (aot/cpp_runner.py) and the CUDA backend's native chain launcher
(engine/cuda/native.py).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from .cache_paths import cache_dir, torch_tag
from .cached_build import Cap, build_once


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


def build_command(out_path: Path, source: Path, cuda: bool = False) -> list[str]:
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


def build_binary(source: Path, name: str, cuda: bool = False, timeout_s: float = 300.0,
                 label: str | None = None, cap: Cap | None = None, nice: int = 0) -> tuple[Path, float]:
    """Build `source` unless a cached binary exists. Returns (path, build_s); build_s is 0 when
    this call did not build it (a hit, or another thread or process built it meanwhile).
    `nice` (> 0) runs the compiler under `nice -n`: a background build yields to the server.
    `cap` holds the folder to its newest binaries of this name (default: 3, at most 64 MiB).

    Raises:
        RuntimeError: the compiler is missing or the build failed (its first errors included).
    """
    label = label or name

    def compile_to(tmp: Path) -> None:
        cmd = build_command(tmp, source, cuda)
        compiler = cmd[0]
        if nice and shutil.which("nice") and shutil.which(compiler):
            cmd = ["nice", "-n", str(int(nice))] + cmd
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except FileNotFoundError:
            raise RuntimeError(f"{compiler} not found: install a C++ compiler to build {label}") from None
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"building {label} took over {timeout_s:.0f} s") from None
        if proc.returncode != 0:
            raise RuntimeError(f"building {label} failed: " + proc.stderr.strip()[:800])

    t0 = time.perf_counter()
    cap = cap or Cap(f"{name}-*", keep_newest=3, max_bytes=64 << 20)
    path, built = build_once(binary_path(source, name, cuda), compile_to, mode=0o755, cap=cap)
    return path, (time.perf_counter() - t0) if built else 0.0

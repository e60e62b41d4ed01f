"""Build a C++ program against the torch wheel's libtorch with torch.utils.cpp_extension, once
per torch install.

`cpp_extension.load(..., is_standalone=True)` writes the ninja file (torch's include paths, ABI
flags, libraries, rpath) and runs ninja: it needs the `ninja` command (the pinned `ninja` wheel
of requirements.txt) and a C++ compiler (`$CXX`, else `c++`). It builds in a scratch folder; the
finished binary is published under .cache/aot/bin/, keyed by the torch version and a hash of the
source and flags, by cached_build.py (one builder at a time under a filelock, a temporary name,
+x before the rename, the folder capped). In the base layer because two layers build with it:
the AOT lesson's runner (aot/cpp_runner.py) and the CUDA backend's chain launcher
(engine/cuda/native.py).
"""
from __future__ import annotations

import glob
import hashlib
import os
import shutil
import time
from pathlib import Path

from .cache_paths import cache_dir, torch_tag
from .cached_build import Cap, build_once


def _torch_lib_dir() -> Path:
    from torch.utils.cpp_extension import library_paths
    return Path(library_paths()[0])


def wheel_has_cuda() -> bool:
    """True when this torch wheel ships its CUDA library (the program then links it too)."""
    return (_torch_lib_dir() / "libtorch_cuda.so").exists()


def _cuda_include() -> list[str]:
    """The CUDA toolkit's headers, for a program that launches kernels itself (found by torch,
    or in the usual places of the toolkit)."""
    from torch.utils.cpp_extension import include_paths
    cpu = include_paths(device_type="cpu")
    try:
        return [p for p in include_paths(device_type="cuda") if p not in cpu]
    except OSError:  # torch could not find CUDA_HOME
        homes = [os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
        if shutil.which("nvcc"):
            homes.append(str(Path(shutil.which("nvcc")).resolve().parents[1]))
        return [f"{h}/include" for h in homes if h and Path(h, "include", "cuda_runtime_api.h").exists()][:1]


def _cudart_library() -> Path | None:
    """The CUDA runtime library torch itself loads (its nvidia wheel, or the toolkit's)."""
    site = _torch_lib_dir().parents[1]
    found = sorted(glob.glob(str(site / "nvidia" / "**" / "libcudart.so*"), recursive=True))
    found += sorted(glob.glob("/usr/local/cuda/lib64/libcudart.so*"))
    return Path(found[0]) if found else None


def build_flags(cuda: bool = False) -> dict:
    """cpp_extension.load's extra arguments on top of torch's own flags (`cuda`: the CUDA headers
    and cudart, for a program that launches kernels itself)."""
    ldflags = ["-Wl,--no-as-needed"]  # nothing in runner.cpp names a CUDA symbol, but a CUDA
    if wheel_has_cuda():              # package's kernels need libtorch_cuda loaded: keep it
        ldflags += [f"-L{_torch_lib_dir()}", "-ltorch_cuda", "-lc10_cuda"]
    cudart = _cudart_library() if cuda else None
    if cudart:
        ldflags += [str(cudart), f"-Wl,-rpath,{cudart.parent}"]
    import torch
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)  # must match how libtorch was built, or link fails
    return {"extra_cflags": ["-O1", f"-D_GLIBCXX_USE_CXX11_ABI={abi}"], "extra_ldflags": ldflags,
            "extra_include_paths": _cuda_include() if cuda else []}


def binary_path(source: Path, name: str, cuda: bool = False) -> Path:
    """Where the cached binary for this torch version, this source and these flags lives."""
    flags = repr(sorted(build_flags(cuda).items())) + (os.environ.get("CXX") or "c++")
    key = hashlib.sha256(source.read_bytes() + flags.encode()).hexdigest()[:12]
    return cache_dir("bin") / f"{name}-{torch_tag()}-{key}"


def _find_ninja() -> bool:
    """ninja on PATH, or the `ninja` wheel's binary put on PATH (pip's --target puts it in
    <target>/bin, which no PATH names)."""
    if shutil.which("ninja"):
        return True
    try:
        import ninja
    except ImportError:
        return False
    for d in (ninja.BIN_DIR, str(Path(ninja.__file__).resolve().parents[1] / "bin")):
        if d and os.access(Path(d, "ninja"), os.X_OK):
            os.environ["PATH"] = d + os.pathsep + os.environ.get("PATH", "")
            return True
    return False


def _error_line(text: str) -> str:
    """The compiler's first error lines, on one line (a whole ninja log says too much)."""
    lines = [ln.strip() for ln in text.splitlines()[1:] if ln.strip()]  # [0]: "Error building extension 'x': [1/2] c++ ..."
    errors = [ln for ln in lines if "error" in ln.lower() and not ln.startswith(("[", "FAILED", "ninja:"))]
    return "; ".join(errors[:3] or lines[-2:])[:800]


def build_binary(source: Path, name: str, cuda: bool = False, timeout_s: float = 300.0,
                 label: str | None = None, cap: Cap | None = None, nice: int = 0) -> tuple[Path, float]:
    """Build `source` unless a cached binary exists. Returns (path, build_s); build_s is 0 when
    this call did not build it (a hit, or another thread or process built it meanwhile).
    `nice` (> 0) lowers the calling thread's priority first, so ninja and the compiler it starts
    inherit it: a background build yields to the server. Only a thread of its own passes it (the
    prebuild's): on Linux a thread's niceness is its own, and it is not raised back.
    `cap` holds the folder to its newest binaries of this name (default: 3, at most 64 MiB).
    `timeout_s` is kept for the callers; ninja's build has no time limit of its own.

    Raises:
        RuntimeError: no compiler, no ninja, or the build failed (its first errors included).
    """
    from torch.utils import cpp_extension
    label = label or name

    def compile_to(tmp: Path) -> None:
        if nice > 0 and hasattr(os, "nice"):
            os.nice(int(nice))
        cxx = cpp_extension.get_cxx_compiler()
        if not shutil.which(cxx):
            raise RuntimeError(f"{cxx} not found: install a C++ compiler to build {label}")
        if not _find_ninja():
            raise RuntimeError(f"ninja not found: pip install the ninja wheel of requirements.txt to build {label}")
        scratch = tmp.with_name(tmp.name + ".build")  # a temporary name: a killed build's is swept
        scratch.mkdir()
        try:
            exe = cpp_extension.load(name, [str(source)], build_directory=str(scratch), is_python_module=False,
                                     is_standalone=True, with_cuda=False, **build_flags(cuda))
            shutil.copyfile(exe, tmp)
        except RuntimeError as e:
            raise RuntimeError(f"building {label} failed: {_error_line(str(e))}") from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    t0 = time.perf_counter()
    cap = cap or Cap(f"{name}-*", keep_newest=3, max_bytes=64 << 20)
    path, built = build_once(binary_path(source, name, cuda), compile_to, mode=0o755, cap=cap)
    return path, (time.perf_counter() - t0) if built else 0.0

"""The AOT path, step 1 and 2: torch.export with a declared dynamic batch, then AOTInductor.

    export   torch.export.export traces the MLP into one complete graph. The batch dimension is
             declared dynamic up front (torch.export.Dim); every other dimension is fixed.
    package  torch._inductor.aoti_compile_and_package lowers that graph to C++/CUDA, compiles a
             shared library and zips it with the weights into a .pt2 package (~40 s on 2 CPU cores).

Packages are cached under .cache/aot/packages/, keyed by torch version, device and a hash of the
model code, so a page or test pays the compile once. cached_build.py makes each package once
however many threads and processes ask (a temporary name per process and thread, a file lock,
a rename), and the folder keeps the newest PACKAGE_CAP.keep_newest packages.
"""
from __future__ import annotations

import hashlib
import time
from pathlib import Path

from .cached_build import Cap, build_once
from .paths import cache_dir, torch_tag

BATCH_MIN, BATCH_MAX = 1, 1024
PACKAGE_CAP = Cap("mlp-*.pt2", keep_newest=4, max_bytes=512 << 20)  # ~1.6 MB each for the CPU MLP


def export_mlp(device: str = "cpu", example_batch: int = 8):
    """Export the MLP with a dynamic batch dimension in [BATCH_MIN, BATCH_MAX].

    The example batch is 8, not 1: export specialises sizes 0 and 1, so an example of 1 would
    pin the batch even though we declared it dynamic.
    """
    import torch
    from .models import make_mlp, mlp_input
    model = make_mlp().to(device)
    batch = torch.export.Dim("batch", min=BATCH_MIN, max=BATCH_MAX)
    with torch.no_grad():
        return torch.export.export(model, (mlp_input(example_batch).to(device),),
                                   dynamic_shapes={"x": {0: batch}})


def package_path(device: str = "cpu") -> Path:
    """Where the cached package for this torch version, device and model code lives."""
    src = b"".join(Path(__file__).with_name(n).read_bytes() for n in ("models.py", "export.py"))
    key = hashlib.sha256(src).hexdigest()[:10]
    return cache_dir("packages") / f"mlp-{device}-{torch_tag()}-{key}.pt2"


def compile_package(exported, package_path: str) -> None:
    """AOTInductor: lower `exported` and write the .pt2 package at `package_path` (the slow step)."""
    import torch
    torch._inductor.aoti_compile_and_package(exported, package_path=package_path)


def build_package(device: str = "cpu", force: bool = False) -> dict:
    """Export and package the MLP for `device`, unless a cached package exists.

    Returns:
        dict with `package` (path), `cached` (bool: this call built nothing), `export_s` and
        `package_s` (0 when cached).
    """
    path = package_path(device)
    times = {"export_s": 0.0, "package_s": 0.0}

    def build(tmp: Path) -> None:  # into a temporary name: a crash never leaves a "cached" package
        t0 = time.perf_counter()
        exported = export_mlp(device)
        times["export_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        compile_package(exported, str(tmp))
        times["package_s"] = time.perf_counter() - t0

    if force:
        path.unlink(missing_ok=True)
    _, built = build_once(path, build, cap=PACKAGE_CAP, tmp_suffix=".pt2")
    return {"package": str(path), "cached": not built, **times}

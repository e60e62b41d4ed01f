"""The AOT path, step 1 and 2: torch.export with a declared dynamic batch, then AOTInductor.

    export   torch.export.export traces the MLP into one complete graph. The batch dimension is
             declared dynamic up front (torch.export.Dim, BATCH_MIN..BATCH_MAX); every other
             dimension is fixed. Or, for an exact-shape package, nothing is declared and the
             example's batch is frozen in.
    package  torch._inductor.aoti_compile_and_package lowers that graph to C++/CUDA, compiles a
             shared library and zips it with the weights into a .pt2 package (~20-40 s on 2 CPU
             cores).

The range starts at 2, not 1. torch specializes sizes 0 and 1, so Inductor compiles a dynamic
dimension for sizes >= 2: a package exported with min=1 still refuses batch 1 once its own input
check is on (AOTI_RUNTIME_CHECK_INPUTS=1, measured with torch 2.13). Declaring 2..64 makes the
range we state the range the package checks; batch 1 pads to 2 or gets an exact package.

Packages are cached under .cache/aot/packages/, keyed by torch version, device, batch (a range
or one size) and a hash of the model code, so a page or test pays the compile once.
cached_build.py makes each package once however many threads and processes ask (a temporary
name per process and thread, a file lock, a rename), and the folder keeps the newest
PACKAGE_CAP.keep_newest packages.
"""
from __future__ import annotations

import hashlib
import time
from pathlib import Path

from ..errors import UsageError
from ..cached_build import Cap, build_once
from ..cache_paths import cache_dir, torch_tag

BATCH_MIN, BATCH_MAX = 2, 64
PACKAGE_CAP = Cap("mlp-*.pt2", keep_newest=8, max_bytes=512 << 20)  # ~1.6 MB each for the CPU MLP


def export_mlp(device: str = "cpu", example_batch: int = 8, dynamic: bool = True):
    """Export the MLP: with a dynamic batch dimension in [BATCH_MIN, BATCH_MAX], or (`dynamic`
    False) for exactly `example_batch` rows.

    The example batch of the ranged export is 8, not 1: export specialises sizes 0 and 1, so an
    example of 1 would pin the batch even though we declared it dynamic.
    """
    import torch
    from .models import make_mlp, mlp_input
    model = make_mlp().to(device)
    shapes = {"x": {0: torch.export.Dim("batch", min=BATCH_MIN, max=BATCH_MAX)}} if dynamic else None
    with torch.no_grad():
        return torch.export.export(model, (mlp_input(example_batch).to(device),), dynamic_shapes=shapes)


def batch_tag(batch: int | None = None) -> str:
    """The batch part of a package's name: "b2-64" for the ranged package, "b8" for exact 8."""
    return f"b{BATCH_MIN}-{BATCH_MAX}" if batch is None else f"b{batch}"


def package_path(device: str = "cpu", batch: int | None = None) -> Path:
    """Where the cached package for this torch version, device, batch and model code lives
    (`batch` None: the ranged package; an int: the exact-shape package for that batch)."""
    src = b"".join(Path(__file__).with_name(n).read_bytes() for n in ("models.py", "export.py"))
    key = hashlib.sha256(src).hexdigest()[:10]
    return cache_dir("packages") / f"mlp-{device}-{batch_tag(batch)}-{torch_tag()}-{key}.pt2"


def compile_package(exported, package_path: str) -> None:
    """AOTInductor: lower `exported` and write the .pt2 package at `package_path` (the slow step)."""
    import torch
    torch._inductor.aoti_compile_and_package(exported, package_path=package_path)


def build_package(device: str = "cpu", force: bool = False, batch: int | None = None) -> dict:
    """Export and package the MLP for `device`, unless a cached package exists.

    Args:
        batch: None for the ranged package (batch BATCH_MIN..BATCH_MAX), or the one batch size
            of an exact-shape package.
    Returns:
        dict with `package` (path), `cached` (bool: this call built nothing), `batch` (None or
        the size), `export_s` and `package_s` (0 when cached).
    Raises:
        UsageError: an exact batch below 1.
    """
    if batch is not None and batch < 1:
        raise UsageError(f"an exact-shape package needs a batch of at least 1, got {batch}")
    path = package_path(device, batch)
    times = {"export_s": 0.0, "package_s": 0.0}

    def build(tmp: Path) -> None:  # into a temporary name: a crash never leaves a "cached" package
        t0 = time.perf_counter()
        exported = export_mlp(device) if batch is None else export_mlp(device, batch, dynamic=False)
        times["export_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        compile_package(exported, str(tmp))
        times["package_s"] = time.perf_counter() - t0

    if force:
        path.unlink(missing_ok=True)
    _, built = build_once(path, build, cap=PACKAGE_CAP, tmp_suffix=".pt2")
    return {"package": str(path), "cached": not built, "batch": batch, **times}

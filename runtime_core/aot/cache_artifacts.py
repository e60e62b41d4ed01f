"""The compile_cache lab's measurements (runtime_core/labs/compile_cache.py), each in THIS
process, which the lab starts fresh (gpu_recorded.in_child) with its own empty cache folder:

    start(device, artifacts_in, artifacts_out)  one cold start, stage by stage, after
                 torch.compiler.load_cache_artifacts() if given; saves the artifacts if asked
    recompile(limit, calls)                     a frame past torch._dynamo's recompile limit
    package_facts(path)                          what a .pt2 package says about where it can run
    build_package(device, path)                  a tiny Linear packaged with AOTInductor
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

RECOMPILE_LIMIT, RECOMPILE_CALLS = 3, 6


def _sync(torch, device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _artifact_counts(info) -> dict:
    arts = getattr(info, "artifacts", None)
    return {str(k): len(v) for k, v in arts.items()} if isinstance(arts, dict) else {}


def start(device: str, artifacts_in: str | None = None, artifacts_out: str | None = None) -> dict:
    """One cold start in THIS (fresh) process: import torch, optionally load saved artifacts,
    compile the MLP, call it twice; optionally save the artifacts. Seconds per stage."""
    t0 = time.perf_counter()
    import torch
    out = {"device": device, "torch_version": torch.__version__, "import_torch_s": time.perf_counter() - t0,
           "cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR")}
    from .compile_stages import compile_report
    from .models import make_mlp, mlp_input
    if artifacts_in:
        blob = Path(artifacts_in).read_bytes()
        t = time.perf_counter()
        info = torch.compiler.load_cache_artifacts(blob)
        out["load_artifacts_s"] = time.perf_counter() - t
        out["loaded_artifacts"] = _artifact_counts(info)
    model, x = make_mlp().to(device), mlp_input(8).to(device)
    compiled = torch.compile(model)
    with torch.no_grad():
        t = time.perf_counter()
        compiled(x)
        _sync(torch, device)
        out["first_call_s"] = time.perf_counter() - t
        t = time.perf_counter()
        y = compiled(x)
        _sync(torch, device)
        out["second_call_s"] = time.perf_counter() - t
        out["max_abs_err_vs_eager"] = float((y - model(x)).abs().max())
    out.update(compile_report(out["cache_dir"]))
    if artifacts_out:
        t = time.perf_counter()
        saved = torch.compiler.save_cache_artifacts()
        out["save_artifacts_s"] = time.perf_counter() - t
        if saved is None:
            out["saved_artifacts"] = None
        else:
            blob, info = saved
            Path(artifacts_out).write_bytes(blob)
            out["saved_artifacts"] = _artifact_counts(info)
            out["artifacts_bytes"] = len(blob)
    return out


def recompile(limit: int = RECOMPILE_LIMIT, calls: int = RECOMPILE_CALLS) -> dict:
    """A frame recompiled for every new int k, under recompile_limit = `limit`: which calls
    compiled, what torch logged at the limit, and what fail_on_recompile_limit_hit does."""
    import logging

    import torch
    cfg = torch._dynamo.config
    name = "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit"
    messages: list[str] = []
    seen: set[int] = set()

    class Keep(logging.Handler):
        def emit(self, record):
            if id(record) not in seen:  # one record may reach two of the loggers below
                seen.add(id(record))
                messages.append(record.getMessage())
    handler = Keep(logging.WARNING)
    loggers = [logging.getLogger(n) for n in ("torch", "torch._dynamo", "torch._dynamo.convert_frame")]
    for log in loggers:
        log.addHandler(handler)
    compiles: list[int] = []

    def counting_backend(gm, example_inputs):
        compiles.append(1)
        return gm.forward

    def f(x, k):
        return x * k + k
    x = torch.ones(4)
    out = {"setting": f"torch._dynamo.config.{name}", "limit": limit, "torch_default": getattr(cfg, name),
           "calls": []}
    try:
        with cfg.patch({name: limit, "automatic_dynamic_shapes": False}):
            torch._dynamo.reset()
            cf = torch.compile(f, backend=counting_backend)
            for k in range(1, calls + 1):
                before, logged = len(compiles), len(messages)
                y = cf(x, k)
                out["calls"].append({"k": k, "compiled": len(compiles) > before,
                                     "correct": bool(torch.equal(y, f(x, k))),
                                     "logged": " ".join(" ".join(messages[logged:]).split())[:400] or None})
            if hasattr(cfg, "fail_on_recompile_limit_hit"):
                torch._dynamo.reset()
                with cfg.patch({"fail_on_recompile_limit_hit": True}):
                    cf = torch.compile(f, backend=counting_backend)
                    try:
                        for k in range(1, calls + 1):
                            cf(x, k)
                        out["fail_on_limit"] = {"raised": False}
                    except Exception as e:
                        out["fail_on_limit"] = {"raised": True, "error_type": type(e).__name__,
                                                "error": " ".join(str(e).split())[:400]}
    finally:
        for log in loggers:
            log.removeHandler(handler)
        torch._dynamo.reset()
    out["compiled_calls"] = sum(c["compiled"] for c in out["calls"])
    out["eager_after_limit"] = sum(not c["compiled"] for c in out["calls"])
    return out


def package_facts(path: str) -> dict:
    """What a .pt2 package says about where it can run: its small text members (metadata JSON,
    archive version), its files, and its .so's needed libraries and aoti_torch_* symbols."""
    import json
    import subprocess
    import zipfile
    out = {"package_bytes": Path(path).stat().st_size, "metadata": {}, "members": [], "so": {}}
    with zipfile.ZipFile(path) as z, tempfile.TemporaryDirectory() as tmp:
        for info in z.infolist():
            member = info.filename.split("/", 1)[1] if "/" in info.filename else info.filename
            out["members"].append({"name": member, "bytes": info.file_size})
            if member.endswith("_metadata.json") and "wrapper" in member:
                out["metadata"] = json.loads(z.read(info))
            elif member in ("archive_format", "archive_version", ".data/version", "byteorder"):
                out[member.replace(".data/", "data_").replace("/", "_")] = z.read(info).decode().strip()
            elif member.endswith(".so"):
                so = Path(tmp) / "model.so"
                so.write_bytes(z.read(info))
                out["so"] = _so_facts(so, subprocess)
    return out


def _so_facts(so: Path, subprocess) -> dict:
    facts = {}
    try:
        dyn = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True, timeout=30).stdout
        facts["needed"] = [ln.split("[", 1)[1].rstrip("]").strip() for ln in dyn.splitlines() if "(NEEDED)" in ln]
        syms = subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True,
                              timeout=30).stdout.split()
        shim = sorted({s for s in syms if s.startswith("aoti_torch_")})
        facts["aoti_shim_symbols"] = len(shim)
        facts["aoti_shim_sample"] = shim[:12]
    except (OSError, subprocess.SubprocessError) as e:
        facts["error"] = f"{type(e).__name__}: {e}"[:200]
    return facts


def build_package(device: str, path: str) -> dict:
    """Export a tiny Linear and package it with AOTInductor at `path` (the cross-version fixture
    is one of these, built on the CPU); returns seconds and the package's facts."""
    import torch
    t0 = time.perf_counter()
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 8).eval().to(device)
    x = torch.ones(2, 8, device=device)
    exported = torch.export.export(model, (x,))
    export_s = time.perf_counter() - t0
    t = time.perf_counter()
    torch._inductor.aoti_compile_and_package(exported, package_path=path)
    return {"torch_version": torch.__version__, "device": device, "export_s": export_s,
            "package_s": time.perf_counter() - t, "expected_output": model(x).detach().cpu().tolist(),
            **package_facts(path)}

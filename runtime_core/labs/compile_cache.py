"""compile_cache lab: what survives a process, and what ties a compiled artifact to its machine.

Three points, each in fresh child processes (gpu_recorded.in_child), on the CPU here or on CUDA:

    cold_start     torch.compile's first call in a fresh process, stage by stage, with an empty
                   Inductor cache: once WITHOUT saved artifacts (that run saves them with
                   torch.compiler.save_cache_artifacts()), then in another fresh process with a
                   new empty cache dir that first calls torch.compiler.load_cache_artifacts(bytes)
                   (the "mega-cache": FX-graph, AOTAutograd, autotuning entries in one blob)
    recompile      torch._dynamo.config.recompile_limit (cache_size_limit before torch 2.6): a
                   function that recompiles on every new Python int; past the limit Dynamo stops
                   compiling that frame and runs it eagerly (with fail_on_recompile_limit_hit it
                   raises instead). Dynamo's own counter backend: no Inductor, so this is fast
    package        what ties an AOTInductor package to its machine: the metadata it carries
                   (device key, CPU ISA, compute capability), its archive version, the .so's
                   libraries and the aoti_torch_* shim symbols it needs from libtorch
    cross_version  (GPU script only) the package committed at PACKAGE_FIXTURE, built by this
                   CPU machine's torch, loaded by the GPU machine's torch through the C++ runner

run("cpu") measures here (minutes on 2 cores: it compiles three times and packages once); the
CPU recording is lessons/recordings/compile_cache_cpu2.json (kind "compile_cache", labelled
CPU). run("cuda") is the same on the GPU, plus cross_version. run("sim") returns the shipped
recordings: the CPU one, with the GPU one (from the labs recording) under "gpu" when it ships.
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from .gpu_recorded import REPO_ROOT, from_recording, in_child

LAB = dict(name="compile_cache",
           summary="torch.compiler.save/load_cache_artifacts across fresh processes, the recompile "
                   "limit, and what ties an AOTInductor package to its torch and machine",
           page="pages/5_AOT_and_serving.py", panel="compile_cache",
           renderer="pages.ui.labs29_panels:compile_cache", text_key="compile_cache_cold_start")

# xz-compressed (1.5 MB -> 0.3 MB: the package is mostly its .so); build_fixture() remakes it
PACKAGE_FIXTURE = REPO_ROOT / "tests" / "fixtures" / "aoti_tiny_cpu_torch2.13.pt2.xz"
FIXTURE_FACTS = REPO_ROOT / "tests" / "fixtures" / "aoti_tiny_cpu_torch2.13.json"  # build_package's answer: torch version, expected output
CPU_RECORDING = "lessons/recordings/compile_cache_cpu2.json"
CPU_RECORD_COMMAND = f"python -m runtime_core.labs.compile_cache --record {CPU_RECORDING}"
CHILD_TIMEOUT_S = 600.0
RECOMPILE_LIMIT, RECOMPILE_CALLS = 3, 6


# ---- in the child ----------------------------------------------------------------------------
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
    from ..aot.compile_stages import compile_report
    from ..aot.models import make_mlp, mlp_input
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


def build_fixture() -> dict:
    """Remake the cross-version fixture with this machine's torch (on the CPU): the .pt2.xz and
    the JSON beside it (build_package's answer: the torch that built it, the expected output)."""
    import json
    import lzma
    import platform
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tiny.pt2"
        r = build_package("cpu", str(path))
        PACKAGE_FIXTURE.write_bytes(lzma.compress(path.read_bytes(), preset=9))
    r["built_on"] = f"{platform.machine()} CPU, {os.cpu_count()} cores (the lesson's CPU machine)"
    r["command"] = "python -m runtime_core.labs.compile_cache --build-fixture"
    r.pop("members", None)
    FIXTURE_FACTS.write_text(json.dumps(r, indent=1) + "\n", encoding="utf-8")
    return r


# ---- the parent --------------------------------------------------------------------------------
def _fresh_env(root: Path, name: str) -> dict:
    d = root / name
    d.mkdir()
    return {"TORCHINDUCTOR_CACHE_DIR": str(d / "inductor"), "TRITON_CACHE_DIR": str(d / "triton")}


def measure(device: str = "cpu", cross_version: bool = False) -> dict:
    """Every point, each start in its own fresh process with its own empty cache dir."""
    import torch
    out = {"lab": "compile_cache", "device": device, "torch_version": torch.__version__, "errors": []}
    with tempfile.TemporaryDirectory(prefix="compile_cache_") as tmp:
        root = Path(tmp)
        blob = str(root / "artifacts.bin")
        out["without_artifacts"] = in_child("compile_cache", "start", CHILD_TIMEOUT_S,
                                            env=_fresh_env(root, "a"), device=device, artifacts_out=blob)
        if Path(blob).is_file():
            out["with_artifacts"] = in_child("compile_cache", "start", CHILD_TIMEOUT_S,
                                             env=_fresh_env(root, "b"), device=device, artifacts_in=blob)
        else:
            out["with_artifacts"] = {"error": "the first start saved no artifacts"}
        out["recompile"] = in_child("compile_cache", "recompile", 300)
        out["package"] = in_child("compile_cache", "build_package", CHILD_TIMEOUT_S, env=_fresh_env(root, "p"),
                                  device=device, path=str(root / "tiny.pt2"))
        if cross_version:
            out["cross_version"] = load_fixture_package(device, root)
    for key in ("without_artifacts", "with_artifacts", "recompile", "package", "cross_version"):
        if isinstance(out.get(key), dict) and out[key].get("error"):
            out["errors"].append(f"{key}: {out[key]['error']}")
    return finish(out)


def load_fixture_package(device: str, work: Path) -> dict:
    """The committed CPU package (another torch) through this machine's C++ runner."""
    import numpy as np

    from ..aot.cpp_runner import run_cpp
    res = {"package": PACKAGE_FIXTURE.name}
    if not PACKAGE_FIXTURE.is_file():
        return dict(res, error=f"{PACKAGE_FIXTURE.name} is missing")
    import lzma
    package = work / "fixture.pt2"
    package.write_bytes(lzma.decompress(PACKAGE_FIXTURE.read_bytes()))
    res["facts"] = package_facts(str(package))
    try:
        r = run_cpp(package, np.ones((2, 8), dtype="float32"), "cpu", work)
    except RuntimeError as e:   # the runner could not be built here
        return dict(res, loaded=False, error=f"the C++ runner: {' '.join(str(e).split())[:400]}")
    if "error" in r:
        return dict(res, loaded=False, runner_error=r["error"])
    import json
    built = json.loads(FIXTURE_FACTS.read_text(encoding="utf-8"))
    res["built_with"] = {k: built.get(k) for k in ("torch_version", "device", "built_on")}
    want = np.array(built["expected_output"], dtype="float32")
    got = r["output"]
    same = got.shape == want.shape
    return dict(res, loaded=True, load_s=r.get("load_s"), max_abs_err=float(np.abs(got - want).max()) if same else None,
                output_matches=bool(same and np.allclose(got, want, atol=1e-5)))


def _seconds(r: dict, key: str):
    v = (r or {}).get(key)
    return v if isinstance(v, (int, float)) else None


def finish(out: dict) -> dict:
    """signal and verdict from the numbers: the saved artifacts made the fresh start faster (and
    hit the caches), and the recompile limit sent later calls to eager."""
    a, b = out.get("without_artifacts") or {}, out.get("with_artifacts") or {}
    cold, warm = _seconds(a, "first_call_s"), _seconds(b, "first_call_s")
    rc = out.get("recompile") or {}
    out["speedup"] = round(cold / warm, 2) if cold and warm else None
    hits = ((b.get("counters") or {}).get("fxgraph_cache_hit") or 0)
    out["signal"] = bool(cold and warm and warm < cold and rc.get("eager_after_limit"))
    if cold and warm:
        text = (f"A fresh process's first compiled call took {cold:.1f} s with an empty cache and {warm:.1f} s "
                f"with the saved artifacts loaded first ({hits} FX-graph cache hit"
                f"{'' if hits == 1 else 's'}; Dynamo still traced the function). ")
        cc = (b.get("stages") or {}).get("compile_file")
        if cc:  # on a CPU the artifacts hold the generated C++, not the compiled library
            text += (f"Of the warm start, {cc:.1f} s was the C++ compiler building the kernels again "
                     "(compile_file): the artifacts hold generated code, not compiled binaries. ")
    else:
        text = "The cold starts did not both finish: " + "; ".join(out.get("errors") or ["no numbers"]) + ". "
    if rc.get("calls"):
        text += (f"With {rc['setting']} = {rc['limit']}, {rc['compiled_calls']} of {len(rc['calls'])} calls "
                 f"compiled and {rc['eager_after_limit']} ran eagerly past the limit.")
    out["verdict"] = text
    return out


def run(backend: str = "sim") -> dict:
    """On "cpu"/"cuda": measure there (minutes). On "sim" (and "auto" without a GPU): the shipped
    recordings, the CPU one first, the GPU one under "gpu" (or owed)."""
    if backend in ("cpu", "cuda"):
        r = measure(backend, cross_version=backend == "cuda")
        import torch
        name = torch.cuda.get_device_name(0) if backend == "cuda" else "CPU"
        return dict(r, backend=backend, source="live" if backend == "cuda" else "cpu", device_name=name)
    from ..engine.device import resolve_backend
    from ..knobs import Backend
    if resolve_backend(backend) == Backend.CUDA:
        return run("cuda")
    cpu = from_recording("compile_cache", "the cold-start measurement", kind="compile_cache")
    gpu = from_recording("compile_cache", "the GPU cold start and the cross-version load")
    if cpu.get("owed_recording"):
        cpu = dict(gpu)
    else:
        cpu["gpu"] = gpu
    return cpu


def record(path: str, force: bool = False) -> dict:
    """Measure on this machine's CPU and write the CPU recording (kind "compile_cache")."""
    import torch

    from ..recordings import store
    store.check_target(path, force)
    r = run("cpu")
    doc = {"meta": store.new_meta("compile_cache", f"CPU ({os.cpu_count()} cores)", torch.__version__, "cpu",
                                  command=CPU_RECORD_COMMAND),
           "points": [], "labs": {"compile_cache": r}}
    store.write(path, doc)
    return doc


if __name__ == "__main__":
    import argparse
    import json
    ap = argparse.ArgumentParser(prog="python -m runtime_core.labs.compile_cache")
    ap.add_argument("--record")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--build-fixture", action="store_true", help="remake the cross-version package fixture")
    a = ap.parse_args()
    if a.build_fixture:
        print(json.dumps(build_fixture())[:2000])
    if a.record:
        print(json.dumps(record(a.record, a.force)["labs"]["compile_cache"], indent=1)[:3000])

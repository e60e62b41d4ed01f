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
from pathlib import Path

from ..errors import UsageError
from ..aot.cache_artifacts import build_package, package_facts, recompile  # noqa: F401  (measured in aot/)
from .gpu_recorded import REPO_ROOT, from_recording, in_child, live_or_recorded

LAB = dict(name="compile_cache",
           summary="torch.compiler.save/load_cache_artifacts across fresh processes, the recompile "
                   "limit, and what ties an AOTInductor package to its torch and machine",
           page="pages/5_AOT_and_serving.py", panel="compile_cache",
           renderer="pages.ui.labs29_panels:compile_cache", text_key="compile_cache_cold_start")

# xz-compressed (1.5 MB -> 0.3 MB: the package is mostly its .so); build_fixture() remakes it
PACKAGE_FIXTURE = REPO_ROOT / "tests" / "fixtures" / "aoti_tiny_cpu_torch2.13.pt2.xz"
FIXTURE_FACTS = REPO_ROOT / "tests" / "fixtures" / "aoti_tiny_cpu_torch2.13.json"  # build_package's answer: torch version, expected output
WHAT = "the GPU cold start and the cross-version load"
CPU_RECORDING = "lessons/recordings/compile_cache_cpu2.json"
CPU_RECORD_COMMAND = f"python -m runtime_core.labs.compile_cache --record {CPU_RECORDING}"
CHILD_TIMEOUT_S = 600.0


FIXTURE_TORCH = "2.13"  # the torch its file names say built it


def check_fixture_target(force: bool) -> None:
    """Before minutes of building: the fixture is committed, so it is replaced only with --force,
    and only by the torch its file names say built it."""
    import torch
    if not torch.__version__.startswith(FIXTURE_TORCH + "."):
        raise UsageError(f"the fixture's files are named for torch {FIXTURE_TORCH} and this is torch "
                         f"{torch.__version__}: build it where torch {FIXTURE_TORCH} is installed")
    there = [p.name for p in (PACKAGE_FIXTURE, FIXTURE_FACTS) if p.exists()]
    if there and not force:
        raise UsageError(f"{' and '.join(there)} exist (committed): add --force to replace them")


def build_fixture() -> dict:
    """Remake the cross-version fixture with this machine's torch (on the CPU): the .pt2.xz and
    the JSON beside it (build_package's answer: the torch that built it, the expected output),
    each written through a temporary file and a rename."""
    import json
    import lzma
    import platform

    from .. import atomic
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tiny.pt2"
        r = build_package("cpu", str(path))
        atomic.write_bytes(PACKAGE_FIXTURE, lzma.compress(path.read_bytes(), preset=9))
    r["built_on"] = f"{platform.machine()} CPU, {os.cpu_count()} cores (the lesson's CPU machine)"
    r["command"] = "python -m runtime_core.labs.compile_cache --build-fixture --force"
    r.pop("members", None)
    atomic.write_text(FIXTURE_FACTS, json.dumps(r, indent=1) + "\n")
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
        out["without_artifacts"] = in_child("aot.cache_artifacts", "start", CHILD_TIMEOUT_S,
                                            env=_fresh_env(root, "a"), device=device, artifacts_out=blob)
        if Path(blob).is_file():
            out["with_artifacts"] = in_child("aot.cache_artifacts", "start", CHILD_TIMEOUT_S,
                                             env=_fresh_env(root, "b"), device=device, artifacts_in=blob)
        else:
            out["with_artifacts"] = {"error": "the first start saved no artifacts"}
        out["recompile"] = in_child("aot.cache_artifacts", "recompile", 300)
        out["package"] = in_child("aot.cache_artifacts", "build_package", CHILD_TIMEOUT_S, env=_fresh_env(root, "p"),
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
    """On CUDA: measure there (minutes), with the cross-version load. On the simulator: the
    shipped recordings, the CPU one first, the GPU one under "gpu" (or owed). The CPU
    measurement itself is `record()` (python -m runtime_core.labs.compile_cache --record)."""
    return live_or_recorded("compile_cache", WHAT, backend, lambda: measure("cuda", cross_version=True),
                            recorded=_recorded)


def _recorded() -> dict:
    cpu = from_recording("compile_cache", "the cold-start measurement", kind="compile_cache")
    gpu = from_recording("compile_cache", WHAT)
    if cpu.get("owed_recording"):
        if gpu.get("owed_recording"):  # neither ships: this lab, unlike the others, records on a CPU too
            return dict(gpu, record_command=f"{CPU_RECORD_COMMAND}   # on this CPU, minutes\n"
                                            f"# or, on one H200: {gpu['record_command']}\n"
                                            f"# and then: {gpu['merge_command']}", merge_command="",
                        verdict="Not recorded yet: no recording of the cold starts ships. It records on this "
                                f"machine's CPU in minutes ({CPU_RECORD_COMMAND}), or on a GPU. "
                                "No number is shown until one does.")
        return gpu
    # measured on a CPU: real numbers, not a GPU's (the "cpu_recorded" source, and the device says so)
    return dict(cpu, source="cpu_recorded", device_name=f"recorded on a CPU, not a GPU: {cpu['device_name']}", gpu=gpu)


def record(path: str, force: bool = False) -> dict:
    """Measure on this machine's CPU and write the CPU recording (kind "compile_cache")."""
    import torch

    from ..recordings import store
    store.check_target(path, force)
    r = dict(measure("cpu"), backend="cpu", source="cpu", device_name="CPU")
    doc = {"meta": store.new_meta("compile_cache", f"CPU ({os.cpu_count()} cores)", torch.__version__, "cpu",
                                  command=CPU_RECORD_COMMAND),
           "points": [], "labs": {"compile_cache": r}}
    store.write_own(path, doc)
    return doc


def main(argv: list[str]) -> int:
    """`--record PATH [--force]` or `--build-fixture [--force]` (exactly one): each takes minutes,
    so every argument is checked first."""
    import json

    from ..cli_args import Parser, path
    ap = Parser(prog="python -m runtime_core.labs.compile_cache",
                description="the compile_cache lab on this machine's CPU (minutes)")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", type=path, metavar="PATH", help="measure here and write the CPU recording")
    what.add_argument("--build-fixture", action="store_true", help="remake the cross-version package fixture")
    ap.add_argument("--force", action="store_true", help="replace an existing recording, or the committed fixture")
    a = ap.parse_args(argv)
    if a.build_fixture:
        check_fixture_target(a.force)
        print(json.dumps(build_fixture())[:2000])
    else:
        print(json.dumps(record(a.record, a.force)["labs"]["compile_cache"], indent=1)[:3000])
    return 0


if __name__ == "__main__":
    import sys

    from ..cli_args import one_line_errors
    sys.exit(one_line_errors("compile_cache", main, sys.argv[1:]))

"""`python -m runtime_core aot`: the keys it promises, outputs matching eager, and exit 2 on bad args."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"compile_cold_s", "compile_warm_s", "aot_load_python_s", "aot_load_cpp_s", "outputs_match",
        "python_max_abs_err", "cpp_max_abs_err", "device", "torch_version", "python_loader_crashed"}


def aot(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "runtime_core", "aot", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.long
def test_aot_json_measures_everything_and_outputs_match(tmp_path, warm_aot_cache, monkeypatch):
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(warm_aot_cache))  # warm, whatever ran before
    rec = tmp_path / "aot.json"
    p = aot("--json", "--record", str(rec))
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    assert KEYS <= out.keys(), KEYS - out.keys()
    assert out["outputs_match"] is True
    assert out["python_loader_crashed"] is False
    assert out["python_max_abs_err"] <= 1e-4 and out["cpp_max_abs_err"] <= 1e-4
    assert out["device"] == "cpu"
    assert out["compile_warm_s"] < out["compile_cold_s"], (out["compile_warm_s"], out["compile_cold_s"])
    meta = json.loads(rec.read_text())["meta"]
    assert {"device_name", "torch_version", "recorded_at"} <= meta.keys()


@pytest.mark.parametrize("args", [("--device", "tpu"), ("--tokens", "ten"), ("bogus",),
                                  ("--blocks", "0")])
def test_bad_arguments_exit_2_with_one_line(args):
    p = aot(*args, timeout=120)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("runtime_core aot: error:"), p.stderr
    assert p.stdout == ""


def test_gpu_only_subcommands_say_so_without_a_gpu():
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the decoder would run")
    p = aot("decoder", "--json", timeout=120)
    assert p.returncode == 2
    assert "needs a CUDA device" in p.stderr and len(p.stderr.strip().splitlines()) == 1

"""`python -m runtime_core alloc`: JSON keys, the recording, and exit code 2 on bad sizes."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_here

ROOT = Path(__file__).resolve().parents[1]


def run_alloc(*args):
    return subprocess.run([sys.executable, "-m", "runtime_core", "alloc", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "alloc_test.json"
    proc = run_alloc("--backend", "sim", "--json", "--record", str(path))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), json.loads(path.read_text())


def test_json_has_the_allocators_plan_and_expandable(recorded):
    out, _ = recorded
    assert set(out["allocators"]) == {"plan_arena", "caching_pool", "torch", "raw"}
    for v in out["allocators"].values():
        assert {"alloc_free_us", "driver_mallocs_steady", "peak_reserved_bytes"} <= set(v)
    assert out["allocators"]["caching_pool"]["driver_mallocs_steady"] == 0
    plan = out["plan"]
    assert plan["buffers"] >= 5 and plan["arena_bytes"] < plan["sum_bytes"]
    assert out["expandable"]["ours"]["fragmenting"]["default"]["request_oom"]
    assert not out["expandable"]["ours"]["fragmenting"]["expandable"]["request_oom"]
    for key in ("backend", "device_name", "torch_version", "recorded_at"):
        assert out[key]
    assert out["backend"] == "sim"


def test_record_writes_a_recording(recorded):
    out, rec = recorded
    assert rec["meta"]["device_name"] == out["device_name"] and rec["meta"]["kind"] == "alloc"
    assert rec["labs"]["alloc"]["allocators"].keys() == out["allocators"].keys()
    assert rec["points"] == []


def run_alloc_here(capsys, *args) -> subprocess.CompletedProcess:
    """run_alloc in this process (conftest.cli_here); the `recorded` fixture and one bad size run
    `alloc` as a child, as a user runs it."""
    return cli_here(capsys, "alloc", *args)


@pytest.mark.parametrize("bad", ["0", "-4", "abc", "1.5", "99999999999999"])
def test_bad_size_exits_2_with_one_line(bad, capsys):
    proc = run_alloc(f"--size-bytes={bad}") if bad == "0" else run_alloc_here(capsys, f"--size-bytes={bad}")
    assert proc.returncode == 2
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--size-bytes" in lines[0]

"""The CLI contract of design.md: JSON keys, the checkpoint numbers, and one-line errors (exit 2)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_here

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    p = subprocess.run([sys.executable, "-m", "runtime_core", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def run_here(capsys, *args):
    """`run`, in this process (conftest.cli_here), for the subcommands whose child process other
    tests run too (measure: test_cost.py; sweep and its --resume: test_sweep_interrupt.py; usage
    errors: the two kept as children below)."""
    p = cli_here(capsys, *args)
    return p.returncode, p.stdout, p.stderr


def test_model_eager_gives_the_seed_numbers():
    rc, out, _ = run("model", "--mode", "eager", "--n", "120", "--tax-us", "6", "--work-us", "2", "--json")
    d = json.loads(out)
    assert rc == 0
    assert (d["launch_overhead_us"], d["kernel_work_us"], d["driver_calls"]) == (720, 240, 120)
    assert {"wall_us", "graph_valid"} <= d.keys()


def test_model_graph_is_one_call_and_dynamic_invalidates_it():
    _, out, _ = run("model", "--mode", "graph", "--n", "120", "--tax-us", "6", "--work-us", "2", "--json")
    assert json.loads(out)["driver_calls"] == 1
    _, out, _ = run("model", "--mode", "graph", "--n", "120", "--tax-us", "6", "--work-us", "2", "--dynamic", "--json")
    d = json.loads(out)
    assert d["graph_valid"] is False and d["launch_overhead_us"] == 720


def test_measure_on_the_simulator_has_every_contract_key(capsys):
    rc, out, _ = run_here(capsys, "measure", "--mode", "streams", "--n", "50", "--work-us", "2", "--backend", "sim",
                          "--json")
    d = json.loads(out)
    assert rc == 0
    for key in ("launch_overhead_us", "wall_us", "kernel_work_us", "driver_calls", "graph_valid",
                "kernel_time_us", "backend", "device_name", "torch_version", "model"):
        assert key in d, key
    assert d["backend"] == "sim" and d["driver_calls"] == 50
    assert {"launch_overhead_us", "wall_us", "driver_calls", "graph_valid"} <= d["model"].keys()


BAD_ARGS_IN_A_CHILD = {("model", "--mode", "eager", "--n", "0", "--tax-us", "6", "--work-us", "2"), ("bogus",)}


@pytest.mark.parametrize("args", [
    ("model", "--mode", "eager", "--n", "0", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "-5", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "nan", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "1e12", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "ten", "--tax-us", "6", "--work-us", "2"),
    ("model", "--mode", "eager", "--n", "12", "--tax-us", "inf", "--work-us", "2"),
    ("model", "--mode", "warp", "--n", "12", "--tax-us", "6", "--work-us", "2"),
    ("measure", "--mode", "eager", "--n", "10", "--work-us", "-1", "--backend", "sim"),
    ("measure", "--mode", "eager", "--n", "10", "--work-us", "2", "--backend", "tpu"),
    ("sweep", "--out", "/nonexistent/x.json", "--refresh"),
    ("bogus",),
])
def test_bad_arguments_exit_2_with_one_line_and_no_traceback(args, capsys):
    rc, out, err = run(*args) if args in BAD_ARGS_IN_A_CHILD else run_here(capsys, *args)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == ""


def test_sweep_on_the_simulator_writes_a_recording_and_resumes(tmp_path, capsys):
    out = tmp_path / "rec.json"
    rc, _, _ = run_here(capsys, "sweep", "--out", str(out), "--backend", "sim", "--quick", "--budget-s", "1")
    assert rc == 0
    rc, so, _ = run_here(capsys, "sweep", "--out", str(out), "--backend", "sim", "--quick", "--resume")
    rec = json.loads(out.read_text())
    assert json.loads(so)["complete"] is True and len(rec["points"]) == 24
    for key in ("device_name", "torch_version", "recorded_at", "calibration"):
        assert key in rec["meta"]
    for p in rec["points"]:
        assert {"kernel_time_us", "model_wall_us", "driver_calls", "work_us", "extra_tax_us"} <= p.keys()

"""`python -m runtime_core diagnose` on the simulator: the JSON of one diagnosis, the sweep, the
planner, and one-line errors (exit 2) for bad input."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_core.cli import main
from runtime_core.diagnose.user_model import resolve
from runtime_core.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "diagnose_sim.json"


def run(*args):
    p = subprocess.run([sys.executable, "-m", "runtime_core", "diagnose", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=180)
    return p.returncode, p.stdout, p.stderr


def test_one_diagnosis_has_counts_prediction_measurement_and_verdict(tmp_path):
    trace = tmp_path / "step.json"
    rc, out, _ = run("--model", "fake-cnn", "--batch", "4", "--backend", "sim", "--trace-out", str(trace), "--json")
    d = json.loads(out)
    assert rc == 0
    for key in ("kernels", "gpu_ops", "driver_calls", "busy_us", "kernel_mean_us", "kernel_std_us", "host_dispatch_us",
                "gpu_idle_share", "predicted_eager_us", "predicted_graph_us", "predicted_graph_speedup", "eager_us",
                "graph_us", "measured_graph_speedup", "graph_capture_s", "graph_pool_bytes", "verdict", "machine"):
        assert key in d, key
    assert set(d["variants"]) == {"eager", "our_graph"} and d["graph_profile"]["driver_calls"] == 1
    assert d["verdict"]["launch_bound"] is True and "timelines" not in d
    assert set(d["phase_s"]) == {"calibrate_s", "profile_s", "diagnose_s"}   # where the call's seconds went
    assert all(s >= 0 for s in d["phase_s"].values()) and d["phase_s"]["profile_s"] > 0  # the worker's start
    events = json.loads(trace.read_text())["traceEvents"]
    assert sum(e.get("cat") == "kernel" for e in events) == d["kernels"]


def test_the_planner_prices_bucket_sets_from_a_recording(capsys):
    args = ["diagnose", "--model", "fake-cnn", "--plan", "list", "--sizes", "1,1,2,5,9,33", "--from", str(FIXTURE)]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["source"] == "simulated" and set(d["sets"]) == {"planner", "powers_of_two", "serving_default",
                                                              "all_eager"}
    assert d["sets"]["planner"]["objective_us"] <= d["sets"]["powers_of_two"]["objective_us"]


def test_the_batch_sweep_reports_both_crossovers(capsys):
    assert main(["diagnose", "--model", "fake-mlp", "--sweep", "--backend", "sim"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [p["batch"] for p in d["points"]] == [2 ** i for i in range(10)]
    assert {"predicted", "measured", "within_one_step"} <= d["crossover"].keys()


@pytest.mark.parametrize("args", [
    ("--model", "cnn", "--batch", "1", "--backend", "sim"),
    ("--model", "fake-mlp", "--batch", "0", "--backend", "sim"),
    ("--model", "fake-mlp", "--batch", "two", "--backend", "sim"),
    ("--model", "fake-mlp", "--batch", "1", "--dtype", "fp64", "--backend", "sim"),
    ("--model", "fake-mlp", "--batch", "1", "--seq", "64", "--backend", "sim"),
    ("--model", "fake-mlp", "--batch", "1", "--variants", "compile", "--backend", "sim"),
    ("--model", "fake-mlp", "--batch", "1", "--variants", "warp", "--backend", "sim"),
    ("--model", "fake-mlp", "--backend", "sim"),
    ("--batch", "1", "--backend", "sim"),
    ("--model", "not:a:model", "--batch", "1", "--backend", "sim"),
    ("--record", "/tmp/x.json", "--backend", "sim"),
    ("--resume", "--sweep", "--backend", "sim"),
    ("--sweep", "--record", "/nonexistent/dir/x.json", "--backend", "sim"),
    ("--model", "fake-cnn", "--plan", "list", "--sizes", "1, two", "--from", str(FIXTURE)),
    ("--model", "nope", "--plan", "zipf", "--from", str(FIXTURE)),
    ("--model", "fake-cnn", "--plan", "zipf", "--max-size", "4096", "--from", str(FIXTURE)),
])
def test_bad_arguments_exit_2_with_one_line(args, capsys):
    assert main(["diagnose", *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("runtime_core diagnose: error:")


def test_a_missing_user_module_is_named_on_the_simulator_too(capsys):
    assert main(["diagnose", "--model", "nosuch_pkg_xyz.module:f", "--batch", "1", "--backend", "sim"]) == 2
    assert "no module named 'nosuch_pkg_xyz'" in capsys.readouterr().err
    assert main(["diagnose", "--model", "json:dumps", "--batch", "1", "--backend", "sim"]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_the_help_says_a_user_model_runs_the_users_code():
    rc, out, _ = run("--help")
    assert rc == 0 and "IMPORTS AND RUNS YOUR CODE" in " ".join(out.split())


def test_a_user_model_reference_is_checked_before_anything_runs():
    assert resolve("json:dumps").name == "json:dumps"
    for bad in ("no_such_package_xyz.models:make", "json:no_such_factory", "json", "json:"):
        with pytest.raises(UsageError):
            resolve(bad)


@pytest.mark.parametrize("out, says", [
    (None, "returned NoneType"),
    ((lambda x: x,), "a tuple of length 1"),
    ((3, ()), "int, which cannot be called"),
    ((lambda x: x, 5), "inputs are a int"),
    ((lambda x: x, ()), "no inputs"),
])
def test_a_factory_that_returns_the_wrong_shape_is_one_line(out, says):
    """What a factory returns is checked before anything runs on the GPU: a wrong shape is a
    usage error naming what came back, not a traceback from unpacking it."""
    from runtime_core.diagnose.user_model import unpack
    with pytest.raises(UsageError, match="--model pkg.mod:make: ") as e:
        unpack("pkg.mod:make", out)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_factory_may_return_one_tensor_as_its_one_input():
    import torch
    from runtime_core.diagnose.user_model import unpack
    x = torch.zeros(4, 3)
    model, inputs = unpack("pkg.mod:make", (torch.nn.Identity(), x))
    assert len(inputs) == 1 and inputs[0] is x  # not split into its 4 rows
    assert unpack("pkg.mod:make", [torch.nn.Identity(), [x, x]])[1] == (x, x)

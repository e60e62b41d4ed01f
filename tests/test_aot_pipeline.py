"""The AOT path on the CPU: export -> AOTInductor package -> load from Python (child) and C++.

One package is compiled (or reused from .cache/aot/) for the whole module; the C++ runner's
binary is cached there too, so a second run of these tests is fast. A fresh clone (CI) has no
cache, so the tests that need the package run in make test-long.
"""
from pathlib import Path

import numpy as np
import pytest
import torch

from runtime_core.aot.spawn import run_child
from runtime_core.aot.coldwarm import ATOL, RTOL
from runtime_core.aot.models import make_mlp, mlp_input

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def package():
    from runtime_core.aot.export import build_package
    return build_package("cpu")["package"]


def eager(batch):
    with torch.no_grad():
        return make_mlp()(mlp_input(batch)).numpy()


def test_export_declares_a_dynamic_batch_dimension():
    from runtime_core.aot.export import BATCH_MAX, BATCH_MIN, export_mlp
    ep = export_mlp("cpu")
    (sym_range,) = ep.range_constraints.values()
    assert (sym_range.lower, sym_range.upper) == (BATCH_MIN, BATCH_MAX)
    x = mlp_input(3)
    assert np.allclose(ep.module()(x).detach().numpy(), eager(3), rtol=RTOL, atol=ATOL)


def test_an_exact_shape_export_freezes_the_batch():
    from runtime_core.aot.export import export_mlp
    ep = export_mlp("cpu", example_batch=8, dynamic=False)
    assert not ep.range_constraints
    assert tuple(ep.graph_signature.user_inputs) and ep.module()(mlp_input(8)).shape == (8, 32)


@pytest.mark.long  # the package fixture compiles from a cold cache in a fresh clone (CI): ~17 s
def test_python_loader_in_a_child_matches_eager(package, tmp_path):
    np.save(tmp_path / "in.npy", mlp_input(5).numpy())
    r = run_child(["load", package, tmp_path / "in.npy", tmp_path / "out.npy", "cpu"])
    assert "error" not in r, r
    got = np.load(tmp_path / "out.npy")
    assert got.shape == (5, 32)
    assert np.allclose(got, eager(5), rtol=RTOL, atol=ATOL), np.abs(got - eager(5)).max()
    assert r["load_s"] > 0 and r["load_again_s"] > 0


@pytest.mark.long  # the package, and the C++ runner built from a cold cache: ~7 s more
@pytest.mark.parametrize("batch", [2, 5, 37, 64])
def test_cpp_runner_matches_eager_at_any_batch_in_range(package, tmp_path, batch):
    from runtime_core.aot.cpp_runner import run_cpp
    r = run_cpp(Path(package), mlp_input(batch).numpy(), "cpu", tmp_path)
    assert "error" not in r, r["error"]
    assert r["output"].shape == (batch, 32)
    assert np.allclose(r["output"], eager(batch), rtol=RTOL, atol=ATOL)
    assert 0 < r["load_s"] < 5


@pytest.mark.long  # builds the C++ runner from a cold cache: ~18 s on 2 cores (make test-long; CI runs it)
def test_cpp_runner_binary_is_cached_by_torch_version_and_source():
    from runtime_core.aot.cpp_runner import ensure_runner
    path1, _ = ensure_runner()
    path2, build_s = ensure_runner()
    assert path1 == path2 and build_s == 0.0
    import torch as t
    assert t.__version__.replace("+", "-") in path1.name


def test_cpp_runner_reports_a_bad_package_as_one_line(tmp_path):
    from runtime_core.aot.cpp_runner import run_cpp
    junk = tmp_path / "junk.pt2"
    junk.write_bytes(b"not a zip")
    r = run_cpp(junk, mlp_input(2).numpy(), "cpu", tmp_path)
    assert r["error"].startswith("C++ runner exited with status 1: aot_runner:"), r["error"]
    assert "\n" not in r["error"]


def test_a_loader_crash_is_reported_as_a_result_not_raised():
    r = run_child(["crash"])
    assert r["crashed"] is True and r["signal"] == "SIGSEGV"
    assert "crashed: SIGSEGV" in r["error"]


def test_python_loader_error_on_a_missing_package_is_a_result(tmp_path):
    np.save(tmp_path / "in.npy", mlp_input(2).numpy())
    r = run_child(["load", tmp_path / "missing.pt2", tmp_path / "in.npy", tmp_path / "o.npy", "cpu"])
    assert r["crashed"] is False
    assert r["error"].startswith("loader exited with status 1")

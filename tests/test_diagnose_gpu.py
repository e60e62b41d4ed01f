"""GPU-only: the diagnosis on real models. Counted kernels per step are the profiler's kernel
events; our graph (and make_graphed_callables, and torch.compile) give eager's output for every
zoo model, also for a new input copied in; the whole pipeline runs; a user's factory works.

Collected everywhere (imports are CPU-safe); skipped without a CUDA device by tests/conftest.py.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[1]
ZOO_MODELS = ("decoder", "mlp", "cnn", "encoder")
TOL = {"fp32": dict(rtol=1e-4, atol=1e-4), "bf16": dict(rtol=2e-2, atol=2e-2)}


@pytest.fixture(scope="module")
def runner():
    from runtime_core.diagnose.runners.cuda import CudaRunner
    r = CudaRunner()
    yield r
    r.close()


def _kernel_events(chrome: dict) -> int:
    """Kernel events at or after the profiled region's start, counted straight from the trace."""
    from runtime_core.engine.profiler_trace import REGION
    events = [e for e in chrome["traceEvents"] if e.get("ph") == "X"]
    t0 = next(float(e["ts"]) for e in events if e.get("name") == REGION and e.get("cat") == "user_annotation")
    return sum(1 for e in events if e.get("cat") == "kernel" and float(e["ts"]) >= t0)


@pytest.mark.parametrize("model", ZOO_MODELS)
def test_counted_kernels_per_step_are_the_profilers_kernel_events(runner, model):
    from runtime_core.diagnose.diagnosis import prepare
    from runtime_core.diagnose.spec import Spec
    prof = runner.profile(prepare(runner, Spec(model, 2)))
    eager, graph = prof["eager"], prof["graph"]
    assert eager.kernels == _kernel_events(prof["chrome_trace"]) > 10
    assert eager.launch_calls == eager.kernels, "every kernel of an eager step is one counted launch call"
    assert eager.busy_us > 0 and eager.gpu_ops >= eager.kernels
    assert (graph.graph_launches, graph.launch_calls) == (1, 0), "a replay is one cudaGraphLaunch"
    assert graph.kernels == eager.kernels, "the replayed graph runs the same kernels"
    # every GPU operation is tied to the host call that queued it, in order, inside the dispatch
    at, span = eager.launch_us, eager.span_us
    assert len(at) == eager.gpu_ops and span and span > 0
    assert all(0 <= a <= span for a in at) and at == sorted(at), "one stream: queued in the order they ran"


def _new_request(x):
    """Another input of the same shape and dtype: shifted floats, other token ids."""
    return x + 0.5 if x.is_floating_point() else (x + 5) % 1000 if x.dim() > 1 else x.clone()


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
@pytest.mark.parametrize("model", ZOO_MODELS)
def test_graph_replay_matches_eager_for_each_zoo_model(runner, model, dtype):
    import torch
    from runtime_core.diagnose.diagnosis import prepare
    from runtime_core.diagnose.graph_step import GraphedStep
    from runtime_core.diagnose.spec import Spec
    from runtime_core.diagnose.torch_variants import make_variant
    step = runner.build(prepare(runner, Spec(model, 3, dtype=dtype)))
    ours = GraphedStep(runner, step)
    theirs = make_variant(runner, "graphed_callables", step).fn
    for request in (step.clone_inputs(), tuple(_new_request(x) for x in step.inputs)):
        want = step(*request).clone()
        torch.testing.assert_close(ours(*request).clone(), want, **TOL[dtype])
        torch.testing.assert_close(theirs(*request).clone(), want, **TOL[dtype])
    assert "forward" not in vars(step.model), "make_graphed_callables replaced the module's forward"
    assert ours.pool_bytes > 0 and ours.capture_s > 0
    runner.cleanup()


@pytest.mark.slow
def test_compiled_variants_match_eager_and_only_reduce_overhead_records_graphs(runner):
    import torch
    from runtime_core.aot.reduce_overhead import count_recordings
    from runtime_core.diagnose.diagnosis import prepare
    from runtime_core.diagnose.spec import Spec
    from runtime_core.diagnose.torch_variants import make_variant
    step = runner.build(prepare(runner, Spec("mlp", 4)))
    x = step.clone_inputs()
    want = step(*x).clone()
    recorded = {}
    for name in ("compile", "reduce_overhead"):  # in measure_variants' order, on one model
        with count_recordings() as box:
            v = make_variant(runner, name, step)
            for _ in range(3):
                got = v.fn(*x).clone()
        recorded[name] = box["recordings"]
        torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-3)
        assert v.setup_s > 0
    assert recorded["compile"] == 0 and recorded["reduce_overhead"] >= 1, recorded
    torch.testing.assert_close(step(*x), want)  # eager is still eager
    runner.cleanup()


def test_one_diagnosis_predicts_then_measures_every_fast_variant(runner):
    from runtime_core.diagnose.diagnosis import diagnose, prepare
    from runtime_core.diagnose.spec import Spec
    spec = prepare(runner, Spec("cnn", 1))
    p = diagnose(runner, spec, runner.machine("live"), ("eager", "our_graph", "graphed_callables"))
    assert set(p["variants"]) == {"eager", "our_graph", "graphed_callables"}
    assert p["host_dispatch_us"] > p["busy_us"], "a small CNN at batch 1 is launch-bound"
    assert p["verdict"]["launch_bound"] and p["measured_graph_speedup"] > 1.5
    assert p["graph_profile"]["driver_calls"] == 1 and p["graph_pool_bytes"] > 0
    assert p["timelines"]["eager"] and p["timelines"]["our_graph"]
    # each host microsecond ranked once: a launch inside a framework op is that op's time
    assert 0 < sum(r["total_us"] for r in p["top_host"]) <= p["profile"]["eager_span_us"] * 1.001


@pytest.mark.slow
def test_a_quick_recording_on_the_gpu_validates(runner, tmp_path, monkeypatch):
    from runtime_core.diagnose import diagnosis, host_floor
    from runtime_core.diagnose.record import run_record
    from runtime_core.diagnose.records import DiagnoseRecording
    # the recording's mechanics, not its accuracy: one second of H rounds and of steps, not ten each
    monkeypatch.setattr(diagnosis, "HOST_SPREAD_S", 1.0)
    monkeypatch.setattr(host_floor, "MEASURE_WINDOW_S", 1.0)
    out = tmp_path / "diagnose_quick.json"
    doc = run_record(runner, out, budget_s=300, quick=True, models=["mlp"], variants=False)
    rec = DiagnoseRecording.load(out)
    assert doc["meta"]["complete"] and rec.meta.backend == "cuda" and len(rec.points) == 4
    assert rec.planner_case("mlp", "zipf")["measured"]["planner"]["requests"] > 0


@pytest.mark.slow
def test_a_users_own_factory_is_diagnosed_from_the_cli():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests" / "fixtures"))
    p = subprocess.run([sys.executable, "-m", "runtime_core", "diagnose", "--model", "user_model_example:make",
                        "--batch", "4", "--no-compile", "--json"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    d = json.loads(p.stdout)
    assert d["model"] == "user_model_example:make" and d["kernels"] >= 3
    assert set(d["variants"]) == {"eager", "our_graph", "graphed_callables"}


@pytest.mark.slow
def test_a_network_that_cannot_be_captured_gets_its_verdict_and_exit_0():
    """The factory's forward copies an unpinned CPU tensor to the GPU: the capture fails, and the
    diagnosis says so with torch's reason, the user's line and what to try, after its eager analysis."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests" / "fixtures"), str(ROOT)]))
    p = subprocess.run([sys.executable, "-m", "runtime_core", "diagnose", "--model", "uncapturable_model:make",
                        "--batch", "4", "--no-compile", "--json"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    d = json.loads(p.stdout)
    assert d["capturable"] is False and d["measured_graph_speedup"] is None and d["eager_us"] > 0
    v = d["verdict"]
    assert v["capturable"] is False and v["graphs_help"] is False and "Cannot be captured" in v["headline"]
    assert "pinned" in v["reason"] and "\n" not in v["reason"]
    assert "uncapturable_model.py" in v["culprit"] and ".to(x.device)" in v["culprit"]
    assert any("pin" in t for t in v["what_to_try"]) and any("partial" in t or "part" in t for t in v["what_to_try"])
    assert any("once, outside the step" in t and "copy_()" in t for t in v["what_to_try"])  # a source kept alive
    assert "pageable" in (v["evidence"] or "").lower()  # the eager profile's pageable copy names it too


def test_the_step_as_captured_shows_the_work_a_graph_replays(monkeypatch):
    """A module that asks torch whether it is being captured, and does more work if so: the
    as-captured profile counts the graph's extra operations, the plain eager one does not."""
    from runtime_core.diagnose.runners.cuda import CudaRunner
    from runtime_core.diagnose.spec import Spec
    fixtures = str(ROOT / "tests" / "fixtures")
    monkeypatch.syspath_prepend(fixtures)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([fixtures, os.environ.get("PYTHONPATH", "")]))
    r = CudaRunner()  # its own profile worker, started with the fixtures on its path
    try:
        prof = r.profile(Spec("branchy_model:make", 4))
    finally:
        r.close()
    eager, captured, graph = prof["eager"], prof["captured"], prof["graph"]
    assert captured.gpu_ops == eager.gpu_ops + 2
    assert graph.gpu_ops == captured.gpu_ops + 1  # the graph step also copies its input in


def test_a_memset_in_the_step_is_profiled_with_its_size_and_priced(monkeypatch):
    """A forward that zeroes 12 bytes with cudaMemsetAsync: the as-captured profile's memset row
    carries 12 bytes, and the prediction adds what a small memset costs between kernels."""
    from runtime_core.diagnose.diagnosis import counts_of, predicted_fields, diagnose, prepare
    from runtime_core.diagnose.runners.cuda import CudaRunner
    from runtime_core.diagnose.spec import Spec
    fixtures = str(ROOT / "tests" / "fixtures")
    monkeypatch.syspath_prepend(fixtures)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([fixtures, str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = CudaRunner()
    try:
        spec = prepare(r, Spec("memset_model:make", 4))
        m = r.machine("live")
        p = diagnose(r, spec, m)
    finally:
        r.close()
    sets = [row for row in p["profile"]["captured_ops"] if row[0] == "memset"]
    assert [row[5] for row in sets] == [12]
    assert counts_of(p).graph_memsets == (12,)
    ex = p["explanation"]
    assert ex["memset_nodes"] == 1 and ex["node_cost_source"] == "node_costs"
    assert ex["memsets_us"] == pytest.approx(m.memset_us(12), abs=1e-3) and ex["memsets_us"] > 0
    assert ex["memsets_us"] == predicted_fields(p, m)["explanation"]["memsets_us"]


def test_a_small_memset_between_kernels_costs_more_than_a_large_one():
    """model/node_mix.py's finding, on kernels of our own making: a 4-byte memset between two adds
    costs well over a chain of such memsets; a 64 KB one costs what its own chain does."""
    from runtime_core.model.node_mix import run_mix
    rows = {r["name"]: r for r in run_mix(("A", "s", "S"), ("As", "AS"))}
    excess = {n: rows[n]["slope_us"] - sum(rows[c]["slope_us"] for c in n) for n in ("As", "AS")}
    assert excess["As"] >= 0.3, excess
    assert abs(excess["AS"]) <= 0.15, excess
    assert rows["As"]["kinds"] == ["kernel", "gpu_memset"]

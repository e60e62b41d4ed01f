"""The diagnosis pipeline end to end on the simulator, with fake models whose kernels are known:
counted exactly, predicted exactly by the formula, and measured close to the prediction."""
import pytest

from runtime_core.diagnose.diagnosis import diagnose, prepare
from runtime_core.diagnose.runners import get_runner
from runtime_core.diagnose.fake_models import FAKE_ZOO
from runtime_core.diagnose.graph_step import GraphedStep
from runtime_core.diagnose.runners.sim import DEMO_MACHINE, SimRunner
from runtime_core.diagnose.spec import Spec
from runtime_core.diagnose.sweep import crossover_batch, sweep_model
from runtime_core.errors import UsageError


@pytest.fixture
def runner():
    return SimRunner()


@pytest.mark.parametrize("model,batch", [("fake-mlp", 1), ("fake-cnn", 16), ("fake-encoder", 64)])
def test_profile_counts_the_fake_models_kernels_and_busy_time_exactly(runner, model, batch):
    spec = prepare(runner, Spec(model, batch))
    prof = runner.profile(spec)
    fake = FAKE_ZOO[model]
    K = len(fake.kernels)
    eager, graph = prof["eager"], prof["graph"]
    assert eager.kernels == eager.gpu_ops == eager.launch_calls == eager.driver_calls == K
    assert eager.busy_us == pytest.approx(runner.build(spec).busy_us())
    assert (graph.kernels, graph.graph_launches, graph.launch_calls, graph.copy_calls) == (K, 1, 0, 1)
    lanes = {(s.lane, s.kind) for s in eager.spans}
    assert {("cpu", "launch"), ("cpu", "dispatch"), ("gpu", "kernel")} <= lanes


def test_prediction_is_the_formula_with_the_simulators_own_constants(runner):
    spec = prepare(runner, Spec("fake-cnn", 8))
    p = diagnose(runner, spec, runner.machine())
    fake, K = FAKE_ZOO["fake-cnn"], len(FAKE_ZOO["fake-cnn"].kernels)
    tax, sync, g, gap, floor = (DEMO_MACHINE[k] for k in ("tax_us", "sync_us", "graph_launch_us", "node_gap_us",
                                                          "kernel_floor_us"))
    H = K * (tax + fake.host_us)                      # every launch: framework dispatch + the launch tax
    B = runner.build(spec).busy_us()
    assert (p["gpu_ops"], p["host_dispatch_us"], p["busy_us"]) == (K, pytest.approx(H), pytest.approx(B))
    durations = [r[1] for r in p["profile"]["eager_ops"]]
    assert len(durations) == K and sum(durations) == pytest.approx(B)
    # each launch call returns after another (tax + host): the profile's launch times are even shares
    from runtime_core.diagnose.diagnosis import op_ready
    assert op_ready(p) == pytest.approx(tuple((i + 1) / K for i in range(K)))
    assert p["explanation"]["eager_ready_profiled"] is True and p["explanation"]["eager_op_by_op"] is True
    end = 0.0                                         # op by op: op i is ready at (i+1)·H/K, the GPU runs
    for i, us in enumerate(durations):                # it after the one before (no stream gap on the demo machine)
        end = max(end, (i + 1) * H / K) + us
    eager = end + sync
    graph = 1 * tax + max(g, 1 * floor) + B + (K - 1) * gap + sync
    assert p["predicted_eager_us"] == pytest.approx(eager, abs=1e-3)
    assert p["predicted_graph_us"] == pytest.approx(graph, abs=1e-3)
    assert p["predicted_graph_speedup"] == pytest.approx(eager / graph, rel=1e-4)
    # without op rows (a point recorded before them), the closed form: the demo machine has no floor
    from runtime_core.diagnose.diagnosis import predicted_fields
    bare = predicted_fields(dict(p, profile={}), runner.machine())
    assert bare["predicted_eager_us"] == pytest.approx(max(H + B / K, H / K + B) + sync, abs=1e-3)


@pytest.mark.parametrize("model,batch", [("fake-mlp", 512), ("fake-cnn", 1), ("fake-cnn", 64), ("fake-decoder", 8)])
def test_the_simulated_measurement_lands_near_the_prediction(runner, model, batch):
    p = diagnose(runner, prepare(runner, Spec(model, batch)), runner.machine())
    assert p["eager_us"] == pytest.approx(p["predicted_eager_us"], rel=0.05)
    assert p["graph_us"] == pytest.approx(p["predicted_graph_us"], rel=0.05)
    assert p["variants"]["our_graph"]["pool_bytes"] == FAKE_ZOO[model].pool_bytes(batch, p["seq"], "fp32")


def test_graph_replay_matches_eager_on_the_simulator(runner):
    step = runner.build(prepare(runner, Spec("fake-mlp", 4)))
    graphed = GraphedStep(runner, step)
    a, b = step.clone_inputs(), step.clone_inputs()
    want = runner.dev.read(step(*a))
    assert runner.dev.read(graphed(*b)) == want


def test_the_sweep_finds_where_graphs_stop_paying(runner):
    out = sweep_model(runner, "fake-cnn", runner.machine(), batches=(1, 8, 32, 64, 128))
    assert out["crossover"]["within_one_step"]
    assert crossover_batch(out["points"], "measured_graph_speedup") == out["crossover"]["measured"]
    speedups = [p["measured_graph_speedup"] for p in out["points"]]
    assert speedups[0] > 4 and speedups[-1] < 1.2 and speedups == sorted(speedups, reverse=True)


def test_the_simulator_refuses_zoo_models_with_one_line(runner):
    with pytest.raises(UsageError, match="needs a CUDA GPU"):
        prepare(runner, Spec("cnn", 1))
    with pytest.raises(UsageError, match="no shape knob"):
        prepare(runner, Spec("fake-mlp", 1, seq=7))
    with pytest.raises(UsageError, match="batch"):
        prepare(runner, Spec("fake-mlp", 0))


def test_auto_backend_without_a_gpu_is_the_simulator():
    import torch
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert get_runner("auto").backend == "sim"


def test_both_runners_satisfy_the_declared_runner_protocol():
    """The runner contract is a typing.Protocol (runners/contract.py): SimRunner is one, and
    CudaRunner's class (it needs a GPU to build) defines every member the Protocol names."""
    import inspect

    from runtime_core.diagnose.runners.contract import Runner
    from runtime_core.diagnose.runners.cuda import CudaRunner
    assert isinstance(SimRunner(), Runner)
    members = {n for n in vars(Runner) if not n.startswith("_")} | set(Runner.__annotations__)
    assert {"profile", "build", "machine", "variant", "cleanup", "backend", "variants"} <= members
    for cls in (SimRunner, CudaRunner):
        missing = [m for m in members if not hasattr(cls, m) and m not in ("device_name", "dev")]
        assert not missing, (cls.__name__, missing)
        for m in members:
            fn = getattr(cls, m, None)
            if inspect.isfunction(getattr(Runner, m, None)):
                want = list(inspect.signature(getattr(Runner, m)).parameters)
                assert list(inspect.signature(fn).parameters) == want, (cls.__name__, m)

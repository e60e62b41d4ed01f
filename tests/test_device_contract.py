"""One device contract: both peers implement it in full, nothing above them branches on which
one it drives, and the simulator's race detector catches unordered streams."""
import inspect
import re
from pathlib import Path

import pytest

from runtime_core.engine.capture import warm_up_and_capture
from runtime_core.engine.device import Device
from runtime_core.engine.graph_executor import GraphExecutor
from runtime_core.engine.race_detector import RaceError
from runtime_core.engine.sim.device import SimDevice
from runtime_core.engine.workload import ChainWorkload
from runtime_core.knobs import Knobs
from runtime_core.labs import LABS, REPLAYS_A_RECORDING, run_lab

ROOT = Path(__file__).resolve().parents[1]
# The modules that may ask which backend they hold: each backend's own modules (a sim/ or cuda/
# folder, or a sim.py / cuda.py), the device contract, and the registries that find a backend's
# part by its name (a table keyed on Backend).
REGISTRIES = {"engine/device.py", "engine/backends.py", "engine/cost.py", "engine/tracing.py",
              "engine/native.py", "allocator/backends/__init__.py", "diagnose/runners/__init__.py",
              "labs/reduce_overhead/__init__.py", "labs/gpu_only.py", "labs/gpu_recorded.py"}
# Comparisons of a recorded field or of the AOT lesson's `--device cpu|cuda` string, not of the
# device being driven (the AOT value still travels as a torch device string: see the README).
EXEMPT = {"recordings/types.py": "a recording's meta.backend -> its source label",
          "recordings/store.py": "an aot recording's device field -> its device",
          "aot/coldwarm.py": "the AOT lesson's device string, checked where it enters",
          "aot/serving.py": "an input tensor's device against the served package's",
          "aot/serving_run.py": "the AOT lesson's device string: a CPU child gets one OpenMP thread",
          "pages/ui/aot_view.py": "an AOT result's device field -> its badge",
          "pages/ui/lab_panels.py": "a lab result's backend field -> a caption"}
BRANCH = re.compile(
    r"\bbackend\s*(==|!=|\bin\b)|isinstance\([^)]*(SimDevice|CudaDevice)|\b(hasattr|getattr)\(\s*(self\.)?dev\b"
    # dictionary dispatch keyed on the backend
    r"|\bBackend\.(SIM|CUDA)\s*:|\{\s*[\"'](sim|cuda)[\"']\s*:|\}\s*\[\s*(resolve_backend\(|[\w.]*backend\b)"
    # comparisons of torch_device or of device-type strings
    r"|\btorch_device\s*(==|!=|\bin\b|\bnot in\b)|\.type\s*(==|!=)"
    r"|\bdevice\w*[\"')\]]*\s*((==|!=)\s*[\"']|(in|not in)\s*\(\s*[\"'])|[\"'](sim|cuda|cpu)[\"']\s*(==|!=)"
    r"|(==|!=)\s*[\"'](sim|cuda)[\"']")


def _may_branch(rel: str | None) -> bool:
    if rel is None:
        return False
    parts = rel.split("/")
    return rel in REGISTRIES or parts[-1] in ("sim.py", "cuda.py") or bool({"sim", "cuda"} & set(parts[:-1]))


def _sources():
    for folder in ("runtime_core", "pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT / folder).as_posix() if folder == "runtime_core" else \
                path.relative_to(ROOT).as_posix(), path


def test_no_code_outside_the_backend_modules_branches_on_the_backend():
    hits = []
    for rel, path in _sources():
        if _may_branch(rel) or rel in EXEMPT:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if BRANCH.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not hits, "\n".join(hits)


def test_the_grep_would_catch_a_branch():
    for line in ('if dev.backend == "cuda":', "if backend != 'sim':", "x = backend in ('cuda',)",
                 "isinstance(dev, SimDevice)", 'hasattr(dev, "sizes")', "getattr(self.dev, 'x', None)",
                 "return {Backend.CUDA: live, Backend.SIM: replay}[resolve_backend(b)]()",
                 'pick = {"sim": SimRunner, "cuda": CudaRunner}[backend]', "table[dev.backend]",
                 'if dev.torch_device == "cuda":', 'if x.device.type != "cuda":', 'if device == "cpu":',
                 'ok = device in ("cpu", "cuda")', 'if "cuda" == kind:'):
        assert BRANCH.search(line) or "table[dev.backend]" in line, line
    for line in ('lane = "cpu" if s.lane == "cpu" else "gpu"', 'tid = {"cpu": 1, "gpu": 2}'):
        assert not BRANCH.search(line), line


def test_labs_never_touch_torch_cuda():
    for path in (ROOT / "runtime_core" / "labs").rglob("*.py"):
        assert "torch.cuda" not in path.read_text(encoding="utf-8"), path


def test_both_peers_implement_every_hook():
    from runtime_core.engine.sim.device import SimDevice as Sim
    hooks = {name for name, fn in inspect.getmembers(Device) if getattr(fn, "__isabstractmethod__", False)}
    assert {"wait_stream", "capture", "item", "copy_from_host", "measure_tax", "trace",
            "reserved_bytes", "allocated_bytes", "launch_busy_kernel"} <= hooks
    assert not Sim.__abstractmethods__
    from runtime_core.engine.cuda.device import CudaDevice  # importable without a GPU, not buildable
    assert not CudaDevice.__abstractmethods__


def test_services_take_a_device_and_are_not_its_methods():
    """Pricing, tracing a step, native launching, the allocator backend and a recording's facts
    are found by the device's backend (engine/cost.py, tracing.py, native.py, backends.py,
    allocator/backends/), not hooks of Device."""
    from runtime_core.allocator.backends import HostArenaBackend, for_device
    from runtime_core.engine.backends import describe
    from runtime_core.engine.cost import SimCostModel, cost_model
    from runtime_core.engine.native import native_launcher
    from runtime_core.engine.sim.native import SimChainLauncher
    from runtime_core.engine.tracing import trace_inline
    services = {"cost_model", "native_launcher", "allocator_backend", "describe", "use_sizing", "trace_inline",
                "trace_step", "prepare_tracing"}
    assert not services & set(dir(Device)) and not services & set(dir(SimDevice))
    dev = SimDevice()
    assert isinstance(cost_model(dev), SimCostModel) and isinstance(native_launcher(dev), SimChainLauncher)
    assert isinstance(for_device(dev, 1 << 20), HostArenaBackend) and "sim_params" in describe(dev)
    assert trace_inline(dev, lambda: dev.launch_chain_kernel(dev.new_buffer(4))).driver_calls == 1


def test_the_simulator_runs_the_constants_it_is_given():
    from runtime_core.constants import Constants
    from runtime_core.engine.sim.params import SIM_MACHINE
    assert SimDevice().known_constants() == SIM_MACHINE  # every cost zero unless its builder says
    c = Constants(sync_us=7.0, source="a test")
    assert SimDevice(constants=c).known_constants() == c


def test_no_engine_module_reads_a_recording():
    """Engine modules import nothing from recordings (tests/test_layers.py) and open no recording
    file by name: whoever builds a device passes the constants down."""
    for path in (ROOT / "runtime_core" / "engine").rglob("*.py"):
        src = path.read_text(encoding="utf-8")
        assert not re.search(r"RECORDINGS_DIR|lessons/recordings|\bfrom \.+recordings|shipped_constants\(\)", src), path


def test_a_peer_missing_a_hook_fails_loudly():
    Broken = type("Broken", (Device,), {k: v for k, v in vars(SimDevice).items() if k != "item"})
    with pytest.raises(TypeError, match="item"):
        Broken()


# ---- the race detector ------------------------------------------------------------------------
def test_an_unordered_copy_and_kernel_on_two_streams_raise():
    dev = SimDevice()
    a, b = dev.new_buffer(1000), dev.new_buffer(1000)
    side = dev.new_stream()
    dev.copy(a, b)  # writes a on the default stream
    with dev.use_stream(side), pytest.raises(RaceError, match="not ordered after"):
        dev.launch_chain_kernel(a)  # reads a on the side stream: nothing orders them


@pytest.mark.parametrize("order", ["event", "wait_stream", "synchronize"])
def test_each_ordering_edge_removes_the_race(order):
    dev = SimDevice()
    a, b = dev.new_buffer(1000), dev.new_buffer(1000)
    side = dev.new_stream()
    dev.copy(a, b)
    if order == "event":
        ev = dev.new_event()
        ev.record(dev.current_stream())
        ev.wait(side)
    elif order == "wait_stream":
        dev.wait_stream(side, dev.current_stream())
    else:
        dev.synchronize()
    with dev.use_stream(side):
        dev.launch_chain_kernel(a)
    dev.synchronize()
    assert dev.read(a)[0] == 1.0


def test_two_reads_on_two_streams_are_not_a_race():
    dev = SimDevice()
    a, out1, out2 = dev.new_buffer(10), dev.new_buffer(10), dev.new_buffer(10)
    dev.synchronize()
    side = dev.new_stream()
    dev.copy(out1, a)
    with dev.use_stream(side):
        dev.copy(out2, a)
    dev.synchronize()


def test_graph_executor_capture_is_race_free_and_races_without_its_wait_stream(monkeypatch):
    def capture_once(dev):
        wl = ChainWorkload(8, 2.0)
        ex = GraphExecutor(dev, wl)
        x = wl.make_input(dev, 0)  # the fill that writes the input is a kernel on the default stream
        ex.prepare(x)
        ex.run(wl.make_input(dev, 1))
        return ex
    capture_once(SimDevice())  # the recipe waits for the copy: no race
    dev = SimDevice()
    real_wait = dev.wait_stream
    calls = []

    def skip_first_wait(waiter, producer):
        calls.append(1)
        if len(calls) > 1:  # drop the warm-up's wait for the static-input copy
            real_wait(waiter, producer)
    monkeypatch.setattr(dev, "wait_stream", skip_first_wait)
    with pytest.raises(RaceError, match="memcpy DtoD"):
        capture_once(dev)


def test_the_capture_recipe_orders_warm_up_after_the_inputs():
    dev = SimDevice()
    buf = dev.new_buffer(100)
    dev.fill(buf, 3.0)  # written on the default stream, not yet run
    graph, _ = warm_up_and_capture(dev, lambda: dev.launch_chain_kernel(buf))
    dev.synchronize()
    assert dev.read(buf)[0] == 4.0  # the warm-up ran after the fill


@pytest.mark.parametrize("mode,dynamic,policy", [("eager", False, "fallback"), ("streams", False, "fallback"),
                                                 ("graph", False, "fallback"), ("graph", True, "fallback"),
                                                 ("graph", True, "recapture"), ("graph", True, "bucket")])
def test_every_executor_runs_race_free(mode, dynamic, policy):
    from runtime_core.engine.measure import measure
    r = measure(SimDevice(), Knobs(mode, 30, 2.0, dynamic=dynamic, policy=policy), repeats=3)
    assert r.wall_us > 0


@pytest.mark.parametrize("name", list(LABS))
def test_every_lab_runs_race_free_on_the_simulator(name):
    out = run_lab(name, "sim")
    # a lab that needs torch.compile on a GPU replays its GPU recording there, and says so
    assert out["source"] in (("recorded", "cpu_recorded") if name in REPLAYS_A_RECORDING else ("simulated",)) and "verdict" in out


def test_untraced_counts_are_absent_not_guessed():
    from runtime_core.engine.measure import measure
    for mode in ("eager", "graph"):
        r = measure(SimDevice(), Knobs(mode, 20, 2.0, dynamic=True, policy="recapture"), trace=False)
        assert r.driver_calls is None and r.sync_calls is None and r.copy_calls is None
        traced = measure(SimDevice(), Knobs(mode, 20, 2.0, dynamic=True, policy="recapture"))
        assert traced.driver_calls >= 20 if mode == "eager" else traced.driver_calls == 2 * 20 + 1


# ---- the broadcasting copy, add and reduce_sum: the simulator follows torch's rules ----------
SHAPE_PAIRS = [((4,), (4,)), ((4,), (1,)), ((4,), (3,)), ((4,), (2, 4)), ((2, 4), (4,)), ((2, 4), (2, 1)),
               ((2, 4), (3, 1)), ((2, 4), (1, 1))]


def _sim_buffer(shape, value):
    import numpy as np

    from runtime_core.engine.sim.objects import SimBuffer, reserve_addresses
    return SimBuffer.view_of(np.full(shape, value, dtype=np.float32), reserve_addresses(4 * int(np.prod(shape))))


@pytest.mark.parametrize("op", ["copy_broadcast", "add"])
@pytest.mark.parametrize("dst_shape,src_shape", SHAPE_PAIRS)
def test_sim_broadcasting_ops_match_torch(op, dst_shape, src_shape):
    torch = pytest.importorskip("torch")
    want_dst = torch.full(dst_shape, 1.0)
    try:
        (want_dst.copy_ if op == "copy_broadcast" else want_dst.add_)(torch.full(src_shape, 3.0))
        want_error = None
    except RuntimeError as e:
        want_error = str(e)
    dev = SimDevice()
    dst, src = _sim_buffer(dst_shape, 1.0), _sim_buffer(src_shape, 3.0)
    if want_error:
        with pytest.raises(RuntimeError) as got:
            getattr(dev, op)(dst, src)
        assert str(got.value) == want_error
        return
    getattr(dev, op)(dst, src)
    dev.synchronize()
    assert dst.data.tolist() == want_dst.tolist()


def test_reduce_sum_writes_the_first_element_only():
    dev = SimDevice()
    src, dst = dev.new_buffer(6), dev.new_buffer(3)
    dev.fill(src, 2.5)
    dev.fill(dst, -1.0)
    dev.reduce_sum(dst, src)
    assert dev.read(dst) == [15.0, -1.0, -1.0]


def test_a_reduction_on_another_stream_races_with_the_write_it_reads():
    dev = SimDevice()
    src, dst = dev.new_buffer(6), dev.new_buffer(1)
    dev.fill(src, 1.0)
    with dev.use_stream(dev.new_stream()), pytest.raises(RaceError):
        dev.reduce_sum(dst, src)


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["copy_broadcast", "add", "reduce_sum"])
def test_cuda_ops_agree_with_the_simulator(op):
    import torch

    from runtime_core.engine.cuda.device import CudaDevice
    from runtime_core.engine.cuda.objects import CudaBuffer
    cuda, sim = CudaDevice.shared(), SimDevice()
    for dst_shape, src_shape in (((8,), (1,)), ((8,), (8,)), ((8,), (5,))):
        got = {}
        for name, dev, make in (("cuda", cuda, lambda s, v: CudaBuffer(torch.full(s, v, device="cuda"))),
                                ("sim", sim, _sim_buffer)):
            dst, src = make(dst_shape, 1.0), make(src_shape, 3.0)
            try:
                getattr(dev, op)(dst, src)
                got[name] = dev.read(dst)
            except RuntimeError as e:
                got[name] = f"raised: {e}"
        assert got["cuda"] == got["sim"], (op, dst_shape, src_shape, got)


def test_cuda_races_seen_runs_the_step_and_cannot_tell():
    """A GPU runs a race silently: races_seen runs the step and answers None, not False."""
    pytest.importorskip("torch")
    from runtime_core.engine.cuda.device import CudaDevice
    ran = []
    device = object.__new__(CudaDevice)  # no GPU needed: the method touches nothing of the device
    assert device.races_seen(lambda: ran.append(1)) is None and ran == [1]

"""The diagnosis on the simulator: fake models (fake_models.py) stepped on a SimDevice.

A peer of cuda.CudaRunner with the same methods (the Runner Protocol, contract.py), so diagnosis.py, sweep.py and the bucket
measurement never ask which one they drive. Profiling happens in-process (the simulator has
no profiler to slow it down), and only eager and our graph capture can run: make_graphed_callables
and torch.compile need a real GPU.
"""
from __future__ import annotations

from ...engine.sim.device import SimDevice, SimParams
from ...engine.sim.params import SIM_MACHINE
from ...errors import UsageError
from ..fake_models import FAKE_ZOO, FakeModel
from ..spec import Spec

# The simulated machine of the demo: costs of the order the H200 showed (µs), every other cost
# zero, and kernel time set by buffer size at 10 elements per µs (small buffers keep it fast).
DEMO_MACHINE = dict(tax_us=6.0, sync_us=5.0, graph_launch_us=3.0, node_gap_us=0.25, kernel_floor_us=0.85,
                    elems_per_us=10.0)


class SimStep:
    """One step of a fake model at a batch: its kernels, each over a buffer sized to its time.

    Args:
        dev: the SimDevice.
        fake: the FakeModel.
        batch, shape, dtype: the step's setting (the buffers are sized for it).
    """

    def __init__(self, dev: SimDevice, fake: FakeModel, batch: int, shape: int | None, dtype: str):
        self.dev, self.model = dev, fake
        self.activation_bytes = fake.pool_bytes(batch, shape, dtype)
        works = fake.kernel_us(batch, shape, dtype)
        self.inputs = (self._buffer(works[0], 1.0),)
        self.batched = (True,)
        self.buffers = [self._buffer(w, 0.0) for w in works[1:]]

    def _buffer(self, work_us: float, value: float):
        buf = self.dev.new_buffer(self.dev.numel_for_work(work_us))
        self.dev.fill(buf, value)
        return buf

    def __call__(self, x):
        """Enqueue the step: before each launch, the model's framework dispatch on the host."""
        dev, host = self.dev, self.model.host_us
        dev.host_spin(host)
        dev.launch_chain_kernel(x)
        for buf in self.buffers:
            dev.host_spin(host)
            dev.launch_chain_kernel(buf)
        return x

    def busy_us(self) -> float:
        """The step's GPU time, known exactly: every kernel's time on this device, summed."""
        return sum(self.dev.kernel_us(b.numel) for b in (self.inputs[0], *self.buffers))

    def clone_inputs(self) -> tuple:
        """New input buffers holding the same values (a new request of the same size)."""
        out = []
        for x in self.inputs:
            buf = self.dev.new_buffer(x.numel)
            self.dev.fill(buf, float(x.data[0]))
            out.append(buf)
        return tuple(out)

    def copy_into(self, dst, src, batched: bool = True) -> None:
        """dst[:len(src)] = src, a device copy (a smaller request fills the first rows)."""
        self.dev.copy(dst, src)


class SimRunner:
    """Fake models on a SimDevice: the diagnosis pipeline on a virtual clock."""

    backend = "sim"
    variants = ("eager", "our_graph")
    catalog = FAKE_ZOO
    cost_scale = 0.02  # a simulated item takes about 1/50 of its time on an H200

    def __init__(self, params: SimParams | None = None):
        self.dev = SimDevice(params or SimParams.of(machine=SIM_MACHINE, **DEMO_MACHINE))
        self.device_name = self.dev.name

    def resolve(self, name: str) -> FakeModel:
        if name not in FAKE_ZOO:
            from ..user_model import PATTERN, is_user_model
            from ..zoo import ZOO
            fakes = ", ".join(FAKE_ZOO)
            if is_user_model(name) and not PATTERN.match(name):
                raise UsageError(f"--model {name!r}: give a zoo name or package.module:factory")
            if name not in ZOO and not is_user_model(name):
                raise UsageError(f"unknown model {name!r}; the simulator runs {fakes} (on a CUDA GPU: the "
                                 f"zoo's {', '.join(ZOO)}, or package.module:factory for your own)")
            if is_user_model(name):
                import importlib.util
                top = name.partition(":")[0].split(".")[0]
                if importlib.util.find_spec(top) is None:  # found without running it: the user's code runs on a GPU only
                    raise UsageError(f"--model {name}: no module named {top!r} on the Python path (run from the "
                                     "folder that holds it, or set PYTHONPATH); and a user model needs a CUDA GPU")
            raise UsageError(f"model {name!r} needs a CUDA GPU, and there is none here (or --backend sim "
                             f"was asked for); on the simulator use one of: {fakes}")
        return FAKE_ZOO[name]

    def build(self, spec: Spec, max_batch: int | None = None) -> SimStep:
        """The step of `spec` (a fake model needs no spare room for bigger batches)."""
        return SimStep(self.dev, self.resolve(spec.model), spec.batch, spec.seq, spec.dtype)

    def steps_at(self, spec: Spec, batches) -> dict:
        """Steps of one fake model at each batch."""
        return {b: self.build(Spec(spec.model, b, spec.seq, spec.dtype)) for b in sorted(set(batches))}

    def profile(self, spec: Spec) -> dict:
        from ..profile_step import profile_both
        return profile_both(self, spec)

    def relabel(self, spans):
        """The simulator draws the model's host work as "extra host tax": call it framework dispatch."""
        from ...result import Span
        return [Span(s.lane, "dispatch", "dispatch (simulated)", s.start_us, s.end_us)
                if s.kind == "spin" else s for s in spans]

    def timing_plan(self, guess_us: float) -> tuple[int, int, float]:
        from ..host_floor import VIRTUAL_MEASURE_ROUNDS
        return VIRTUAL_MEASURE_ROUNDS, 2, 0.0  # the virtual clock gives the same time every step: back to back

    def machine(self, constants: str = "live"):
        """The simulator's own constants: it runs with them, so the model knows them exactly. A GPU
        recording's ("recorded") would describe another machine: refused, never ignored."""
        from ..predict import Machine
        if constants != "live":
            from ...errors import UsageError
            raise UsageError(f"--constants {constants} reads a GPU sweep recording's constants; the simulator "
                             "runs with its own, so leave --constants out here (or use a CUDA GPU)")
        p = self.dev.params
        return Machine(p.machine, p.tax_us, "SimDevice parameters (the simulated machine's own)")

    def reserved_bytes(self) -> int:
        return self.dev.reserved_bytes()

    def graph_pool_bytes(self, step: SimStep, before: int, after: int) -> int:
        """The simulator has no caching allocator: a fake model declares what its capture keeps."""
        return step.activation_bytes

    def variant(self, name: str, step):
        raise UsageError(f"variant {name} needs a CUDA GPU (torch); the simulator runs eager and our_graph")

    def cleanup(self) -> None:
        pass

    def close(self) -> None:
        pass

    def gpus(self) -> None:
        """No limit: the simulator's processes need no GPU of their own."""
        return None

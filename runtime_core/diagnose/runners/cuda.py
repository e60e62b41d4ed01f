"""The diagnosis on a real GPU: zoo models (or the user's own) as torch modules on CUDA.

A peer of sim.SimRunner (the Runner Protocol, contract.py). What only CUDA has lives here: building the torch step, the
settled reserved memory (after empty_cache) that prices a graph pool, the live calibration, the
torch variants (make_graphed_callables, torch.compile) and the profiler worker process.
"""
from __future__ import annotations

import gc

import torch

from ...errors import UsageError
from ..spec import Spec
from ..user_model import is_user_model, resolve as resolve_user, unpack as unpack_user
from ..zoo import DTYPES, ZOO, build, example_inputs


class TorchStep:
    """A model and one step's inputs. Calling it runs the model under no_grad (inference).

    Args:
        model: an nn.Module or callable.
        inputs: the example inputs (tensors on the GPU).
        batched: per input, True if its first dimension is the batch.
    """

    def __init__(self, model, inputs: tuple, batched: tuple[bool, ...]):
        self.model, self.inputs, self.batched = model, tuple(inputs), tuple(batched)

    def __call__(self, *xs):
        with torch.no_grad():
            return self.model(*xs)

    def clone_inputs(self) -> tuple:
        return tuple(x.clone() for x in self.inputs)

    def copy_into(self, dst, src, batched: bool = True) -> None:
        """dst ← src; a smaller batch goes into the first rows (the rest is padding)."""
        if batched and src.shape[0] != dst.shape[0]:
            dst[: src.shape[0]].copy_(src)
        else:
            dst.copy_(src)


class CudaRunner:
    """Zoo models and user models on this machine's GPU.

    Args:
        in_worker: True inside the profile worker (profile_serve.py) (profiles in-process, never starts a worker).
    """

    backend = "cuda"
    variants = ("eager", "our_graph", "graphed_callables", "compile", "reduce_overhead")
    catalog = ZOO
    cost_scale = 1.0  # record_grid.ESTIMATE_S are H200 seconds

    def __init__(self, in_worker: bool = False):
        from ...engine.cuda.device import CudaDevice
        self.dev = CudaDevice(in_worker=True) if in_worker else CudaDevice.shared()
        self.in_worker = in_worker
        self.device_name = self.dev.name
        self._worker = None

    def resolve(self, name: str):
        if is_user_model(name):
            return resolve_user(name)
        if name not in ZOO:
            raise UsageError(f"unknown model {name!r}; the zoo has {', '.join(ZOO)} "
                             f"(or give package.module:factory for your own)")
        return ZOO[name]

    def build(self, spec: Spec, max_batch: int | None = None) -> TorchStep:
        """The step of `spec` on the GPU; `max_batch` leaves room for bigger batches (the
        decoder's KV cache), for serving padded requests from one model."""
        entry = self.resolve(spec.model)
        if getattr(entry, "user", False):
            model, inputs = unpack_user(spec.model, entry.factory()(batch=spec.batch, seq=spec.seq,
                                                                     dtype=DTYPES[spec.dtype], device="cuda"))
            _check_user_inputs(spec, inputs)
            return TorchStep(model, inputs, tuple(x.dim() > 0 and x.shape[0] == spec.batch for x in inputs))
        model = build(spec.model, max(spec.batch, max_batch or 1), spec.seq, spec.dtype)
        return TorchStep(model, example_inputs(spec.model, spec.batch, spec.seq, spec.dtype), entry.batched)

    def steps_at(self, spec: Spec, batches) -> dict:
        """Steps of one zoo model (built once, with room for the largest batch) at each batch."""
        if getattr(self.resolve(spec.model), "user", False):
            raise UsageError("bucket serving is measured on zoo models only")
        entry, batches = ZOO[spec.model], sorted(set(batches))
        model = build(spec.model, batches[-1], spec.seq, spec.dtype)
        return {b: TorchStep(model, example_inputs(spec.model, b, spec.seq, spec.dtype), entry.batched)
                for b in batches}

    def profile(self, spec: Spec) -> dict:
        """Eager and graph StepProfiles of `spec`, from the profiler worker process."""
        from ..profile_step import profile_both
        if self.in_worker:
            return profile_both(self, spec)
        return self.worker().profile(spec)

    def worker(self):
        if self._worker is None:
            from ..profile_worker import ProfileWorker
            self._worker = ProfileWorker()
        return self._worker

    def relabel(self, spans):
        return spans

    def timing_plan(self, guess_us: float) -> tuple[int, int, float]:
        """Measuring rounds, steps per variant in each, and the seconds they spread over (host_floor)."""
        from ..host_floor import MEASURE_ROUNDS, MEASURE_WINDOW_S
        from ..timing import plan_repeats
        return plan_repeats(guess_us, MEASURE_ROUNDS, MEASURE_WINDOW_S)

    def machine(self, constants: str = "live"):
        """The calibrated constants: measured now ("live", ~3 s) or a sweep recording's ("recorded")."""
        from ..machine import live_machine, recorded_machine
        return live_machine(self.dev) if constants == "live" else recorded_machine()

    def reserved_bytes(self) -> int:
        """Bytes the caching allocator holds once every free cached segment is released: what
        live tensors and graph pools keep."""
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        return torch.cuda.memory_reserved()

    def graph_pool_bytes(self, step, before: int, after: int) -> int:
        return max(0, after - before)

    def variant(self, name: str, step: TorchStep):
        """Set up a torch variant of the step: make_graphed_callables, compile or reduce_overhead."""
        from ..torch_variants import make_variant
        return make_variant(self, name, step)

    def cleanup(self) -> None:
        """Free what a diagnosis left: compiled code, cudagraph trees, cached memory."""
        torch._dynamo.reset()
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()

    def gpus(self) -> int:
        """The CUDA GPUs this machine has (the external grid's fresh processes spread over them)."""
        return torch.cuda.device_count()

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None


def _check_user_inputs(spec: Spec, inputs: tuple) -> None:
    """A factory's inputs must be CUDA tensors: say which one is not, before anything runs."""
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor) or x.device.type != "cuda":
            where = type(x).__name__ if not isinstance(x, torch.Tensor) else f"a tensor on {x.device}"
            raise UsageError(f"--model {spec.model}: input {i} from the factory is {where}; "
                             "return CUDA tensors (device='cuda')")

"""torch.cuda faked on the CPU, for a code-path check of the GPU side of the torch-level labs
(tests/test_torch_labs_dry_run.py): every call they make exists and returns something of the right
kind, tensors asked for on "cuda" live on the CPU, a capture runs its body once and a replay does
nothing, `.item()` inside a capture raises as CUDA's does. No number it produces means anything,
and none is ever recorded or shown."""
import contextlib
import torch
from torch.overrides import TorchFunctionMode


def _fix(v):
    if isinstance(v, str) and v.startswith("cuda"):
        return "cpu"
    if isinstance(v, torch.device) and v.type == "cuda":
        return torch.device("cpu")
    return v


class CpuMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if "device" in kwargs:
            kwargs["device"] = _fix(kwargs["device"])
        if kwargs.get("pin_memory"):
            kwargs["pin_memory"] = False
        if getattr(func, "__name__", "") == "copy_":
            kwargs.pop("non_blocking", None)
        args = tuple(_fix(a) for a in args)
        return func(*args, **kwargs)


class FakeStream:
    def __init__(self, priority=0, **kw):
        self.priority = priority

    def wait_stream(self, other):
        pass

    def synchronize(self):
        pass

    @staticmethod
    def priority_range():
        return (0, -5)


class FakeEvent:
    def record(self, stream=None):
        pass

    def synchronize(self):
        pass


class FakeGraph:
    def register_generator_state(self, g):
        pass

    def replay(self):
        pass


class FakeCapture:
    active = False

    def __init__(self, graph, stream=None, pool=None):
        self.graph = graph

    def __enter__(self):
        FakeCapture.active = True
        return self
    def __exit__(self, *a):
        FakeCapture.active = False
        return False


_real_item = torch.Tensor.item


def fake_item(self):
    if FakeCapture.active:
        raise RuntimeError("CUDA error: operation not permitted when stream is capturing (fake)")
    return _real_item(self)


class FakeGen:
    def __init__(self, o=0):
        self.o = o

    def get_offset(self):
        self.o += 4
        return self.o


def install(mp, item_raises_in_capture: bool = True):
    """Fake torch.cuda through `mp` (a pytest MonkeyPatch); use inside `with CpuMode():`. Adam's
    capturable flag is dropped (a CPU Adam refuses it)."""
    c = torch.cuda
    mp.setattr(c, "is_available", lambda: True)
    mp.setattr(c, "get_device_name", lambda *a: "FAKE CUDA on CPU")
    mp.setattr(c, "synchronize", lambda *a: None)
    mp.setattr(c, "Stream", FakeStream)
    mp.setattr(c, "stream", lambda s: contextlib.nullcontext())
    mp.setattr(c, "current_stream", lambda *a: FakeStream())
    mp.setattr(c, "set_stream", lambda s: None)
    mp.setattr(c, "Event", FakeEvent)
    mp.setattr(c, "CUDAGraph", FakeGraph)
    mp.setattr(c, "graph", FakeCapture)
    mp.setattr(c, "_sleep", lambda n: None)
    mp.setattr(c, "make_graphed_callables", lambda cs, args: cs)
    mp.setattr(c, "initial_seed", lambda: 7)
    mp.setattr(c, "current_device", lambda: 0)
    mp.setattr(c, "default_generators", [FakeGen()])
    if item_raises_in_capture:
        mp.setattr(torch.Tensor, "item", fake_item)
    __import__("torch._dynamo")  # before the Generator swap
    real_gen = torch.Generator

    class G(real_gen):
        def __new__(cls, device=None):
            return real_gen.__new__(cls)

        def __init__(self, device=None):
            super().__init__()
    mp.setattr(torch, "Generator", G)
    real_adam = torch.optim.Adam

    class A(real_adam):
        def __init__(self, params, capturable=False, **kw):
            super().__init__(params, **kw)
    mp.setattr(torch.optim, "Adam", A)

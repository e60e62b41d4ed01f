"""The user's own network: `--model package.module:factory` (CLI only; it imports and runs their code).

The factory is called with keywords and returns the model and one step's inputs:

    def factory(batch: int, seq: int | None, dtype: torch.dtype, device: str):
        model = MyNet().to(device, dtype).eval()
        return model, (torch.randn(batch, 128, device=device, dtype=dtype),)

`model` is an nn.Module or any callable; the inputs are a tuple of tensors on `device` (one tensor
alone counts as one input; any other shape is a one-line usage error, `unpack`). An input whose
first dimension equals `batch` counts as batched. The diagnosis runs the model under
torch.no_grad(), captures it as a CUDA graph, and (unless told otherwise) compiles it.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass

from ..errors import UsageError

PATTERN = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def is_user_model(name: str) -> bool:
    return ":" in name


@dataclass(frozen=True)
class UserModel:
    """A `package.module:factory` reference, checked to exist (imported once, not yet called)."""

    name: str
    user: bool = True
    about: str = "your own model (package.module:factory)"
    shape_name: str = "your factory's seq argument"
    default_shape: int | None = None
    shapes: tuple | None = None

    def factory(self):
        module, _, attr = self.name.partition(":")
        return getattr(importlib.import_module(module), attr)


def resolve(name: str) -> UserModel:
    """Check that `name` is package.module:factory and that the factory can be imported.

    Raises UsageError when the text is malformed, the module is not found, or it has no such
    callable. An error raised *inside* the user's module keeps its traceback: it is their bug.
    """
    if not PATTERN.match(name):
        raise UsageError(f"--model {name!r}: give a zoo name or package.module:factory")
    module, _, attr = name.partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and (module == e.name or module.startswith(e.name + ".")):
            raise UsageError(f"--model {name}: no module named {e.name!r} on the Python path "
                             f"(run from the folder that holds it, or set PYTHONPATH)") from None
        raise
    fn = getattr(mod, attr, None)
    if not callable(fn):
        raise UsageError(f"--model {name}: module {module!r} has no callable {attr!r}")
    return UserModel(name)


def unpack(name: str, out) -> tuple:
    """(model, inputs) from what the factory of `name` returned, or a UsageError that says what
    it returned instead. One tensor as `inputs` counts as one input (tuple() would split its rows)."""
    import torch
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        got = f"a {type(out).__name__} of length {len(out)}" if isinstance(out, (tuple, list)) else type(out).__name__
        raise UsageError(f"--model {name}: the factory returned {got}; return (model, inputs)")
    model, inputs = out
    if not callable(model):
        raise UsageError(f"--model {name}: the factory's model is a {type(model).__name__}, which cannot be called")
    if isinstance(inputs, torch.Tensor):
        return model, (inputs,)
    if not isinstance(inputs, (tuple, list)):
        raise UsageError(f"--model {name}: the factory's inputs are a {type(inputs).__name__}; "
                         "return a tuple of tensors")
    if not inputs:
        raise UsageError(f"--model {name}: the factory returned no inputs; return a tuple of tensors")
    return model, tuple(inputs)

"""What one diagnosis is asked for: (model, batch, shape, dtype), checked before any work starts.

The model is a zoo name (CUDA), a fake model (the simulator), or `package.module:factory` for
the user's own network (CUDA, CLI only): see user_model.py for the factory's contract.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import UsageError
from ..knobs import Range

DTYPES = ("fp32", "bf16")
BATCH = Range(1, 4096, integer=True)
USER_SHAPE = Range(1, 1_000_000, integer=True)


@dataclass(frozen=True)
class Spec:
    """One (model, batch, shape, dtype). `seq` is the model's shape knob (None: its default)."""

    model: str
    batch: int
    seq: int | None = None
    dtype: str = "fp32"

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Spec":
        return cls(d["model"], int(d["batch"]), d.get("seq"), d.get("dtype", "fp32"))

    def label(self) -> str:
        shape = f", shape {self.seq}" if self.seq is not None else ""
        return f"{self.model} at batch {self.batch}{shape}, {self.dtype}"


def check(spec: Spec, entry) -> Spec:
    """`spec` with its numbers checked against the model `entry` (a zoo, fake or user model) and
    the default shape filled in. Raises UsageError naming the bad value."""
    batch = BATCH.check("batch", spec.batch)
    if spec.dtype not in DTYPES:
        raise UsageError(f"dtype must be one of {', '.join(DTYPES)}, got {spec.dtype!r}")
    seq = spec.seq
    if getattr(entry, "user", False):
        seq = None if seq is None else USER_SHAPE.check("seq", seq)
    elif not entry.shape_name:
        if seq is not None:
            raise UsageError(f"model {entry.name} has no shape knob; leave out --seq")
    else:
        lo, hi = entry.shapes
        seq = Range(lo, hi, integer=True).check(f"seq ({entry.shape_name} of {entry.name})",
                                                entry.default_shape if seq is None else seq)
    return Spec(spec.model, batch, seq, spec.dtype)

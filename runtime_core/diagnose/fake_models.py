"""Fake networks for the simulator: steps whose kernel count and kernel times are known exactly.

A fake model is what the diagnosis sees of a real one: K kernels per step, each taking a known
GPU time that grows with the batch, and a known host cost per kernel (framework dispatch on top
of the device's launch tax). On a SimDevice each kernel is a chain kernel over a buffer sized
to last its time, so the whole pipeline (profile, dispatch time, prediction, eager and graph
runs, bucket serving) runs on a virtual clock with nothing left to guess.

They are *not* measurements of the zoo models: their names start with "fake-", and every number
they produce is labelled simulated.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FakeModel:
    """A network of known cost. Times in µs.

    Args:
        name: "fake-..." (what the CLI and page call it).
        about: one line for students.
        kernels: per kernel, (base_us, per_sample_us): its GPU time is base + per_sample × batch
            (× shape / default_shape for a model with a shape knob; × bf16_factor in bf16). The
            first kernel reads and writes the step's input buffer; keep it cheap, because the
            simulator prices a copy of that buffer (a graph's static-input copy) like that kernel.
        host_us: framework dispatch per kernel (Python, aten), paid on top of the launch tax.
        activation_bytes: (base, per_sample) bytes a captured graph keeps in its pool.
        shape_name, default_shape, shapes: the shape knob, as in the zoo ("" for none).
        bf16_factor: per-sample time in bf16 relative to fp32 (half the bytes to move).
    """

    name: str
    about: str
    kernels: tuple[tuple[float, float], ...]
    host_us: float
    activation_bytes: tuple[int, int]
    shape_name: str = ""
    default_shape: int | None = None
    shapes: tuple[int, int] | None = None
    bf16_factor: float = 0.5

    def samples(self, batch: int, shape: int | None) -> float:
        """Batch × (shape / default shape): how many default-sized samples a step processes."""
        return batch * (shape / self.default_shape if (shape and self.default_shape) else 1.0)

    def scale(self, batch: int, shape: int | None, dtype: str) -> float:
        """The multiplier of per-sample time: samples × the dtype factor."""
        return self.samples(batch, shape) * (self.bf16_factor if dtype == "bf16" else 1.0)

    def kernel_us(self, batch: int, shape: int | None, dtype: str) -> list[float]:
        """The requested GPU time of each kernel of one step (the device applies its floor)."""
        s = self.scale(batch, shape, dtype)
        return [base + per * s for base, per in self.kernels]

    def pool_bytes(self, batch: int, shape: int | None, dtype: str) -> int:
        """Bytes a capture keeps: base + per_sample × samples (half the bytes per sample in bf16)."""
        base, per = self.activation_bytes
        return int(base + per * self.samples(batch, shape) * (1.0 if dtype == "fp32" else 0.5))


INPUT_KERNEL = (1.0, 0.002)  # reads the input: a small kernel, so its copy is small too


def _pattern(k: int, parts: list[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    """k kernels: the input kernel, then kernels cycling through `parts`."""
    return (INPUT_KERNEL, *(parts[i % len(parts)] for i in range(k - 1)))


MIB = 1 << 20

# Shaped after the zoo (kernel counts near the real models'), with made-up but plausible costs.
FAKE_ZOO: dict[str, FakeModel] = {m.name: m for m in (
    FakeModel("fake-mlp", "16 kernels: gemm + GELU pairs, slow growth with batch",
              _pattern(16, [(2.5, 0.03), (1.0, 0.008)]), 10.0, (2 * MIB, 4096)),
    FakeModel("fake-cnn", "54 kernels: conv, batch norm and ReLU, fast growth with batch",
              _pattern(54, [(3.0, 0.45), (1.5, 0.08), (1.0, 0.05)]), 10.0, (2 * MIB, 400_000),
              "image side", 32, (8, 128)),
    FakeModel("fake-encoder", "44 kernels: norm, gemm, attention, GELU; grows with tokens",
              _pattern(44, [(1.2, 0.05), (2.5, 0.35), (4.0, 0.5), (1.0, 0.1)]), 10.0, (2 * MIB, 260_000),
              "tokens", 64, (8, 1024)),
    FakeModel("fake-decoder", "150 tiny kernels: one decode step, barely grows with batch",
              _pattern(150, [(2.0, 0.004), (3.0, 0.02)]), 10.0, (2 * MIB, 20_000),
              "KV-cache slots", 128, (16, 1024)),
)}

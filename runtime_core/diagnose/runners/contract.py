"""The runner contract: what the diagnosis asks of a backend's runner, declared once.

Both runners satisfy it (tests/test_diagnose_sim.py checks): SimRunner (sim.py, fake models on a
SimDevice) and CudaRunner (cuda.py, real models on the GPU). Nothing above them asks which one
it holds.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Runner(Protocol):
    """A backend's side of a diagnosis: build a model step, profile it, time its variants.

    Attributes:
        backend: "sim" or "cuda" (for labels and records only).
        variants: the variant names this runner can measure ("eager", "our_graph", ...).
        catalog: the models it knows by name.
        cost_scale: its seconds per item against an H200's (to price a recording).
        device_name: what the recording names as the device.
        dev: the engine Device the steps run on.
    """

    backend: str
    variants: tuple[str, ...]
    catalog: dict
    cost_scale: float
    device_name: str
    dev: object

    def resolve(self, name: str): ...
    def build(self, spec, max_batch: int | None = None): ...
    def steps_at(self, spec, batches) -> dict: ...
    def profile(self, spec) -> dict: ...
    def relabel(self, spans): ...
    def timing_plan(self, guess_us: float) -> tuple[int, int, float]: ...
    def machine(self, constants: str = "live"): ...
    def reserved_bytes(self) -> int: ...
    def graph_pool_bytes(self, step, before: int, after: int) -> int: ...
    def variant(self, name: str, step): ...
    def cleanup(self) -> None: ...
    def close(self) -> None: ...
    def gpus(self) -> int | None: ...   # how many GPUs child processes can spread over (None: no limit)

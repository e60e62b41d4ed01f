"""Where an allocator's segments come from, one module per backend (base.py: what they share):

    sim.py    HostArenaBackend: host memory with fake addresses, on a SimDevice's clock
    cuda.py   CudaBackend: raw cudaMalloc / cudaFree through the CUDA runtime

`for_device(dev, capacity_bytes)` finds the one for a device by its backend, for our own
CachingPool: each segment it reserves is one real (or simulated) driver call.
"""
from __future__ import annotations

from ...knobs import Backend as BackendName
from .base import Backend
from .cuda import CudaBackend
from .sim import HostArenaBackend

_BY_BACKEND = {
    BackendName.SIM: lambda dev, cap: HostArenaBackend(cap, device=dev, driver_call_us=dev.params.driver_call_us),
    BackendName.CUDA: lambda dev, cap: CudaBackend(cap),
}


def for_device(dev, capacity_bytes: int) -> Backend:
    """An allocator backend over `dev`'s raw malloc/free (cudaMalloc on a GPU)."""
    return _BY_BACKEND[dev.backend](dev, capacity_bytes)

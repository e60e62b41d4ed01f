"""Where an allocator's segments come from, one module per backend (base.py: what they share):

    sim.py    HostArenaBackend: host memory with fake addresses, on a SimDevice's clock
    cuda.py   CudaBackend: raw cudaMalloc / cudaFree through the CUDA runtime

`for_device(dev, capacity_bytes)` finds the one for a device by its backend, for our own
CachingPool: each segment it reserves is one real (or simulated) driver call.
`torch_allocator_checks(dev)`: the experiments on PyTorch's own CUDA allocator (none on the
simulator, which has no torch memory).
"""
from __future__ import annotations

from ...knobs import Backend as BackendName
from .base import Backend
from .cuda import CudaBackend, torch_allocator_checks as _cuda_torch_checks
from .sim import HostArenaBackend

_BY_BACKEND = {
    BackendName.SIM: lambda dev, cap: HostArenaBackend(cap, device=dev, driver_call_us=dev.params.driver_call_us),
    BackendName.CUDA: lambda dev, cap: CudaBackend(cap),
}


def for_device(dev, capacity_bytes: int) -> Backend:
    """An allocator backend over `dev`'s raw malloc/free (cudaMalloc on a GPU)."""
    return _BY_BACKEND[dev.backend](dev, capacity_bytes)


_TORCH_CHECKS = {BackendName.SIM: lambda: {}, BackendName.CUDA: _cuda_torch_checks}


def torch_allocator_checks(dev) -> dict:
    """{"expandable": torch's expandable segments vs not, "graph_pool": a graph's private pool}
    on a GPU; {} on the simulator."""
    return _TORCH_CHECKS[dev.backend]()

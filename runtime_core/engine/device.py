"""The device interface that every executor talks to, and `get_device()` to pick a backend.

Two peers implement it: `SimDevice` (a discrete-event simulator on a virtual clock) and
`CudaDevice` (torch.cuda on a real GPU). Executors never ask which one they drive.

A backend provides:
    buffers    new_buffer(numel), numel_for_work(work_us), read(buf) -> list of floats
    kernels    launch_chain_kernel(buf): one GPU kernel that reads buf and writes buf + 1
               copy(dst, src): a device-to-device copy (a helper call, counted apart)
    streams    new_stream(), use_stream(s) (a context manager), current_stream()
    events     new_event() -> Event with record(stream), query() and wait(stream)
    sync       synchronize(): the host waits until every stream is idle
    graphs     capture(fn, pool) -> Graph with replay(); new_pool()
    host       host_spin(us): real host work (extra tax); host_now_us(): the host clock
    tracing    trace(): a context manager yielding a Trace of spans and API-call counts
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import NoCudaDevice
from ..knobs import Backend, parse_enum
from ..result import Span

# Names of the runtime API calls we count (CUDA runtime/driver spelling; the simulator uses them too).
LAUNCH_CALLS = ("cudaLaunchKernel", "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchKernelExC")
GRAPH_LAUNCH = "cudaGraphLaunch"
COPY_CALLS = ("cudaMemcpyAsync", "cudaMemcpy")
SYNC_CALLS = ("cudaDeviceSynchronize", "cudaStreamSynchronize")


@dataclass
class Trace:
    """What one traced region did: timeline spans (µs from the region's start) and API-call counts."""

    spans: list[Span] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    chrome_trace: dict | None = None

    def count(self, names) -> int:
        if isinstance(names, str):
            names = (names,)
        return sum(self.counts.get(n, 0) for n in names)

    @property
    def driver_calls(self) -> int:
        """Chain kernel launches plus graph launches (design.md); copies are counted apart."""
        return self.count(LAUNCH_CALLS) + self.count(GRAPH_LAUNCH)

    @property
    def copy_calls(self) -> int:
        return self.count(COPY_CALLS)

    @property
    def sync_calls(self) -> int:
        return self.count(SYNC_CALLS)

    def kernel_busy_us(self) -> float:
        return sum(s.dur_us for s in self.spans if s.lane == "gpu" and s.kind == "kernel")


def cuda_available() -> bool:
    """True when torch sees a working CUDA device."""
    try:
        import torch
        return bool(torch.cuda.is_available()) and torch.cuda.device_count() > 0
    except Exception:  # a broken driver must not take the app down
        return False


def resolve_backend(name: str) -> Backend:
    """"auto" -> "cuda" when torch sees a GPU, else "sim"; "cuda" without a GPU is an error.

    Raises:
        UsageError: `name` is not auto, cuda or sim.
        NoCudaDevice: "cuda" was asked for and there is no CUDA device.
    """
    backend = parse_enum(Backend, "backend", name)
    if backend == Backend.CUDA and not cuda_available():
        raise NoCudaDevice("backend 'cuda' asked for, but torch sees no CUDA device here")
    if backend == Backend.AUTO:
        return Backend.CUDA if cuda_available() else Backend.SIM
    return backend


def get_device(backend: str = "auto", **sim_params):
    """Return a device: "cuda", "sim", or "auto" (CUDA if torch.cuda works, else the simulator).

    Args:
        backend: "auto", "cuda" or "sim".
        sim_params: SimParams fields (tax_us, sync_us, ...) for the simulator.
    Raises:
        NoCudaDevice: backend "cuda" was asked for and no CUDA device is present.
    """
    if resolve_backend(backend) == Backend.CUDA:
        from .cuda_device import CudaDevice
        return CudaDevice.shared()
    from .sim_device import SimDevice, SimParams
    return SimDevice(SimParams.of(**sim_params))

"""The device contract every layer above talks to: a GPU's primitives, nothing more.

Two peers implement it in full: `SimDevice` (sim/device.py, a discrete-event GPU on a virtual
clock) and `CudaDevice` (cuda/device.py, torch.cuda on a real GPU); backends.py's get_device()
picks one. Nothing outside the backends' own modules asks which one it drives: executors,
measure(), calibration, the labs and the allocator comparison are written once against `Device`.
As in tinygrad's device.py, the hooks below are abstract (a peer that lacks one fails loudly at
construction), and policy lives above them. Services built on a device (pricing: cost.py,
tracing a step: tracing.py, native launching: native.py, a recording's facts: backends.py, the
allocator's raw backend: allocator/backends/) take the device and are found by its backend.

A peer also declares what it is, for labels and records only (never branch on them):
    name          "NVIDIA H200", "SimDevice (simulated)"
    backend       Backend.CUDA or Backend.SIM (written into recordings)
    source_label  "live" or "simulated": what a page shows beside a number from this device
and two facts that change *how* a measurement is made, not what it runs:
    deterministic   every run gives the same answer, so one timing pass is enough
    torch_device    where torch tensors of this device's models live ("cuda"; the simulator
                    has no tensor memory, so torch models beside it run on "cpu")
"""
from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
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
    """What one traced region did: timeline spans (µs from the region's start) and API-call counts.

    `host_free_us` is when the host finished dispatching, where the device knows it without
    disturbing the host (the simulator does; a profiler inflates host spans, so CUDA leaves None).
    """

    spans: list[Span] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    chrome_trace: dict | None = None
    host_free_us: float | None = None

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


class Device(ABC):
    """The operations a runtime needs from a GPU, in µs and elements of float32.

    Buffers are opaque handles with `.numel`, `.shape` and `.address`; streams and events are
    the peer's own objects; a graph has `replay()`.
    """

    name: str
    backend: Backend
    source_label: str
    deterministic: bool
    torch_device: str

    # ---- buffers ---------------------------------------------------------------------------
    @abstractmethod
    def new_buffer(self, numel: int):
        """A device buffer of `numel` float32 values from the framework's (caching) allocator."""

    @abstractmethod
    def fill(self, buf, value: float) -> None:
        """Set every element of `buf` to `value`: a kernel on the current stream."""

    @abstractmethod
    def read(self, buf) -> list[float]:
        """The values of `buf` on the host (waits for all queued work first)."""

    @abstractmethod
    def item(self, buf) -> float:
        """The first value of `buf` on the host, like `tensor.item()`: a device-to-host copy on
        the current stream, and the host waits for that stream to reach it."""

    @abstractmethod
    def view_prefix(self, buf, numel: int):
        """The first `numel` elements of `buf`, sharing its memory and address."""

    @abstractmethod
    def numel_for_work(self, work_us: float) -> int:
        """Elements that make one chain kernel take about `work_us` on this device."""

    @abstractmethod
    def chain_busy_us(self, n: int, numel: int) -> float:
        """GPU busy time of `n` chain kernels over `numel` elements, µs (timed in bulk)."""

    @abstractmethod
    def reserved_bytes(self) -> int:
        """Bytes the framework's allocator holds from the device (pools included)."""

    @abstractmethod
    def allocated_bytes(self) -> int:
        """Bytes of live buffers handed out by the framework's allocator."""

    @abstractmethod
    def new_host_buffer(self, numel: int, pinned: bool):
        """A host buffer of `numel` float32 values: pinned (page-locked) or pageable."""

    @abstractmethod
    def copy_from_host(self, dst, src) -> None:
        """Upload `src` (a host buffer) into `dst` on the current stream. From pinned memory the
        host only enqueues a DMA; from pageable memory the host stages the bytes and waits."""

    # ---- kernels and copies ----------------------------------------------------------------
    @abstractmethod
    def launch_chain_kernel(self, buf) -> None:
        """One kernel on the current stream: buf += 1 (costs the launch tax on the host)."""

    def launch_chain(self, buf, n: int, spin_us: float = 0.0) -> None:
        """n chain kernels on the current stream, asynchronously, with host_spin(spin_us) before
        each launch. Here one by one (the hot loop a GPU measurement times); the simulator
        computes the same run in bulk."""
        launch = self.launch_chain_kernel  # bound once: this loop is the hot path being measured
        if spin_us <= 0:
            for _ in range(n):
                launch(buf)
            return
        spin = self.host_spin
        for _ in range(n):
            spin(spin_us)
            launch(buf)

    def launch_chain_blocking(self, buf, n: int, spin_us: float = 0.0) -> None:
        """Blocking dispatch of n chain kernels: host_spin(spin_us), launch, synchronize, n times."""
        launch, sync, spin = self.launch_chain_kernel, self.synchronize, self.host_spin
        for _ in range(n):
            if spin_us:
                spin(spin_us)
            launch(buf)
            sync()

    @abstractmethod
    def launch_busy_kernel(self, us: float) -> None:
        """One kernel that keeps the GPU busy for about `us` and touches no buffer."""

    @abstractmethod
    def copy(self, dst, src) -> None:
        """dst[:src.numel] = src on the current stream (a device-to-device cudaMemcpyAsync)."""

    @abstractmethod
    def copy_broadcast(self, dst, src) -> None:
        """dst = src with torch's `dst.copy_(src)` rules, on the current stream: src is broadcast
        to dst's shape (a one-element src fills all of dst), and shapes that do not broadcast
        raise RuntimeError before anything is enqueued. Equal shapes are a plain device copy;
        a broadcast is an elementwise kernel."""

    @abstractmethod
    def add(self, dst, src) -> None:
        """dst += src on the current stream (one kernel, like `dst.add_(src)`); src broadcasts to
        dst's shape as in copy_broadcast, and shapes that do not broadcast raise RuntimeError."""

    @abstractmethod
    def reduce_sum(self, dst, src) -> None:
        """dst[0] = the sum of every element of src, on the current stream (one reduction kernel,
        like `torch.sum(src, out=dst[:1])`). The rest of dst is left as it was."""

    # ---- streams, events, sync -------------------------------------------------------------
    @abstractmethod
    def new_stream(self):
        """A new stream: a FIFO queue of GPU work."""

    @abstractmethod
    def current_stream(self):
        """The stream launches go to now."""

    @abstractmethod
    def use_stream(self, stream) -> contextlib.AbstractContextManager:
        """A context manager that makes `stream` current."""

    @abstractmethod
    def wait_stream(self, waiter, producer) -> None:
        """Make `waiter` wait for everything enqueued on `producer` so far (no host blocking)."""

    @abstractmethod
    def new_event(self):
        """An event with record(stream), query() and wait(stream)."""

    @abstractmethod
    def synchronize(self) -> None:
        """The host waits until every stream is idle."""

    # ---- graphs ----------------------------------------------------------------------------
    @abstractmethod
    def new_pool(self):
        """A private memory pool: graphs captured into it keep stable addresses on replay."""

    @abstractmethod
    def capture(self, fn, pool=None, stream=None):
        """Record the launches `fn` makes on `stream` into a graph, without running them.
        Callers warm `fn` up first and order the streams: see engine/capture.py. A region that
        synchronizes (or otherwise cannot be captured) raises errors.CaptureError, and the
        device is usable afterwards."""

    # ---- correctness -----------------------------------------------------------------------
    @abstractmethod
    def races_seen(self, fn) -> list[str] | None:
        """Run `fn()` and return the data races it caused, one message each: two ops on different
        streams that touch one buffer, one of them a write, with no event, stream wait or host
        sync ordering them. An empty list means none was found. None means this device cannot
        tell: a real GPU runs a race silently, so CudaDevice runs `fn` and returns None, and
        only the values it produced can show the damage. (SimDevice checks every op with its
        race detector and, inside `fn`, collects races instead of raising.)"""

    # ---- the host --------------------------------------------------------------------------
    @abstractmethod
    def host_now_us(self) -> float:
        """The host clock, µs (virtual on the simulator)."""

    @abstractmethod
    def host_spin(self, us: float, name: str = "extra host tax") -> None:
        """Spend `us` of real host work (the extra-tax knob); `name` labels it in a trace."""

    @abstractmethod
    def measure_tax(self) -> float:
        """Measure the host cost of one chain-kernel launch now, µs, and keep it."""

    @abstractmethod
    def intrinsic_tax_us(self) -> float:
        """The launch tax of the latest measurement (measured once if never), µs."""

    # ---- tracing ---------------------------------------------------------------------------
    @abstractmethod
    def trace(self, warmup=None) -> contextlib.AbstractContextManager:
        """Trace the enclosed region in this process; yields a Trace filled on exit."""

    # ---- what the device is ----------------------------------------------------------------
    @abstractmethod
    def known_constants(self):
        """The model Constants this device is built from, if it knows them (the simulator
        does); None where they must be measured (calibrate)."""


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

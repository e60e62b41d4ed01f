"""CudaDevice: the device interface on a real GPU through torch.cuda.

The chain kernel is `x.add_(1)` on a float32 buffer: one real GPU kernel that reads and writes
the step's input. Its GPU time is set by the buffer's size, through a size→time table that
`sizing.py` measures on first use (a bulk timing of replayed graphs, never one event
pair around one tiny kernel). Host-side extra tax is a real busy-wait.
"""
from __future__ import annotations

import contextlib
import threading
import time

import torch

from ...errors import CaptureError
from ...knobs import Backend
from .objects import CudaBuffer, CudaEvent, CudaGraph, CudaHostBuffer
from ..device import Device
from .sizing import SizeTable, measure_size_table, sleep_cycles_per_us
from ..profiler_trace import trace_region


class CudaDevice(Device):
    """The real GPU. Use `CudaDevice.shared()`: the sizing tables are per process."""

    backend = Backend.CUDA
    source_label = "live"
    deterministic = False
    torch_device = "cuda"
    _shared: "CudaDevice | None" = None
    _lock = threading.Lock()

    def __init__(self, index: int = 0, in_worker: bool = False):
        torch.cuda.init()
        self.index = index
        self.in_worker = in_worker
        self._pinned: dict[float, int] = {}
        self.name = torch.cuda.get_device_name(index)
        self._sizes: SizeTable | None = None
        self._tax_us: float | None = None
        self._busy_cache: dict[tuple[int, int], float] = {}
        self._cycles_per_us: float | None = None
        if in_worker:
            with trace_region():  # the first profile of a process is slow; pay it up front
                self.launch_chain_kernel(self.new_buffer(1))

    @classmethod
    def shared(cls) -> "CudaDevice":
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    # ---- clocks -------------------------------------------------------------------------
    def host_now_us(self) -> float:
        return time.perf_counter_ns() / 1000.0

    def host_spin(self, us: float, name: str = "extra host tax") -> None:
        """Busy-wait `us` on the host: extra launch tax as real host work, not a sleep."""
        if us <= 0:
            return
        end = time.perf_counter_ns() + int(us * 1000)
        if not self.in_worker:  # record_function costs µs of its own: only where we trace
            while time.perf_counter_ns() < end:
                pass
            return
        with torch.profiler.record_function(name):
            while time.perf_counter_ns() < end:
                pass

    # ---- buffers ------------------------------------------------------------------------
    def new_buffer(self, numel: int) -> CudaBuffer:
        """An uninitialised buffer: no fill kernel, so allocating inside a step (a recapture's
        static input) launches nothing that would be miscounted as a chain kernel."""
        return CudaBuffer(torch.empty(int(numel), device="cuda", dtype=torch.float32))

    def reserved_bytes(self) -> int:
        """Bytes PyTorch's caching allocator holds on this GPU (pools included)."""
        return torch.cuda.memory_reserved()

    def allocated_bytes(self) -> int:
        return torch.cuda.memory_allocated()

    def new_host_buffer(self, numel: int, pinned: bool) -> CudaHostBuffer:
        return CudaHostBuffer(numel, pinned)

    def copy_from_host(self, dst: CudaBuffer, src: CudaHostBuffer) -> None:
        """non_blocking upload: from pinned memory a DMA the host only enqueues; from pageable
        memory the driver stages the bytes and the host waits."""
        n = src.numel
        if dst.numel < n:
            raise ValueError(f"upload of {n} elements into a buffer of {dst.numel}")
        (dst.t if dst.numel == n else dst.t[:n]).copy_(src.t, non_blocking=True)

    def item(self, buf: CudaBuffer) -> float:
        return float(buf.t[0].item())

    def sizes(self) -> SizeTable:
        if self._sizes is None:
            self._sizes = measure_size_table(self)
        return self._sizes

    def numel_for_work(self, work_us: float) -> int:
        """Elements that make one `add_` kernel take about `work_us` on this GPU."""
        if work_us in self._pinned:
            return self._pinned[work_us]
        return self.sizes().numel_for(work_us)

    def pin_numel(self, work_us: float, numel: int) -> None:
        """Use `numel` for `work_us` (a trace worker copies the measuring process's sizing)."""
        self._pinned[work_us] = int(numel)

    def read(self, buf: CudaBuffer) -> list[float]:
        return buf.t.tolist()

    def fill(self, buf: CudaBuffer, value: float) -> None:
        buf.t.fill_(value)

    def view_prefix(self, buf: CudaBuffer, numel: int) -> CudaBuffer:
        return CudaBuffer(buf.t[:numel])

    # ---- streams and events -------------------------------------------------------------
    def new_stream(self):
        return torch.cuda.Stream()

    def current_stream(self):
        return torch.cuda.current_stream()

    def use_stream(self, stream):
        return torch.cuda.stream(stream)

    def new_event(self) -> CudaEvent:
        return CudaEvent()

    def wait_stream(self, waiter, producer) -> None:
        """Make `waiter` wait for everything enqueued on `producer` so far (no host blocking)."""
        waiter.wait_stream(producer)

    def synchronize(self) -> None:
        torch.cuda.synchronize()

    # ---- kernels and copies -------------------------------------------------------------
    def launch_chain_kernel(self, buf: CudaBuffer) -> None:
        buf.t.add_(1.0)

    def launch_busy_kernel(self, us: float) -> None:
        """torch.cuda._sleep: a kernel that spins for a number of GPU clock cycles, converted
        from µs with a rate measured once on this GPU (sizing.sleep_cycles_per_us)."""
        if self._cycles_per_us is None:
            self._cycles_per_us = sleep_cycles_per_us(self)
        torch.cuda._sleep(max(1, int(us * self._cycles_per_us)))

    def copy(self, dst: CudaBuffer, src: CudaBuffer) -> None:
        """dst[:src.numel] = src, a device-to-device cudaMemcpyAsync."""
        n = src.t.numel()
        if dst.t.numel() < n:
            raise ValueError(f"copy of {n} elements into a buffer of {dst.t.numel()}")
        (dst.t if dst.t.numel() == n else dst.t[:n]).copy_(src.t)

    def copy_broadcast(self, dst: CudaBuffer, src: CudaBuffer) -> None:
        """`dst.copy_(src)`: torch broadcasts src to dst's shape, or raises RuntimeError."""
        dst.t.copy_(src.t)

    def add(self, dst: CudaBuffer, src: CudaBuffer) -> None:
        """`dst.add_(src)`: one elementwise kernel; src broadcasts, or torch raises RuntimeError."""
        dst.t.add_(src.t)

    def reduce_sum(self, dst: CudaBuffer, src: CudaBuffer) -> None:
        """dst[0] = sum(src), written in place by one reduction kernel (no temporary tensor,
        so it is safe inside a graph capture)."""
        torch.sum(src.t.reshape(-1), 0, keepdim=True, out=dst.t[:1])

    # ---- correctness --------------------------------------------------------------------
    def races_seen(self, fn) -> None:
        """A GPU runs a data race silently: run `fn()` and return None ("cannot tell"). Only
        the values `fn` produced can show a race here; the simulator names them."""
        fn()
        return None

    # ---- graphs -------------------------------------------------------------------------
    def new_pool(self):
        """A private memory pool: graphs captured into it get stable addresses on replay."""
        return torch.cuda.graph_pool_handle()

    def capture(self, fn, pool=None, stream=None) -> CudaGraph:
        """Capture the launches `fn` makes on `stream` (torch's own side stream if None) into a
        graph. Callers warm `fn` up first: see engine/capture.py."""
        g = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(g, pool=pool, stream=stream):
                fn()
        except RuntimeError as e:  # the capture is over (torch.cuda.graph ends it on the way out)
            if isinstance(e, CaptureError):
                raise
            del g
            self._recover_after_capture()
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise CaptureError(f"capture failed: {first}; the capture was abandoned") from e
        return CudaGraph(g)

    @staticmethod
    def _recover_after_capture() -> None:
        """After a failed capture: clear CUDA's last error and wait for the device, so the next
        launch starts clean. A capture error is not sticky; if synchronize still fails the
        context is broken and that error propagates (a real bug, not a user's)."""
        try:
            torch.cuda.synchronize()
        except RuntimeError:
            torch.cuda.synchronize()

    # ---- measurement helpers ------------------------------------------------------------
    def measure_tax(self, batches: int = 7, launches: int = 400) -> float:
        """Measure the launch tax now (host µs per launch, median of batches) and keep it.

        The host drifts between faster and slower states, so measure() calls this right
        before it times a point: the tax a point is compared with is the tax of that moment.
        """
        x = self.new_buffer(1)
        for _ in range(20):
            x.t.add_(1.0)
        torch.cuda.synchronize()
        per_launch = []  # batches stay well under the 1024-entry launch queue: no blocking
        for _ in range(batches):
            t0 = time.perf_counter_ns()
            for _ in range(launches):
                x.t.add_(1.0)
            per_launch.append((time.perf_counter_ns() - t0) / 1000.0 / launches)
            torch.cuda.synchronize()
        self._tax_us = sorted(per_launch)[len(per_launch) // 2]
        return self._tax_us

    def intrinsic_tax_us(self) -> float:
        """Host time of one chain-kernel launch with nothing added, µs (the latest measurement)."""
        if self._tax_us is None:
            self.measure_tax()
        return self._tax_us

    def chain_busy_us(self, n: int, numel: int) -> float:
        """GPU time of n chain kernels over `numel` elements, timed in bulk from graph replays."""
        key = (n, numel)
        if key not in self._busy_cache:
            self._busy_cache[key] = self.sizes().time_chain_us(self, n, numel)
        return self._busy_cache[key]

    @contextlib.contextmanager
    def trace(self, warmup=None):
        """Profile the enclosed region with torch.profiler; yields a Trace filled on exit.
        Use it in the trace worker only: see trace_worker.py for why (and tracing.py for
        trace_step, which sends a step there)."""
        with trace_region(warmup) as tr:
            yield tr

    # ---- what the device is --------------------------------------------------------------
    def known_constants(self):
        """A real GPU's constants are not known: calibrate() measures them."""
        return None

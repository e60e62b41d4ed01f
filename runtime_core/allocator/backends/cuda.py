"""CudaBackend: real device memory from raw cudaMalloc/cudaFree (ctypes on the CUDA runtime
that torch ships), with torch.cuda streams and events for stream-aware reuse.

We cannot borrow PyTorch's allocator for segments (it caches, so "driver mallocs" would be
invisible), so we call the runtime ourselves. Nothing CUDA-only is imported at module import
time: a CPU-only machine imports this file fine and only fails, with a clear message, when a
CudaBackend is constructed.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import os

from .base import Backend
from ..errors import BackendOutOfMemory, fmt_bytes
from ..sizes import MiB

CUDA_SUCCESS = 0
CUDA_ERROR_MEMORY_ALLOCATION = 2


def _candidate_paths() -> list[str]:
    import torch
    paths = []
    try:  # 1. the copy torch already loaded into this process
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths += [ln.split()[-1] for ln in maps if "libcudart.so" in ln]
    except OSError:
        pass
    site = os.path.dirname(os.path.dirname(torch.__file__))  # 2. the nvidia-* wheels next to torch
    paths += sorted(glob.glob(os.path.join(site, "nvidia", "**", "libcudart.so*"), recursive=True))
    paths += sorted(glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libcudart*.so*")))
    found = ctypes.util.find_library("cudart")  # 3. the system's
    return list(dict.fromkeys(paths + ([found] if found else [])))


@functools.lru_cache(maxsize=1)
def cudart() -> ctypes.CDLL:
    """The CUDA runtime library as a ctypes CDLL, with cudaMalloc/cudaFree signatures set.

    Raises RuntimeError if torch sees no CUDA device or no libcudart can be loaded.
    """
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("CudaBackend needs a CUDA device; torch sees none")
    torch.cuda.init()  # creates the primary context our raw calls will use
    for path in _candidate_paths():
        try:
            lib = ctypes.CDLL(path)
            lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
            lib.cudaMalloc.restype = ctypes.c_int
            lib.cudaFree.argtypes = [ctypes.c_void_p]
            lib.cudaFree.restype = ctypes.c_int
            lib.cudaGetLastError.restype = ctypes.c_int
            return lib
        except (OSError, AttributeError):
            continue
    raise RuntimeError("could not load libcudart (looked in this process, torch's nvidia wheels "
                       "and the system); raw cudaMalloc is unavailable")


def raw_malloc(nbytes: int) -> int:
    """cudaMalloc(nbytes) -> device address. Raises BackendOutOfMemory or RuntimeError."""
    lib = cudart()
    ptr = ctypes.c_void_p()
    rc = lib.cudaMalloc(ctypes.byref(ptr), nbytes)
    if rc != CUDA_SUCCESS:
        lib.cudaGetLastError()  # clear it, or torch's next kernel-launch check would report it
        if rc == CUDA_ERROR_MEMORY_ALLOCATION:
            raise BackendOutOfMemory(f"cudaMalloc({fmt_bytes(nbytes)}) failed: out of memory")
        raise RuntimeError(f"cudaMalloc({nbytes}) failed with CUDA error {rc}")
    return int(ptr.value)


def raw_free(address: int) -> None:
    """cudaFree(address). Note: cudaFree waits for the device to finish outstanding work."""
    rc = cudart().cudaFree(ctypes.c_void_p(address))
    if rc != CUDA_SUCCESS:
        raise RuntimeError(f"cudaFree({address:#x}) failed with CUDA error {rc}")


class _DeviceBytes:
    """Exposes raw device bytes through __cuda_array_interface__, so torch.as_tensor can view them."""

    def __init__(self, address: int, nbytes: int):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                         "data": (address, False), "version": 2}


class CudaBackend(Backend):
    """Segments from cudaMalloc on the current CUDA device.

    Args:
        capacity_bytes: the most this pool may reserve (default 256 MiB, and never more than
            90% of the device's free memory), so an OOM is reachable without starving torch.
    """

    name = "cuda (raw cudaMalloc)"
    supports_expandable = False  # PyTorch's own expandable_segments is compared instead (compare.py)

    def __init__(self, capacity_bytes: int = 256 * MiB):
        cudart()  # fail now, clearly, if there is no CUDA
        import torch
        free_bytes, _ = torch.cuda.mem_get_info()
        super().__init__(min(int(capacity_bytes), int(free_bytes * 0.9)))
        self._torch = torch

    def _alloc(self, nbytes: int):
        address = raw_malloc(nbytes)
        return address, address

    def _free(self, handle: int) -> None:
        # The pool only frees wholly free segments after waiting for their events, but torch may
        # still have kernels queued on them from the caller's side: cudaFree syncs, which covers it.
        raw_free(handle)

    def view(self, handle: int, offset_bytes: int, nbytes: int):
        """The block as a torch.uint8 CUDA tensor (a view: it does not own the memory)."""
        return self._torch.as_tensor(_DeviceBytes(handle + offset_bytes, nbytes), device="cuda")

    def device_buffer(self, block):
        """The block as a CudaBuffer of float32 (a view over the raw cudaMalloc memory)."""
        from ...engine.cuda.objects import CudaBuffer
        raw = self.view(block.segment.handle, block.offset_bytes, block.requested_bytes)
        return CudaBuffer(raw.view(self._torch.float32))

    def current_stream(self):
        return self._torch.cuda.current_stream()

    def new_event(self):
        return self._torch.cuda.Event()

    def wait_event(self, event) -> None:
        event.synchronize()


def torch_allocator_checks() -> dict:
    """Experiments on PyTorch's own CUDA allocator, beside ours (graph_pool.py, torch_expandable.py)."""
    from ..graph_pool import cuda_graph_pool_check
    from ..torch_expandable import torch_expandable_comparison
    return {"expandable": torch_expandable_comparison(), "graph_pool": cuda_graph_pool_check()}

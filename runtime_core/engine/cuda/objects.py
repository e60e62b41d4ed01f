"""CudaDevice's handles: device and host buffers, events and graphs, over torch.cuda objects."""
from __future__ import annotations

import torch


class CudaBuffer:
    """A float32 CUDA tensor with the attributes executors use: numel, shape, address."""

    __slots__ = ("t",)

    def __init__(self, t: torch.Tensor):
        self.t = t

    @property
    def numel(self) -> int:
        return self.t.numel()

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.t.shape)

    @property
    def address(self) -> int:
        return self.t.data_ptr()


class CudaHostBuffer:
    """A float32 host tensor, pinned (page-locked) or pageable."""

    __slots__ = ("t", "pinned")

    def __init__(self, numel: int, pinned: bool):
        self.t = torch.empty(int(numel), dtype=torch.float32, pin_memory=pinned)
        self.pinned = pinned

    @property
    def numel(self) -> int:
        return self.t.numel()


class CudaEvent:
    """torch.cuda.Event with the interface's record / query / wait."""

    def __init__(self):
        self.ev = torch.cuda.Event()

    def record(self, stream=None) -> None:
        self.ev.record(stream or torch.cuda.current_stream())

    def query(self) -> bool:
        return self.ev.query()

    def wait(self, stream=None) -> None:
        (stream or torch.cuda.current_stream()).wait_event(self.ev)


class CudaGraph:
    """A captured torch.cuda.CUDAGraph; replay() is one cudaGraphLaunch."""

    def __init__(self, g: torch.cuda.CUDAGraph):
        self.g = g

    def replay(self) -> None:
        self.g.replay()

"""The chain launched from native code (a launch tax of a few µs), found by the device's backend:
cuda/native.py builds and runs a C++ launcher, sim/native.py simulates one. Both answer
`measure(points) -> [{mode, n, work_us, wall_us, tax_us, kernel_time_us}]`.
"""
from __future__ import annotations

from ..knobs import Backend
from .cuda.native import CppChainLauncher
from .sim.native import SimChainLauncher

_BY_BACKEND = {Backend.SIM: SimChainLauncher, Backend.CUDA: CppChainLauncher}


def native_launcher(dev):
    """The native chain launcher of `dev`'s backend."""
    return _BY_BACKEND[dev.backend](dev)

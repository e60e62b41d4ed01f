"""The diagnosis's runners, one module per backend, and `get_runner()` to find one by its name.

    contract.py   Runner, the typing.Protocol both satisfy
    sim.py        SimRunner: fake models (fake_models.py) on a SimDevice
    cuda.py       CudaRunner: zoo and user models on this machine's GPU
"""
from __future__ import annotations

from ...engine.device import resolve_backend
from ...knobs import Backend
from .contract import Runner


def _sim(in_worker: bool) -> Runner:
    from .sim import SimRunner
    return SimRunner()


def _cuda(in_worker: bool) -> Runner:
    from .cuda import CudaRunner
    return CudaRunner(in_worker=in_worker)


_BY_BACKEND = {Backend.SIM: _sim, Backend.CUDA: _cuda}


def get_runner(backend: str = "auto", in_worker: bool = False) -> Runner:
    """A CudaRunner when the backend resolves to CUDA, else a SimRunner (fake models).
    `in_worker`: inside the profile worker (a CUDA runner then profiles in-process)."""
    return _BY_BACKEND[resolve_backend(backend)](in_worker)

"""The backends by name. Each one is a package under engine/ with the same parts, and every
service finds a device's part by `dev.backend`, never by asking which device it holds:

    part          sim/ (the simulator)         cuda/ (a real GPU)
    device        device.py  SimDevice         device.py  CudaDevice (+ objects.py, sizing.py)
    pricing       cost.py    SimCostModel      cost.py    CudaCostModel        -> ../cost.py
    tracing       tracing.py in-process        tracing.py trace worker process -> ../tracing.py
    native chain  native.py  SimChainLauncher  native.py  CppChainLauncher     -> ../native.py

get_device() builds one; describe() and use_sizing() are a recording's facts about it. The
simulator gets its named costs (constants) from whoever builds it: here the default is every
cost zero, and recordings/shipped.py's get_device() passes the shipped H200's.
"""
from __future__ import annotations

import dataclasses

from ..constants import Constants
from ..knobs import Backend
from .device import Device, resolve_backend


def _sim(constants: Constants | None, **sim_params) -> Device:
    from .sim.device import SimDevice
    from .sim.params import SimParams
    return SimDevice(SimParams.of(machine=constants, **sim_params))  # sim_params' costs override


def _cuda(constants: Constants | None, **sim_params) -> Device:
    from .cuda.device import CudaDevice
    return CudaDevice.shared()  # a real GPU has its own costs: calibrate() measures them


_DEVICES = {Backend.SIM: _sim, Backend.CUDA: _cuda}


def get_device(backend: str = "auto", constants: Constants | None = None, **sim_params) -> Device:
    """Return a device: "cuda", "sim", or "auto" (CUDA if torch.cuda works, else the simulator).

    Args:
        backend: "auto", "cuda" or "sim".
        constants: the simulator's named costs (default: every one zero); a GPU ignores them.
        sim_params: SimParams fields (tax_us, sync_us, ...) for the simulator.
    Raises:
        NoCudaDevice: backend "cuda" was asked for and no CUDA device is present.
    """
    return _DEVICES[resolve_backend(backend)](constants, **sim_params)


def _sim_facts(dev) -> dict:
    p = dev.params
    return {"sim_params": {**{k: v for k, v in dataclasses.asdict(p).items() if k != "machine"},
                           "machine": p.machine.as_dict()}}


def _cuda_facts(dev) -> dict:
    return {"kernel_size_table": dev.sizes().as_dict()}


def _sim_sizing(dev, table: dict | None) -> None:
    """Sizing is a parameter here (elems_per_us): nothing to load."""


def _cuda_sizing(dev, table: dict | None) -> None:
    if table:
        from .cuda.sizing import SizeTable
        dev._sizes = SizeTable(table["numels"], table["us"])


_FACTS = {Backend.SIM: _sim_facts, Backend.CUDA: _cuda_facts}
_SIZING = {Backend.SIM: _sim_sizing, Backend.CUDA: _cuda_sizing}


def describe(dev) -> dict:
    """Facts for a recording's meta: the simulator's parameters, a GPU's kernel-size table."""
    return _FACTS[dev.backend](dev)


def use_sizing(dev, table: dict | None) -> None:
    """Size chain kernels with a recording's kernel-size table (no-op where sizing is a
    parameter), so a re-trace uses the buffers a recording was timed with."""
    _SIZING[dev.backend](dev, table)

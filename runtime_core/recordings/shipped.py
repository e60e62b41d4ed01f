"""The shipped H200 recording's constants, and the lesson's device built with them.

The simulator reads no recording (engine/sim/params.py): this layer, which knows the recordings,
reads sweep_h200.json's calibration (and alloc_h200.json's raw driver call) and passes it down,
so the simulated device behaves like the GPU the lesson was measured on. get_device() here is what
the CLI, the labs and the pages use.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

from ..constants import Constants
from ..engine import backends
from ..engine.device import Device
from ..engine.sim.params import SIM_MACHINE
from ..errors import RecordingError
from .store import RECORDINGS_DIR, load

SHIPPED_SWEEP = "sweep_h200.json"  # the shipped H200 recording whose calibration the simulator runs
SHIPPED_ALLOC = "alloc_h200.json"  # ... and the one whose raw cudaMalloc + cudaFree pair it prices


@lru_cache(maxsize=1)
def shipped_constants() -> Constants:
    """The calibrated constants of the shipped H200 recording (gaps included): what the lesson's
    simulated device runs with. Falls back to SIM_MACHINE (all costs zero) if the recording is
    missing or broken."""
    try:
        cal = load(RECORDINGS_DIR / SHIPPED_SWEEP, kind="sweep").meta.calibration
    except RecordingError:
        return dataclasses.replace(SIM_MACHINE, source=f"no {SHIPPED_SWEEP}: every cost zero")
    return dataclasses.replace(cal, static_copy=True, miss_runs="streams",
                               source=f"calibrated constants of the shipped {SHIPPED_SWEEP}")


@lru_cache(maxsize=1)
def shipped_driver_call_us() -> float:
    """One raw cudaMalloc or cudaFree on the shipped H200: half the alloc recording's measured
    1 MiB pair, so the simulated allocator rows and the recorded ones agree. 0 (free, as every
    cost of SIM_MACHINE) if the recording is missing or broken."""
    try:
        pair = load(RECORDINGS_DIR / SHIPPED_ALLOC, kind="alloc").data["labs"]["alloc"]["allocators"]["raw"]
        return float(pair["alloc_free_us"]) / 2
    except (RecordingError, KeyError, TypeError, ValueError):
        return 0.0


def get_device(backend: str = "auto", **sim_params) -> Device:
    """The lesson's device: CUDA when asked for (or "auto" with a GPU), else the simulator running
    the shipped H200's constants and driver-call cost (SimParams fields in `sim_params` override
    them, e.g. tax_us).

    Raises:
        NoCudaDevice: backend "cuda" was asked for and no CUDA device is present.
    """
    sim_params.setdefault("driver_call_us", shipped_driver_call_us())
    return backends.get_device(backend, constants=shipped_constants(), **sim_params)

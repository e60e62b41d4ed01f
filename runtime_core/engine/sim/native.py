"""The chain "launched from native code" on the simulator: the same points as the CUDA backend's
C++ launcher (../cuda/native.py), on a simulated device whose launch tax is the one that launcher
measured on the H200.
"""
from __future__ import annotations

import dataclasses

from ...knobs import GraphInput, Knobs
from ..measure import measure
from .device import SimDevice

# What the C++ chain launcher's launch cost was on the H200 (issue 12's probe: ≈4 µs per launch).
SIM_NATIVE_TAX_US = 4.0


class SimChainLauncher:
    """The same points on a simulated device whose launch tax is the C++ launcher's."""

    def __init__(self, dev):
        self.dev = dev

    def measure(self, points: list[dict], reps: int = 3) -> list[dict]:
        dev = SimDevice(dataclasses.replace(self.dev.params, tax_us=SIM_NATIVE_TAX_US))
        out = []
        for p in points:
            r = measure(dev, Knobs(p["mode"], p["n"], float(p["work_us"]), graph_input=GraphInput.ZERO_COPY),
                        repeats=reps, trace=False)
            out.append({"mode": p["mode"], "n": p["n"], "work_us": p["work_us"], "wall_us": r.wall_us,
                        "tax_us": dev.intrinsic_tax_us(), "kernel_time_us": r.kernel_work_us})
        return out

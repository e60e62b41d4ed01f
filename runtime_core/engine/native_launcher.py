"""The chain launched from native code: a launch tax of a few µs instead of Python's ~9.

Python cannot launch a kernel for much less than ~9 µs on the H200, so the regime where the tax
sits *below* the work (raw CUDA, a C++ runtime, a fast host) needs another launcher. Each peer
has one, behind the same call: `measure(points) -> [{mode, n, work_us, wall_us, tax_us,
kernel_time_us}]`.

    CppChainLauncher   chain_launcher.cpp built with g++ against the installed libtorch, running
                       sleep kernels (at::cuda::sleep) in eager, streams and graph mode
    SimChainLauncher   the simulator with the launch tax the C++ launcher measured on the H200
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("chain_launcher.cpp")
# What the C++ chain launcher's launch cost was on the H200 (issue 12's probe: ≈4 µs per launch).
SIM_NATIVE_TAX_US = 4.0


class CppChainLauncher:
    """Runs chain_launcher.cpp on the GPU of `dev` (built once per torch install, cached)."""

    def __init__(self, dev):
        self.dev = dev

    def measure(self, points: list[dict], reps: int = 9, timeout_s: float = 300.0) -> list[dict]:
        from ..aot.cpp_runner import build_binary
        from .kernel_sizing import sleep_cycles_per_us
        exe, _ = build_binary(SOURCE, "chain_launcher", cuda=True)
        args = [str(exe), f"{sleep_cycles_per_us(self.dev):.3f}", str(reps)]
        for p in points:
            args += [p["mode"], str(p["n"]), f"{p['work_us']:g}"]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s)
        if proc.returncode != 0:
            raise RuntimeError(f"chain_launcher failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
        return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


class SimChainLauncher:
    """The same points on a simulated device whose launch tax is the C++ launcher's."""

    def __init__(self, dev):
        self.dev = dev

    def measure(self, points: list[dict], reps: int = 3) -> list[dict]:
        import dataclasses
        from ..knobs import GraphInput, Knobs
        from .measure import measure
        from .sim_device import SimDevice
        dev = SimDevice(dataclasses.replace(self.dev.params, tax_us=SIM_NATIVE_TAX_US))
        out = []
        for p in points:
            r = measure(dev, Knobs(p["mode"], p["n"], float(p["work_us"]), graph_input=GraphInput.ZERO_COPY),
                        repeats=reps, trace=False)
            out.append({"mode": p["mode"], "n": p["n"], "work_us": p["work_us"], "wall_us": r.wall_us,
                        "tax_us": dev.intrinsic_tax_us(), "kernel_time_us": r.kernel_work_us})
        return out

"""The chain launched from native code: a launch tax of a few µs instead of Python's ~9.

Python cannot launch a kernel for much less than ~9 µs on the H200, so the regime where the tax
sits *below* the work (raw CUDA, a C++ runtime, a fast host) needs another launcher. Each backend
has one, behind the same call: `measure(points) -> [{mode, n, work_us, wall_us, tax_us,
kernel_time_us}]`; the simulator's is ../sim/native.py.

    CppChainLauncher   chain_launcher.cpp built with torch.utils.cpp_extension against the
                       installed libtorch (../../cpp_build.py), running sleep kernels (at::cuda::sleep) in eager,
                       streams and graph mode
"""
from __future__ import annotations

from pathlib import Path

from ...child_process import run
from ...cpp_build import build_binary

SOURCE = Path(__file__).with_name("chain_launcher.cpp")


class CppChainLauncher:
    """Runs chain_launcher.cpp on the GPU of `dev` (built once per torch install, cached)."""

    def __init__(self, dev):
        self.dev = dev

    def measure(self, points: list[dict], reps: int = 9, timeout_s: float = 300.0) -> list[dict]:
        from .sizing import sleep_cycles_per_us
        exe, _ = build_binary(SOURCE, "chain_launcher", cuda=True)
        args = [str(exe), f"{sleep_cycles_per_us(self.dev):.3f}", str(reps)]
        for p in points:
            args += [p["mode"], str(p["n"]), f"{p['work_us']:g}"]
        done = run("chain_launcher", args, timeout_s=timeout_s)
        if done.error:
            raise RuntimeError(done.error)
        return done.objects()

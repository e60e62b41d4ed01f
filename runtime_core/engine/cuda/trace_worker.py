"""Profile GPU steps in a separate process, so the measuring process never loads the profiler.

Why: once torch.profiler has collected CUDA activity in a process, that process stays slower.
On an H200 (torch 2.11) launches cost ~5 µs more and each replayed graph node ~0.3 µs more
after the first profile, and it got worse with every profile. Timing and tracing therefore
live apart: wall times are measured in the caller, timelines and counted driver calls come from
this worker, which runs the same executors on the same buffer sizes.

Protocol (../../child_process.py, every child's): one JSON object per line on stdin (a trace
spec), one JSON line back on stdout: {"spans": [...], "counts": {...}, "chrome_trace_path": "..."}
or {"error": "..."}.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ...child_process import LineWorker, serve_lines, take_chrome_trace, write_chrome_trace
from ...result import Span
from ..cores import all_cores


class TraceWorker:
    """A long-lived child process that traces steps on request (one at a time)."""

    def __init__(self):
        self._worker = LineWorker("trace worker", [sys.executable, "-m", "runtime_core.engine.cuda.trace_worker"],
                                  env=dict(os.environ, PYTHONUNBUFFERED="1"), stderr="capture",
                                  preexec_fn=all_cores, cwd=str(Path(__file__).resolve().parents[3]))

    def start(self) -> None:
        """Start the child now (it takes a few seconds to import torch and warm the profiler)."""
        self._worker.start()

    def trace(self, spec: dict):
        """Trace one step described by `spec`; returns a device.Trace. Raises RuntimeError."""
        from ..device import Trace
        reply = self._worker.ask(spec)
        if "error" in reply:
            raise RuntimeError(f"trace worker: {reply['error']}")
        tr = Trace(spans=[Span(**s) for s in reply["spans"]], counts=reply["counts"])
        tr.chrome_trace = take_chrome_trace(reply)
        return tr

    def close(self) -> None:
        self._worker.close()


def _serve() -> None:
    from dataclasses import asdict

    from .device import CudaDevice
    from ..traced_step import traced_run
    dev = CudaDevice(in_worker=True)

    def handle(spec: dict) -> dict:
        dev.pin_numel(spec["work_us"], spec["numel"])
        tr = traced_run(dev, spec)
        return {"spans": [asdict(s) for s in tr.spans], "counts": tr.counts,
                "chrome_trace_path": write_chrome_trace(tr.chrome_trace, "rc_trace_")}
    serve_lines(handle)


if __name__ == "__main__":
    _serve()

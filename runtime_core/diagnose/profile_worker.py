"""Profile model steps in a child process, so the process that times them never loads the profiler.

Why a separate process: once torch.profiler has collected CUDA activity in a process, launches
there stay slower (engine/cuda/trace_worker.py has the H200 numbers). The chain's TraceWorker speaks
in chain knobs; this one speaks in model specs, and builds the model itself (a zoo model, or the
user's package.module:factory, imported from the same working directory).

Protocol (../child_process.py, every child's): one JSON spec per line on stdin, one JSON line back on stdout:
{"eager", "captured", "graph": StepProfile dicts with spans (graph null if the capture failed),
"capture_error": null or capture_failure.describe's dict, "chrome_trace_path": "..."} or {"error": "..."}.
The child's stderr is the parent's, so its warnings and crashes are seen. `--backend sim` makes
the child step fake models on a SimDevice instead: only the tests use it, to check the protocol.
The child's side is profile_serve.py.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..child_process import LineWorker, take_chrome_trace
from .spec import Spec

REPO = Path(__file__).resolve().parents[2]


class ProfileWorker:
    """A long-lived child process that profiles one model step at a time."""

    def __init__(self, backend: str = "cuda"):
        self.backend = backend
        path = os.pathsep.join(p for p in (os.getcwd(), str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        self._worker = LineWorker(
            "diagnose profile worker",
            [sys.executable, "-m", "runtime_core.diagnose.profile_serve", "--backend", backend],
            stderr="inherit", close_timeout_s=30,
            env=dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=path), cwd=os.getcwd())

    def profile(self, spec: Spec) -> dict:
        """profile_step.profile_both's answer for `spec`: {"eager", "captured", "graph": StepProfile
        or None, "capture_error": dict or None, "chrome_trace": dict or None}.

        Raises RuntimeError with the worker's own traceback if profiling failed there.
        """
        from .profile_step import StepProfile
        reply = self._worker.ask(spec.as_dict())
        if "error" in reply:
            raise RuntimeError(f"diagnose profile worker failed on {spec.label()}:\n{reply['error']}")
        out = {name: (StepProfile.from_dict(reply[name]) if reply.get(name) else None)
               for name in ("eager", "captured", "graph")}
        return dict(out, capture_error=reply.get("capture_error"), chrome_trace=take_chrome_trace(reply))

    def close(self) -> None:
        self._worker.close()

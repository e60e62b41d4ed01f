"""Profile model steps in a child process, so the process that times them never loads the profiler.

Why a separate process: once torch.profiler has collected CUDA activity in a process, launches
there stay slower (engine/trace_worker.py has the H200 numbers). The chain's TraceWorker speaks
in chain knobs; this one speaks in model specs, and builds the model itself (a zoo model, or the
user's package.module:factory, imported from the same working directory).

Protocol: one JSON spec per line on stdin, one JSON line back on stdout:
{"eager": StepProfile dict with spans, "graph": ..., "chrome_trace_path": "..."} or {"error": "..."}.
The child's stderr is the parent's, so its warnings and crashes are seen. `--backend sim` makes
the child step fake models on a SimDevice instead: only the tests use it, to check the protocol.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from .spec import Spec

REPO = Path(__file__).resolve().parents[2]


class ProfileWorker:
    """A long-lived child process that profiles one model step at a time."""

    def __init__(self, backend: str = "cuda"):
        self.backend = backend
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _ensure(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            path = os.pathsep.join(p for p in (os.getcwd(), str(REPO), os.environ.get("PYTHONPATH", "")) if p)
            env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=path)
            self._proc = subprocess.Popen([sys.executable, "-m", "runtime_core.diagnose.profile_worker",
                                           "--backend", self.backend],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                                          text=True, env=env, cwd=os.getcwd())

    def profile(self, spec: Spec) -> dict:
        """{"eager": StepProfile, "graph": StepProfile, "chrome_trace": dict or None} of `spec`.

        Raises RuntimeError with the worker's own traceback if profiling failed there.
        """
        from .profile_step import StepProfile
        with self._lock:
            self._ensure()
            try:
                self._proc.stdin.write(json.dumps(spec.as_dict()) + "\n")
                self._proc.stdin.flush()
                line = self._proc.stdout.readline()
            except (BrokenPipeError, OSError) as e:
                self._proc = None
                raise RuntimeError(f"diagnose profile worker died: {e}") from None
        if not line:
            self._proc = None
            raise RuntimeError("diagnose profile worker exited without answering (its stderr is above)")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"diagnose profile worker failed on {spec.label()}:\n{reply['error']}")
        chrome = None
        path = reply.get("chrome_trace_path")
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                chrome = json.load(f)
            os.unlink(path)
        return {"eager": StepProfile.from_dict(reply["eager"]), "graph": StepProfile.from_dict(reply["graph"]),
                "chrome_trace": chrome}

    def close(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
        self._proc = None


def _runner(backend: str):
    from .cuda_runner import CudaRunner
    from .sim_runner import SimRunner
    return {"sim": SimRunner, "cuda": lambda: CudaRunner(in_worker=True)}[backend]()


def _serve(backend: str) -> None:
    import traceback
    runner = _runner(backend)
    for line in sys.stdin:
        try:
            got = runner.profile(Spec.from_dict(json.loads(line)))
            fd, path = tempfile.mkstemp(suffix=".json", prefix="rc_diagnose_")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(got["chrome_trace"] or {}, f)
            reply = {"eager": got["eager"].as_dict(spans=True), "graph": got["graph"].as_dict(spans=True),
                     "chrome_trace_path": path}
        except Exception:  # report to the parent, which raises it; keep serving
            reply = {"error": traceback.format_exc(limit=8)}
        runner.cleanup()
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve(sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cuda")

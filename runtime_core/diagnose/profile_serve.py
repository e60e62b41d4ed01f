"""The profile worker's child side: `python -m runtime_core.diagnose.profile_serve --backend B`
profiles each model spec it reads on stdin with the backend's runner, in this process, and
answers one JSON line (profile_worker.py is the parent's side, and says why a child).
"""
from __future__ import annotations

import sys

from ..child_process import serve_lines, write_chrome_trace
from .runners import get_runner
from .spec import Spec


def _serve(backend: str) -> None:
    runner = get_runner(backend, in_worker=True)

    def handle(request: dict) -> dict:
        try:
            got = runner.profile(Spec.from_dict(request))
            reply = {name: (got[name].as_dict(spans=True) if got[name] is not None else None)
                     for name in ("eager", "captured", "graph")}
            reply.update(capture_error=got["capture_error"],
                         chrome_trace_path=write_chrome_trace(got["chrome_trace"], "rc_diagnose_"))
            return reply
        finally:
            runner.cleanup()
    serve_lines(handle, full_traceback=True)  # the parent raises it with the worker's traceback


if __name__ == "__main__":
    _serve(sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cuda")

"""The profile worker's child side: `python -m runtime_core.diagnose.profile_serve --backend B`
profiles each model spec it reads on stdin with the backend's runner, in this process, and
answers one JSON line (profile_worker.py is the parent's side, and says why a child).
"""
from __future__ import annotations

import json
import sys

from ..engine.line_worker import write_chrome_trace
from .runners import get_runner
from .spec import Spec


def _serve(backend: str) -> None:
    import traceback
    runner = get_runner(backend, in_worker=True)
    for line in sys.stdin:
        try:
            got = runner.profile(Spec.from_dict(json.loads(line)))
            reply = {name: (got[name].as_dict(spans=True) if got[name] is not None else None)
                     for name in ("eager", "captured", "graph")}
            reply.update(capture_error=got["capture_error"],
                         chrome_trace_path=write_chrome_trace(got["chrome_trace"], "rc_diagnose_"))
        except Exception:  # report to the parent, which raises it; keep serving
            reply = {"error": traceback.format_exc(limit=8)}
        runner.cleanup()
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve(sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cuda")

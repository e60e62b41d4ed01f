"""The parent's side of the AOT lesson's child steps (child.py): one step in a fresh Python
process through ../child_process.py (its JSON answer, a crash such as SIGSEGV in a loader as a
result).
"""
from __future__ import annotations

import shutil
import sys

from ..cache_paths import ROOT
from ..child_process import run


def run_child(args: list, env: dict | None = None, timeout_s: float = 300.0, nice: int = 0) -> dict:
    """Run one step in a fresh Python process and return its JSON, or an error result.
    `nice` is added to the child's niceness (the prebuild's builds yield to the server's work).

    Never raises for a failing child: a crash comes back as
    {"error": "loader crashed: SIGSEGV", "crashed": True, "signal": "SIGSEGV"}.
    """
    what = "loader" if args[0] == "load" else f"child step '{args[0]}'"
    argv = [sys.executable, "-m", "runtime_core.aot.child", *args]
    if nice and shutil.which("nice"):  # the nice command, not preexec_fn: the server has threads
        argv = ["nice", "-n", str(int(nice)), *argv]
    done = run(what, argv, timeout_s=timeout_s, env=env, cwd=ROOT)
    if done.error:
        return {"error": done.error, "crashed": done.crashed, "signal": done.signal}
    out = done.reply()
    if out is None:
        return {"error": f"{what} printed no JSON result", "crashed": False}
    out["process_wall_s"] = done.wall_s
    return out

"""The parent's side of the AOT lesson's child steps (child.py): start one in a fresh Python
process, read the JSON it prints, and turn a crash (SIGSEGV in a loader) into a result.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time


def describe_exit(returncode: int) -> str:
    """'crashed: SIGSEGV' for a signal death, 'exited with status N' otherwise."""
    if returncode < 0:
        try:
            return f"crashed: {signal.Signals(-returncode).name}"
        except ValueError:
            return f"crashed: signal {-returncode}"
    return f"exited with status {returncode}"


def last_json_object(stdout: str) -> dict | None:
    """The last line of `stdout` that is a JSON object (a library may print lines of its own)."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def child_env(env: dict | None) -> dict:
    """This process's environment with `env` on top; a value of None removes that variable."""
    merged = {**os.environ, **(env or {})}
    return {k: v for k, v in merged.items() if v is not None}


def run_child(args: list[str], env: dict | None = None, timeout_s: float = 300.0, nice: int = 0) -> dict:
    """Run one step in a fresh Python process and return its JSON, or an error result.
    `nice` is added to the child's niceness (the prebuild's builds yield to the server's work).

    Never raises for a failing child: a crash comes back as
    {"error": "loader crashed: SIGSEGV", "crashed": True, "signal": "SIGSEGV"}.
    """
    cmd = [sys.executable, "-m", "runtime_core.aot.child"] + [str(a) for a in args]
    if nice and shutil.which("nice"):  # the nice command, not preexec_fn: the server has threads
        cmd = ["nice", "-n", str(int(nice))] + cmd
    from ..cache_paths import ROOT
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT,
                              env=child_env(env))
    except subprocess.TimeoutExpired:
        return {"error": f"{args[0]} timed out after {timeout_s:.0f} s", "crashed": False}
    wall_s = time.perf_counter() - t0
    if proc.returncode == 0:
        out = last_json_object(proc.stdout)
        if out is None:
            return {"error": f"child step '{args[0]}' printed no JSON result", "crashed": False}
        out["process_wall_s"] = wall_s
        return out
    crashed = proc.returncode < 0
    what = "loader" if args[0] == "load" else f"child step '{args[0]}'"
    tail = (proc.stderr.strip().splitlines() or [""])[-1][:300]
    return {"error": f"{what} {describe_exit(proc.returncode)}" + ("" if crashed else f": {tail}"),
            "crashed": crashed, "signal": describe_exit(proc.returncode).split(": ")[-1] if crashed else None}

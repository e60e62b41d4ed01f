"""A long-lived child process spoken to in JSON lines: one request per line on its stdin, one
reply per line on its stdout, one request at a time. The chain's trace worker
(engine/cuda/trace_worker.py) and the diagnosis's profile worker (diagnose/profile_worker.py) are two.

A Chrome trace is too big for one line: the child writes it to a temporary file and sends its
path ("chrome_trace_path"); the parent reads the file and deletes it.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading


class LineWorker:
    """The parent's side: start the child on first use (again if it died), ask, close.

    Args:
        name: how errors name it ("trace worker").
        argv: the child's command line.
        silent_hint: added to the error when the child exits without answering.
        close_timeout_s: how long close() waits for the child to finish.
        **popen: passed to subprocess.Popen (env, cwd, stderr, preexec_fn).
    """

    def __init__(self, name: str, argv: list[str], silent_hint: str = "", close_timeout_s: float = 10.0,
                 **popen):
        self.name, self.argv, self.silent_hint, self.close_timeout_s = name, argv, silent_hint, close_timeout_s
        self.popen = popen
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the child now, if it is not running."""
        with self._lock:
            self._ensure()

    def _ensure(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                          **self.popen)

    def ask(self, request: dict) -> dict:
        """Send one request and return the child's reply (which may be {"error": ...}).
        Raises RuntimeError when the child died or exited without answering."""
        with self._lock:
            self._ensure()
            try:
                self._proc.stdin.write(json.dumps(request) + "\n")
                self._proc.stdin.flush()
                line = self._proc.stdout.readline()
            except (BrokenPipeError, OSError) as e:
                self._proc = None
                raise RuntimeError(f"{self.name} died: {e}") from None
        if not line:
            self._proc = None
            raise RuntimeError(f"{self.name} exited without answering{self.silent_hint}")
        return json.loads(line)

    def close(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.wait(timeout=self.close_timeout_s)
        self._proc = None


def write_chrome_trace(trace: dict | None, prefix: str) -> str:
    """In the child: the trace in a temporary file; returns its path for the reply."""
    fd, path = tempfile.mkstemp(suffix=".json", prefix=prefix)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(trace or {}, f)
    return path


def take_chrome_trace(reply: dict) -> dict | None:
    """In the parent: the trace whose path the reply names, read and its file deleted (None if none)."""
    path = reply.get("chrome_trace_path")
    if not (path and os.path.exists(path)):
        return None
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    os.unlink(path)
    return trace

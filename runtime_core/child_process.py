"""Every child process of the app goes through here: one protocol, one place for timeouts,
stderr and crash messages.

The protocol: a child answers in JSON objects, one per line, on stdout; any other line there (a
library's own print) is skipped. An answer {"error": "..."} is the child's own failure. A Chrome
trace is too big for one line: the child writes it to a temporary file and answers its path
("chrome_trace_path"); the parent reads the file and deletes it.

    run(name, argv, timeout_s=...)   a one-shot child (an AOT step, the C++ runner, the chain
                                     launcher, the allocator comparison): its arguments in, its
                                     JSON lines out -> Finished
    LineWorker(name, argv)           a long-lived child spoken to one request line at a time on
                                     stdin (the trace worker, the profile worker)

A failing child is one line that names it: "NAME crashed: SIGSEGV" (a signal death: its stderr's
last line is the crash dump, not a reason, so it is left out), "NAME exited with status N:
<stderr's last line>", "NAME timed out after T s", "NAME could not start: ...". A child's
stderr is captured (its last line goes into the message) unless the worker passes it through.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass


def describe_exit(returncode: int) -> str:
    """'crashed: SIGSEGV' for a signal death, 'exited with status N' otherwise."""
    if returncode < 0:
        try:
            return f"crashed: {signal.Signals(-returncode).name}"
        except ValueError:
            return f"crashed: signal {-returncode}"
    return f"exited with status {returncode}"


def json_objects(stdout: str) -> list[dict]:
    """The lines of `stdout` that are JSON objects, in order (a library may print lines of its own)."""
    out = []
    for line in stdout.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def last_json_object(stdout: str) -> dict | None:
    """The last line of `stdout` that is a JSON object, or None."""
    found = json_objects(stdout)
    return found[-1] if found else None


def child_env(env: dict | None) -> dict:
    """This process's environment with `env` on top; a value of None removes that variable."""
    merged = {**os.environ, **(env or {})}
    return {k: v for k, v in merged.items() if v is not None}


def _tail(stderr: str, pick=None) -> str:
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    return ((pick(lines) if pick else None) or (lines or [""])[-1])[:400]


def _failure(name: str, returncode: int, stderr: str, pick=None) -> str:
    tail = "" if returncode < 0 else _tail(stderr, pick)
    return f"{name} {describe_exit(returncode)}" + (f": {tail}" if tail else "")


@dataclass
class Finished:
    """What a one-shot child left: `error` is None when it exited 0."""

    stdout: str
    stderr: str
    returncode: int | None
    wall_s: float
    error: str | None = None

    @property
    def crashed(self) -> bool:
        return self.returncode is not None and self.returncode < 0

    @property
    def signal(self) -> str | None:
        return describe_exit(self.returncode).split(": ")[-1] if self.crashed else None

    def objects(self) -> list[dict]:
        return json_objects(self.stdout)

    def reply(self) -> dict | None:
        """The child's answer: its last JSON object line."""
        return last_json_object(self.stdout)


def run(name: str, argv: list, timeout_s: float, env: dict | None = None, cwd=None, pick_stderr=None,
        **popen) -> Finished:
    """Run a one-shot child to its end; never raises for a failing child.

    Args:
        name: how the error line names it ("C++ runner", "child step 'serve'").
        env: on top of this process's environment (a value of None removes a variable).
        pick_stderr: lines -> the line that says why (default: the last one).
        **popen: passed to subprocess.run (preexec_fn, ...).
    """
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout_s,
                              env=child_env(env), cwd=cwd, **popen)
    except subprocess.TimeoutExpired as e:
        return Finished(_text(e.stdout), _text(e.stderr), None, time.perf_counter() - t0,
                        f"{name} timed out after {timeout_s:.0f} s")
    except OSError as e:
        return Finished("", "", None, 0.0, f"{name} could not start: {e.strerror or e}")
    wall_s = time.perf_counter() - t0
    error = None if proc.returncode == 0 else _failure(name, proc.returncode, proc.stderr, pick_stderr)
    return Finished(proc.stdout, proc.stderr, proc.returncode, wall_s, error)


def _text(b) -> str:
    return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")


class LineWorker:
    """The parent's side of a long-lived child: start it on first use (again if it died), ask
    one request at a time, close.

    Args:
        name: how errors name it ("trace worker").
        argv: the child's command line.
        stderr: "capture" (kept in a temporary file; its last line goes into a crash message) or
            "inherit" (the parent's stderr: the child's warnings and tracebacks are seen there).
        timeout_s: how long one answer may take (None: no limit); past it the child is killed.
        close_timeout_s: how long close() waits for the child to finish.
        **popen: passed to subprocess.Popen (env, cwd, preexec_fn).
    """

    def __init__(self, name: str, argv: list[str], stderr: str = "capture", timeout_s: float | None = None,
                 close_timeout_s: float = 10.0, **popen):
        if stderr not in ("capture", "inherit"):
            raise ValueError(f"stderr must be 'capture' or 'inherit', not {stderr!r}")
        self.name, self.argv, self.stderr, self.timeout_s = name, argv, stderr, timeout_s
        self.close_timeout_s, self.popen = close_timeout_s, popen
        self._proc: subprocess.Popen | None = None
        self._err = None  # the captured stderr's file
        self._buf = b""
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the child now, if it is not running."""
        with self._lock:
            self._ensure()

    def _ensure(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            if self._err is not None:
                self._err.close()
            self._err = tempfile.TemporaryFile() if self.stderr == "capture" else None
            self._buf = b""
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._err, **self.popen)

    def ask(self, request: dict) -> dict:
        """Send one request and return the child's answer (which may be {"error": ...}).

        Raises:
            RuntimeError: the child died, exited without answering or timed out (one line).
        """
        with self._lock:
            self._ensure()
            deadline = None if self.timeout_s is None else time.monotonic() + self.timeout_s
            try:
                self._proc.stdin.write((json.dumps(request) + "\n").encode())
                self._proc.stdin.flush()
                while True:
                    line = self._readline(deadline)
                    if not line:
                        raise RuntimeError(self._gone("exited without answering"))
                    try:
                        reply = json.loads(line)
                    except ValueError:
                        continue  # a library's print on stdout
                    if isinstance(reply, dict):
                        return reply
            except TimeoutError:
                self._kill()
                raise RuntimeError(f"{self.name} timed out after {self.timeout_s:.0f} s") from None
            except OSError as e:  # BrokenPipeError: it died before reading the request
                raise RuntimeError(self._gone(f"died: {e.strerror or e}")) from None

    def _readline(self, deadline: float | None) -> bytes:
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buf:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise TimeoutError
            if not select.select([fd], [], [], wait)[0]:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                line, self._buf = self._buf, b""
                return line
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line + b"\n"

    def _gone(self, what: str) -> str:
        """The error line of a child that stopped answering: how it ended and why, if it said."""
        proc, self._proc = self._proc, None
        try:
            rc = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        how = f" ({describe_exit(rc)})" if rc else ""
        if self._err is None:
            return f"{self.name} {what}{how} (its stderr is above)"
        self._err.seek(max(0, os.fstat(self._err.fileno()).st_size - 4096))
        tail = "" if rc < 0 else _tail(self._err.read().decode(errors="replace"))
        return f"{self.name} {what}{how}" + (f": {tail}" if tail else "")

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc and proc.poll() is None:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=self.close_timeout_s)
            except subprocess.TimeoutExpired:
                self._kill()
        self._proc = None


def serve_lines(handle, full_traceback: bool = False) -> None:
    """The child's side of a LineWorker: answer each request line on stdin with handle(request),
    one JSON line on stdout, and keep serving. A request that raises is answered {"error":
    "Type: message"} (`full_traceback`: the traceback, for the parent to show)."""
    import sys
    import traceback
    for line in sys.stdin:
        try:
            reply = handle(json.loads(line))
        except Exception as e:  # report to the parent, which raises it
            reply = {"error": traceback.format_exc(limit=8) if full_traceback else f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


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

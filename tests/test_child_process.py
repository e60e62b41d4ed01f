"""runtime_core/child_process.py, the one helper every child process goes through: its answers,
its one-line failures (crash, exit status with stderr's reason, timeout) and the worker's restart."""
import sys
from pathlib import Path

import pytest

from runtime_core.child_process import LineWorker, run

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import os, sys, time
from runtime_core.child_process import serve_lines
def handle(r):
    if r.get("die"):
        sys.stderr.write("boom: the child's reason\\n"); sys.stderr.flush(); os._exit(3)
    if r.get("segv"):
        os.kill(os.getpid(), 11)
    time.sleep(r.get("sleep", 0))
    if r.get("raise"):
        raise ValueError("bad request")
    print("a library's own line")
    return {"echo": r["x"], "pid": os.getpid()}
serve_lines(handle)
"""


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_one_shot_child_answers_its_last_json_line_below_other_output():
    done = run("step", py('print("noise"); print(\'{"a": 1}\'); print(\'{"b": 2}\'); print("more noise")'), timeout_s=60)
    assert done.error is None and done.reply() == {"b": 2} and done.objects() == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize("code, timeout_s, want", [
    ("import os; os.kill(os.getpid(), 11)", 60, "step crashed: SIGSEGV"),
    ("import sys; sys.stderr.write('first\\nwhy it failed\\n'); sys.exit(4)", 60, "step exited with status 4: why it failed"),
    ("import time; time.sleep(30)", 1, "step timed out after 1 s"),
])
def test_a_failing_one_shot_child_is_one_line_naming_it(code, timeout_s, want):
    done = run("step", py(code), timeout_s=timeout_s)
    assert done.error == want
    assert done.crashed == ("SIGSEGV" in want) and done.signal == ("SIGSEGV" if "SIGSEGV" in want else None)


def test_a_missing_program_is_one_line():
    assert run("C++ runner", ["/nonexistent/aot_runner"], timeout_s=5).error.startswith("C++ runner could not start: ")


@pytest.fixture
def worker():
    w = LineWorker("test worker", py(SERVER), timeout_s=20, cwd=ROOT)
    yield w
    w.close()


def test_the_worker_answers_skips_stray_lines_and_reports_a_failed_request(worker):
    first = worker.ask({"x": 1})
    assert first["echo"] == 1
    assert worker.ask({"x": 2, "raise": True}) == {"error": "ValueError: bad request"}
    assert worker.ask({"x": 3})["pid"] == first["pid"]  # the same child, still serving


@pytest.mark.parametrize("request_, want", [
    ({"die": True}, "test worker exited without answering (exited with status 3): boom: the child's reason"),
    ({"segv": True}, "test worker exited without answering (crashed: SIGSEGV)"),
])
def test_a_dead_worker_is_one_line_and_the_next_request_restarts_it(worker, request_, want):
    pid = worker.ask({"x": 0})["pid"]
    with pytest.raises(RuntimeError) as e:
        worker.ask({"x": 1, **request_})
    assert str(e.value) == want
    assert worker.ask({"x": 2})["pid"] != pid


def test_a_worker_past_its_timeout_is_killed_and_restarted():
    w = LineWorker("slow worker", py(SERVER), timeout_s=20, cwd=ROOT)
    try:
        pid = w.ask({"x": 0})["pid"]  # started within the generous limit (a busy machine starts slowly)
        w.timeout_s = 1
        with pytest.raises(RuntimeError, match="^slow worker timed out after 1 s$"):
            w.ask({"x": 1, "sleep": 30})
        w.timeout_s = 20
        assert w.ask({"x": 2})["pid"] != pid
    finally:
        w.close()

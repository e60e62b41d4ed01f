"""Nothing lost: a writer killed with SIGKILL at any moment leaves the old file or the new one,
whole; --record never replaces a file without --force, and says so before any work."""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aot_fakes import install_fake_cxx, temps
from conftest import cli_here

ROOT = Path(__file__).resolve().parents[1]
KILLS = 8  # SIGKILLs per writer, at random moments


def start(code: str, *args, env=None) -> subprocess.Popen:
    """A child Python running `code`, in its own process group (so a kill takes its compiler too)."""
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


MID_WRITE = "fsync"  # what a SLOW_DISK child prints as it starts flushing a temporary file


def kill_at_random(proc: subprocess.Popen, rng: random.Random, after_line: bool = True, max_s: float = 1.5,
                   mid_write: bool = False) -> list[str]:
    """Wait for the child's first line (a complete write) when asked, sleep a random moment, then
    SIGKILL its process group. With `mid_write`, the moment is instead a random one inside the
    next write's flush (a SLOW_DISK child announces it), so the kill lands mid-write by
    construction. Returns the numbered lines it printed (the writes it finished)."""
    lines = []
    if after_line:
        while (first := proc.stdout.readline().strip()) == MID_WRITE:
            pass
        assert first, proc.stderr.read()
        lines.append(first)
    if mid_write:
        while (line := proc.stdout.readline().strip()) != MID_WRITE:
            assert line, proc.stderr.read()
            lines.append(line)
        time.sleep(rng.uniform(0.0, 0.2))  # the flush takes SLOW_FSYNC_S: the kill is inside it
    else:
        time.sleep(rng.uniform(0.0, max_s))
    os.killpg(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate(timeout=30)
    return [line for line in lines + out.split() if line != MID_WRITE]


# ---- recordings (store.write) ----------------------------------------------------------------
SLOW_FSYNC_S = 0.8
SLOW_DISK = f"""
import os, stat, time
_fsync = os.fsync
def slow_fsync(fd):  # a slow disk: widens the window between the temporary file and the rename
    if stat.S_ISREG(os.fstat(fd).st_mode):
        print("{MID_WRITE}", flush=True)
        time.sleep({SLOW_FSYNC_S})
    _fsync(fd)
os.fsync = slow_fsync
"""

RECORDING_WRITER = SLOW_DISK + """
import json, sys
from runtime_core.recordings import store
base = json.load(open("lessons/recordings/alloc_h200.json"))
target = sys.argv[1]
base["labs"]["alloc"]["padding"] = [i * 0.5 for i in range(100_000)]   # ~1 MB per write
i = 0
while True:
    base["meta"]["device_name"] = f"writer {i}"
    store.write(target, base)
    print(i, flush=True)
    i += 1
"""


def kill_all_at_random(procs: list, rng: random.Random, **kw) -> list[list[str]]:
    """kill_at_random for every child at once (each its own random moment): the kills are as
    many and as random as one after another, in the time of one. Every odd-numbered child is
    killed inside a write's flush (mid_write), so the test never depends on luck to test that."""
    from concurrent.futures import ThreadPoolExecutor
    seeds = [rng.random() for _ in procs]
    with ThreadPoolExecutor(len(procs)) as pool:
        return list(pool.map(lambda i: kill_at_random(procs[i], random.Random(seeds[i]), mid_write=i % 2 == 1, **kw),
                             range(len(procs))))


def test_a_recording_killed_mid_write_is_the_old_file_or_the_new_one(tmp_path):
    from runtime_core.recordings import store
    dirs = [tmp_path / f"w{i}" for i in range(KILLS)]
    for d in dirs:
        d.mkdir()
    done = kill_all_at_random([start(RECORDING_WRITER, d / "alloc_mine.json") for d in dirs], random.Random())
    for i, (d, lines) in enumerate(zip(dirs, done)):
        last = int(lines[-1])
        name = store.load(d / "alloc_mine.json").meta.device_name  # validates: whole, parseable, a recording
        assert name in (f"writer {last}", f"writer {last + 1}"), (name, last)
        if i % 2 == 1:  # killed inside a flush: its temporary file is left behind (else this tested nothing)
            assert temps(d), "a mid-write kill left no temporary file"
        found, skipped = store.scan("alloc", d)  # a leftover temporary file is never read
        assert [r.path.name for r in found] == ["alloc_mine.json"] and skipped == []


# ---- the AOT results file (coldwarm.finish) -----------------------------------------------------
RESULTS_WRITER = SLOW_DISK + """
import sys
from runtime_core.aot import coldwarm
i = 0
while True:
    coldwarm.finish({"i": i, "padding": list(range(100_000))}, "cpu", {})
    print(i, flush=True)
    i += 1
"""


@pytest.mark.exhaustive  # kill-at-random, like the recordings' test above, which make test keeps (CI runs both)
def test_aot_results_killed_mid_write_are_the_old_ones_or_the_new_ones(tmp_path):
    caches = [tmp_path / f"aot{i}" for i in range(KILLS)]
    procs = [start(RESULTS_WRITER, env={**os.environ, "RUNTIME_CORE_AOT_CACHE": str(c)}) for c in caches]
    for i, (cache, lines) in enumerate(zip(caches, kill_all_at_random(procs, random.Random(), max_s=1.0))):
        last = int(lines[-1])
        path = next(cache.glob("results-cpu-*.json"))
        res = json.loads(path.read_text())
        assert res["i"] in (last, last + 1) and len(res["padding"]) == 100_000
        if i % 2 == 1:  # killed inside a flush
            assert temps(cache), "a mid-write kill left no temporary file"


# ---- cache builds: the runner and a package ------------------------------------------------------
RUNNER_BUILDER = """
from runtime_core.aot.cpp_runner import ensure_runner
print(ensure_runner()[0], flush=True)
"""


@pytest.mark.exhaustive
def test_a_runner_build_killed_at_any_moment_never_leaves_a_broken_runner(tmp_path, monkeypatch):
    from runtime_core.aot.cpp_runner import ensure_runner, runner_path
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "aot"))
    install_fake_cxx(tmp_path, monkeypatch, sleep_s=1.0)
    rng = random.Random(3)
    for _ in range(4):
        kill_at_random(start(RUNNER_BUILDER, env=dict(os.environ)), rng, after_line=False, max_s=1.6)
        target = runner_path()
        if target.exists():  # the build finished before the kill: then it is whole and executable
            assert os.access(target, os.X_OK) and "output_shape" in target.read_text()
            target.unlink()
    assert not runner_path().exists()
    path, _ = ensure_runner()  # the next build works, and sweeps what the killed ones left
    assert os.access(path, os.X_OK) and temps(path.parent) == []


PACKAGE_BUILDER = """
import time
from runtime_core.aot import export
def slow(exported, package_path):
    with open(package_path, "wb") as f:
        for _ in range(20):
            f.write(b"PK" + bytes(50_000)); f.flush(); time.sleep(0.05)
export.export_mlp = lambda device="cpu", example_batch=8: "exported"
export.compile_package = slow
print(export.build_package("cpu")["package"], flush=True)
"""


@pytest.mark.exhaustive
def test_a_package_build_killed_at_any_moment_never_leaves_a_partial_package(tmp_path, monkeypatch):
    from aot_fakes import install_fake_packager
    from runtime_core.aot.export import build_package, package_path
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "aot"))
    rng = random.Random(5)
    for _ in range(4):
        kill_at_random(start(PACKAGE_BUILDER, env=dict(os.environ)), rng, after_line=False, max_s=1.2)
        target = package_path("cpu")
        if target.exists():
            assert target.stat().st_size == 20 * 50_002
            target.unlink()
    install_fake_packager(monkeypatch, sleep_s=0.0)
    build_package("cpu")
    assert package_path("cpu").stat().st_size == 10 * 1002 and temps(package_path("cpu").parent) == []


# ---- --record refuses to overwrite, before any work ----------------------------------------------
def cli(*args, timeout=120):
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "runtime_core", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=timeout)
    return p, time.perf_counter() - t0


@pytest.mark.parametrize("cmd", [("alloc", "--backend", "sim"), ("aot",), ("aot", "decoder")])
def test_record_never_overwrites_without_force_and_says_so_at_once(tmp_path, cmd):
    target = tmp_path / "mine.json"
    target.write_text('{"precious": true}')
    p, wall_s = cli(*cmd, "--record", str(target))
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "exists; pass --force to replace it" in lines[0], p.stderr
    assert target.read_text() == '{"precious": true}'
    assert wall_s < 20  # checked before the run (an aot measurement takes a minute or more)


@pytest.mark.parametrize("cmd", [("alloc", "--backend", "sim"), ("aot",)])
@pytest.mark.parametrize("where", ["folder", "missing folder"])
def test_a_bad_record_path_is_one_line_before_any_work(tmp_path, cmd, where):
    path = tmp_path if where == "folder" else tmp_path / "nope" / "x.json"
    p, wall_s = cli(*cmd, "--record", str(path))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert wall_s < 20


def test_alloc_record_with_force_replaces_the_file(tmp_path, capsys):
    """`alloc --backend sim --record TARGET --force`, in this process (conftest.cli_here);
    tests/test_alloc_cli.py runs `alloc --backend sim
    --record` as a child process, and the refusals above run as children too."""
    from runtime_core.recordings import store
    target = tmp_path / "alloc_mine.json"
    target.write_text("{}")
    p = cli_here(capsys, "alloc", "--backend", "sim", "--record", str(target), "--force")
    assert p.returncode == 0, p.stderr
    assert store.load(target).meta.kind == "alloc"
    assert temps(tmp_path) == []


def test_a_file_that_appears_during_the_run_is_not_replaced(tmp_path):
    """check_target looked before the run; the write itself refuses too (a hard link, not a rename)."""
    from runtime_core.errors import UsageError
    from runtime_core.recordings import store
    doc = json.loads((ROOT / "lessons" / "recordings" / "alloc_h200.json").read_text())
    target = tmp_path / "late.json"
    store.check_target(target, force=False)
    target.write_text("somebody else's")
    with pytest.raises(UsageError, match="exists; pass --force"):
        store.write(target, doc, overwrite=False)
    assert target.read_text() == "somebody else's" and temps(tmp_path) == []
    store.write(target, doc, overwrite=True)
    assert store.load(target).meta.kind == "alloc"


def test_a_folder_that_takes_no_new_file_is_one_line_not_a_traceback(tmp_path, monkeypatch):
    """`alloc --record /proc/version --force` ended in a FileNotFoundError traceback from mkstemp:
    a folder that refuses new files (procfs), or one removed mid-write, is the same one-line error
    as a full disk, the old file left as it was."""
    import errno
    import tempfile

    from runtime_core import atomic
    target = tmp_path / "rec.json"
    target.write_text("old")

    def refuse(*a, **k):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory")
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(atomic.WriteFailed, match="cannot write it .*the old file is unchanged"):
        atomic.write_json(target, {"a": 1})
    assert target.read_text() == "old"


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    """A script review: `--force` onto a link renamed a new file over the link, so the link was
    gone and the file it pointed to kept its old content."""
    from runtime_core.atomic import write_text
    target, link = tmp_path / "keep.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new" and link.read_text() == "new"

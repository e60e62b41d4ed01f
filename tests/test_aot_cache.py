"""The AOT cache under a class: builds race safely, measurements queue, a clear waits, nothing leaks.

The slow compilers are replaced by small fakes (tests/aot_fakes.py), so these run in seconds
but drive the real code: cpp_runner.ensure_runner / run_cpp, export.build_package,
coldwarm.measure, paths.clear_cache, with their real locks, temporary names and renames. The
real three-way measurement is tests/test_aot_class.py (slow).
"""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from aot_fakes import builds, install_fake_cxx, install_fake_packager, temps

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh, empty AOT cache root (RUNTIME_CORE_AOT_CACHE) and the fake C++ compiler."""
    from runtime_core.aot.paths import cache_root
    root = tmp_path / "aot"
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(root))
    assert cache_root() == root  # made by us, with its marker, as a first use makes it
    log = install_fake_cxx(tmp_path, monkeypatch)
    return root, log


def run_together(fns, timeout_s=60):
    """Start every fn at the same moment in its own thread; returns their results (or raises the
    first exception one of them raised)."""
    barrier = threading.Barrier(len(fns))
    out, errors = [None] * len(fns), []

    def go(i, fn):
        barrier.wait()
        try:
            out[i] = fn()
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)
    threads = [threading.Thread(target=go, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout_s)
    if errors:
        raise errors[0]
    return out


# ---- the runner binary ------------------------------------------------------------------------
def test_many_threads_and_processes_build_the_runner_once(cache, tmp_path):
    """The classroom bug: every session is a thread of one process, and the temporary name was
    the pid: 'Text file busy', PermissionError, FileNotFoundError, a runner without +x."""
    from runtime_core.aot.cpp_runner import ensure_runner, run_cpp, runner_path
    root, log = cache
    child = ("import sys; from runtime_core.aot.cpp_runner import ensure_runner; "
             "print(ensure_runner()[0])")
    procs = [subprocess.Popen([sys.executable, "-c", child], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    paths = run_together([lambda: ensure_runner()[0] for _ in range(4)])
    for p in procs:
        stdout, stderr = p.communicate(timeout=60)
        assert p.returncode == 0, stderr
        paths.append(Path(stdout.strip()))
    assert len(set(paths)) == 1 and paths[0] == runner_path()
    assert builds(log) == 1  # one build; everybody else waited for it and used it
    assert os.access(paths[0], os.X_OK)  # the fake compiler never set +x: the cache did
    assert temps(root / "bin") == []
    work = tmp_path / "work"
    x = np.arange(6, dtype=np.float32).reshape(3, 2)

    def run(i):
        d = work / str(i)
        d.mkdir(parents=True)
        return run_cpp(tmp_path / "fake.pt2", x, "cpu", d)
    for r in run_together([lambda i=i: run(i) for i in range(4)]):
        assert "error" not in r, r.get("error")
        assert np.array_equal(r["output"], 2 * x)


def test_a_runner_without_its_execute_bit_is_rebuilt(cache):
    """What the old race left behind: every later measure failed until the cache was cleared."""
    from runtime_core.aot.cpp_runner import ensure_runner, runner_path
    root, log = cache
    broken = runner_path()
    broken.write_text("#!/bin/sh\n")
    broken.chmod(0o644)
    path, build_s = ensure_runner()
    assert path == broken and os.access(path, os.X_OK) and build_s > 0 and builds(log) == 1


def test_a_failed_runner_build_leaves_no_temporary_file_and_no_runner(cache, monkeypatch):
    from runtime_core.aot.cpp_runner import ensure_runner, runner_path
    root, log = cache
    monkeypatch.setenv("FAKE_CXX_FAIL", "1")
    with pytest.raises(RuntimeError, match="building the C.. runner failed: .*told to fail"):
        ensure_runner()
    assert not runner_path().exists() and temps(root / "bin") == []
    monkeypatch.delenv("FAKE_CXX_FAIL")
    assert os.access(ensure_runner()[0], os.X_OK)  # the next try builds it


def test_leftovers_of_a_killed_builder_are_removed_by_the_next_build(cache):
    from runtime_core.aot.cpp_runner import ensure_runner, runner_path
    root, _ = cache
    stale = runner_path().with_name(f".{runner_path().name}.999-1-dead.tmp")
    stale.write_bytes(b"half a binary")
    scratch = stale.with_name(stale.name + ".build")  # cpp_extension's build folder, its baton held
    scratch.mkdir()
    (scratch / "lock").touch()
    ensure_runner()
    assert not stale.exists() and not scratch.exists() and temps(root / "bin") == []


@pytest.mark.parametrize("missing", ["compiler", "ninja"])
def test_a_missing_compiler_or_ninja_is_one_line(cache, monkeypatch, missing):
    from runtime_core import cpp_build
    from runtime_core.aot.cpp_runner import ensure_runner, runner_path
    if missing == "compiler":
        monkeypatch.setenv("CXX", "/nonexistent/g++")
        want = "/nonexistent/g.. not found: install a C.. compiler to build the C.. runner$"
    else:
        monkeypatch.setattr(cpp_build, "_find_ninja", lambda: False)
        want = "ninja not found: pip install the ninja wheel of requirements.txt to build the C.. runner$"
    with pytest.raises(RuntimeError, match=want):
        ensure_runner()
    assert not runner_path().exists()


def test_the_runner_folder_keeps_only_the_newest_binaries(cache):
    from runtime_core.aot.cpp_runner import RUNNER_CAP, ensure_runner, runner_path
    root, _ = cache
    folder = runner_path().parent
    for i in range(5):  # runners of older torch versions or sources
        old = folder / f"aot_runner-old{i}"
        old.write_bytes(b"x" * 100)
        os.utime(old, (1000 + i, 1000 + i))
    path, _ = ensure_runner()
    left = sorted(p.name for p in folder.glob("aot_runner-*"))
    assert len(left) == RUNNER_CAP.keep_newest and path.name in left
    assert "aot_runner-old0" not in left and "aot_runner-old4" in left  # the oldest went first


# ---- packages ---------------------------------------------------------------------------------
def test_many_threads_build_one_package(cache, monkeypatch):
    from runtime_core.aot.export import build_package, package_path
    root, _ = cache
    packager = install_fake_packager(monkeypatch)
    results = run_together([lambda: build_package("cpu") for _ in range(4)])
    assert packager.calls == 1
    assert {r["package"] for r in results} == {str(package_path("cpu"))}
    assert sorted(r["cached"] for r in results) == [False, True, True, True]
    assert package_path("cpu").stat().st_size == 10 * 1002  # complete, not half-written
    assert temps(root / "packages") == []


def test_a_failed_package_build_leaves_nothing_behind(cache, monkeypatch):
    from runtime_core.aot.export import build_package, package_path
    root, _ = cache
    install_fake_packager(monkeypatch, fail=True)
    with pytest.raises(RuntimeError, match="failed half-way"):
        build_package("cpu")
    assert not package_path("cpu").exists()
    assert sorted(p.name for p in (root / "packages").iterdir()) == [".build.lock"]


def test_the_package_folder_keeps_only_the_newest_packages(cache, monkeypatch):
    from runtime_core.aot.export import PACKAGE_CAP, build_package, package_path
    install_fake_packager(monkeypatch, sleep_s=0.0)
    folder = package_path("cpu").parent
    for i in range(PACKAGE_CAP.keep_newest + 2):
        old = folder / f"mlp-cpu-old-{i}.pt2"
        old.write_bytes(b"PK")
        os.utime(old, (1000 + i, 1000 + i))
    build_package("cpu")
    left = sorted(p.name for p in folder.glob("mlp-*.pt2"))
    assert len(left) == PACKAGE_CAP.keep_newest and package_path("cpu").name in left
    assert "mlp-cpu-old-0.pt2" not in left and "mlp-cpu-old-1.pt2" not in left


# ---- measurements and clear cache ---------------------------------------------------------------
def fake_steps(log: list, started: threading.Event, hold_s: float = 0.4):
    """coldwarm.STEPS stand-ins that use the cache the way the real ones do: build (or reuse)
    the package and the runner, hold them a while, then run the package in the runner."""
    from runtime_core.aot import cpp_runner, export

    def step(device, state):
        t0 = time.monotonic()
        started.set()
        pkg = export.build_package(device)["package"]
        time.sleep(hold_s)  # a clear that did not wait would delete the package right here
        r = cpp_runner.run_cpp(Path(pkg), state["x"], device, Path(state["work_dir"]))
        ok = "error" not in r and Path(pkg).exists()
        log.append((threading.get_ident(), t0, time.monotonic(), ok))
        return {"cpp_error": r.get("error"), "cpp_output_matches": ok, "python_output_matches": ok}
    return (("fake", "package, then the C++ runner (fakes)", step),)


def test_three_measurements_and_a_clear_at_once_all_succeed_in_turn(cache, monkeypatch):
    """Three students press measure on a fresh cache, a fourth presses clear cache while the
    first measures: each waits its turn, sees its place, and nobody's files vanish."""
    from runtime_core.aot import coldwarm
    from runtime_core.aot.paths import clear_cache
    from runtime_core.aot.queue import AOT_QUEUE
    root, cxx_log = cache
    packager = install_fake_packager(monkeypatch, sleep_s=0.2)
    intervals, started = [], threading.Event()
    monkeypatch.setattr(coldwarm, "STEPS", fake_steps(intervals, started))
    waits, results, cleared = {}, {}, {}

    def student(name):
        results[name] = coldwarm.measure("cpu", on_wait=lambda w: waits.setdefault(name, []).append(w))

    def clearer():
        cleared["freed"] = clear_cache(on_wait=lambda w: waits.setdefault("clear", []).append(w))
        cleared["at"] = time.monotonic()

    threads = [threading.Thread(target=student, args=("a",))]
    threads[0].start()
    assert started.wait(30)  # a measures now
    for name, target in (("clear", clearer), ("b", lambda: student("b")), ("c", lambda: student("c"))):
        before = AOT_QUEUE.waiting()
        t = threading.Thread(target=target)
        t.start()
        threads.append(t)
        deadline = time.monotonic() + 10
        while AOT_QUEUE.waiting() == before and time.monotonic() < deadline:
            time.sleep(0.01)  # in line before the next one comes
    for t in threads:
        t.join(60)
    assert set(results) == {"a", "b", "c"}
    for name, r in results.items():
        assert r["outputs_match"] is True and not r.get("cpp_error"), (name, r)
    spans = sorted((t0, t1) for _, t0, t1, _ in intervals)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # one measurement at a time
    assert spans[0][1] <= cleared["at"] <= spans[1][0]  # the clear waited for a, ran before b
    assert cleared["freed"] > 0
    assert [w.position for w in waits["clear"]][0] == 2
    assert waits["b"][0].position == 3 and waits["c"][0].position == 4
    assert "you are 3rd in line" in waits["b"][0].describe()
    assert packager.calls == 2 and builds(cxx_log) == 2  # a built both; b rebuilt after the clear
    assert list((root / "tmp").iterdir()) == []  # every scratch folder removed
    assert AOT_QUEUE.waiting() == 0


def test_a_failed_measurement_removes_its_scratch_folder(cache, monkeypatch):
    from runtime_core.aot import coldwarm
    root, _ = cache

    def boom(device, state):
        assert Path(state["work_dir"]).is_dir()
        raise RuntimeError("a step failed")
    monkeypatch.setattr(coldwarm, "STEPS", (("boom", "fails", boom),))
    for _ in range(3):
        with pytest.raises(RuntimeError, match="a step failed"):
            coldwarm.measure("cpu")
    assert list((root / "tmp").iterdir()) == []
    assert coldwarm.cached_results("cpu") is None


def test_a_measurement_clears_scratch_folders_that_killed_runs_left(cache, monkeypatch):
    from runtime_core.aot import coldwarm
    root, _ = cache
    leftover = root / "tmp" / "tmpdeadbeef"
    leftover.mkdir(parents=True)
    (leftover / "cpp_in.bin").write_bytes(b"x")
    monkeypatch.setattr(coldwarm, "STEPS", ())
    coldwarm.measure("cpu")
    assert list((root / "tmp").iterdir()) == []
    assert coldwarm.cached_results("cpu")["device"] == "cpu"


def test_a_bad_device_is_refused_before_waiting_in_line(cache):
    from runtime_core.aot import coldwarm
    from runtime_core.aot.queue import AOT_QUEUE
    from runtime_core.errors import UsageError
    ticket = AOT_QUEUE.take_ticket()  # somebody else's long measurement
    try:
        with pytest.raises(UsageError, match="device must be cpu or cuda"):
            coldwarm.measure("tpu")
    finally:
        AOT_QUEUE.leave(ticket)


def test_clear_cache_keeps_its_lock_files(cache):
    from runtime_core.cache_lock import LOCK_FILES, cache_in_use
    from runtime_core.aot.paths import clear_cache
    root, _ = cache
    with cache_in_use():
        (root / "packages").mkdir(parents=True)
        (root / "packages" / "mlp.pt2").write_bytes(b"x" * 10)
    assert clear_cache() == 10
    from runtime_core.aot.paths import MARKER
    kept = [n for n in (*LOCK_FILES, MARKER) if (root / n).exists()]
    assert sorted(p.name for p in root.iterdir()) == sorted(kept) and MARKER in kept


# ---- the page ---------------------------------------------------------------------------------
def test_the_page_shows_a_waiting_student_their_place_then_measures(cache, monkeypatch):
    from conftest import open_page
    from runtime_core.aot import coldwarm
    from runtime_core.aot.queue import AOT_QUEUE
    monkeypatch.setattr(coldwarm, "STEPS", ())
    at = open_page("pages/5_AOT_and_serving.py")
    release = threading.Event()

    def other_student():  # measures for a second and a half
        with AOT_QUEUE.hold():
            release.wait(1.5)
    t = threading.Thread(target=other_student)
    t.start()
    while AOT_QUEUE.waiting() == 0 and not AOT_QUEUE._line:
        time.sleep(0.01)
    at = at.button(key="aot_measure").click().run()
    t.join(10)
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "Your turn came: you waited as 2nd in line." in captions, captions
    assert [s.state for s in at.status] == ["complete"]
    assert coldwarm.cached_results("cpu") is not None  # and then it measured


def test_the_page_clear_waits_for_a_measurement_and_says_so(cache, monkeypatch):
    from conftest import open_page
    from runtime_core.aot.queue import AOT_QUEUE
    root, _ = cache
    (root / "packages").mkdir(parents=True)
    (root / "packages" / "mlp.pt2").write_bytes(b"x" * 2_000_000)
    at = open_page("pages/5_AOT_and_serving.py")
    done = {}

    def measuring():
        with AOT_QUEUE.hold():
            time.sleep(1.0)
            done["at"] = time.monotonic()
    t = threading.Thread(target=measuring)
    t.start()
    while not AOT_QUEUE._line:
        time.sleep(0.01)
    at = at.button(key="aot_clear").click().run()
    cleared_at = time.monotonic()
    t.join(10)
    assert not at.exception, at.exception
    assert done["at"] <= cleared_at
    assert not (root / "packages").exists()
    labels = [s.label for s in at.status]
    assert any(f"Cleared {root.as_posix()}/ (2.0 MB)" in label for label in labels), labels  # the folder in use


def test_clearing_from_inside_a_use_of_the_cache_is_an_error_not_a_hang(cache):
    from runtime_core.cache_lock import cache_in_use
    from runtime_core.aot.paths import clear_cache
    root, _ = cache
    assert root.is_dir()
    with cache_in_use():
        with pytest.raises(RuntimeError, match="cannot be cleared from inside a use of it"):
            clear_cache()

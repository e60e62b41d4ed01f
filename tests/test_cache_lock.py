"""The AOT cache's locks (filelock): users of the cache share it, "clear cache" waits for all of
them, and an exclusive lock keeps out another thread as well as another process."""
import subprocess
import sys
import threading
import time

import pytest

from runtime_core import cache_lock


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNTIME_CORE_AOT_CACHE", str(tmp_path / "aot"))
    from runtime_core.cache_paths import cache_root
    return cache_root()


def _in_thread(fn):
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    return t


def test_two_threads_use_the_cache_at_once(root):
    inside, release = threading.Barrier(3, timeout=10), threading.Event()

    def user():
        with cache_lock.cache_in_use():
            inside.wait()
            release.wait(10)
    threads = [_in_thread(user), _in_thread(user)]
    inside.wait()  # both are inside together
    release.set()
    for t in threads:
        t.join(10)


def test_clearing_waits_for_every_user_and_tells_the_waiter(root):
    entered, release, told = threading.Event(), threading.Event(), []

    def user():
        with cache_lock.cache_in_use():
            entered.set()
            release.wait(10)
    t = _in_thread(user)
    entered.wait(10)
    threading.Timer(0.6, release.set).start()
    start = time.monotonic()
    with cache_lock.cache_exclusive(on_wait=lambda: told.append(time.monotonic())):
        waited = time.monotonic() - start
    t.join(10)
    assert waited >= 0.5 and told


def test_a_use_of_the_cache_nests_in_one_thread(root):
    with cache_lock.cache_in_use():
        with cache_lock.cache_in_use():
            pass
        with pytest.raises(RuntimeError, match="inside a use of it"):
            with cache_lock.cache_exclusive():
                pass
    with cache_lock.cache_exclusive():  # released: clearing goes ahead
        pass


def test_an_exclusive_lock_keeps_out_another_thread_until_released(tmp_path):
    path = tmp_path / "x.lock"
    holding, release, order = threading.Event(), threading.Event(), []

    def holder():
        with cache_lock.file_lock(path):
            holding.set()
            release.wait(10)
            order.append("holder done")
    t = _in_thread(holder)
    holding.wait(10)
    with pytest.raises(TimeoutError, match="stayed locked"):
        with cache_lock.file_lock(path, timeout_s=0.3):
            pass
    release.set()
    with cache_lock.file_lock(path, timeout_s=10):
        order.append("second")
    t.join(10)
    assert order == ["holder done", "second"]


def test_an_exclusive_lock_keeps_out_another_process(tmp_path):
    path = tmp_path / "x.lock"
    code = ("import sys; from runtime_core.cache_lock import file_lock\n"
            "try:\n    with file_lock(sys.argv[1], timeout_s=0.3): print('got it')\n"
            "except TimeoutError: print('busy')\n")
    with cache_lock.file_lock(path):
        busy = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    free = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert (busy.stdout.strip(), free.stdout.strip()) == ("busy", "got it")

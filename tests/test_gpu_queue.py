"""The GPU's line (engine/gpu_queue.py): arrival order, a place and an estimate for waiters, a
cap, nothing lost when a waiter leaves, and one measurement per setting for many sessions."""
import threading
import time

import pytest

from runtime_core.engine.gpu_queue import GPU_LOCK, QueueFull, SharedResults, Waiting, cap, measure_in_turn


def test_waiters_see_their_place_and_an_estimate_and_are_served_in_order():
    release, started, order, seen = threading.Event(), threading.Event(), [], {}

    def first():
        def hold():
            started.set()
            release.wait(5)
            order.append("first")
        measure_in_turn(hold)

    def later(name):
        measure_in_turn(lambda: order.append(name), on_wait=lambda w: seen.setdefault(name, []).append(w))

    threads = [threading.Thread(target=first)]
    threads[0].start()
    assert started.wait(5)
    for name in ("second", "third"):
        t = threading.Thread(target=later, args=(name,))
        t.start()
        threads.append(t)
        time.sleep(0.2)  # arrive in this order
    time.sleep(0.3)
    release.set()
    for t in threads:
        t.join(5)
    assert order == ["first", "second", "third"]
    assert seen["second"][0].position == 2 and seen["third"][0].position == 3
    w = seen["third"][0]
    assert w.estimate_s > 0 and "3rd in line" in w.describe() and "2 measurements ahead" in w.describe()


def test_past_the_cap_a_new_measurement_is_refused_at_once():
    release, started = threading.Event(), threading.Event()

    def hold():
        started.set()
        release.wait(5)
    t = threading.Thread(target=measure_in_turn, args=(hold,), kwargs={"limit": 1})
    t.start()
    assert started.wait(5)
    t0 = time.monotonic()
    with pytest.raises(QueueFull, match="cap is 1"):
        measure_in_turn(lambda: None, limit=1)
    assert time.monotonic() - t0 < 0.5
    release.set()
    t.join(5)
    assert measure_in_turn(lambda: 42, limit=1) == 42  # the line is free again


def test_a_waiter_that_leaves_costs_nothing_and_the_next_one_moves_up():
    release, started, ran = threading.Event(), threading.Event(), []

    class SessionGone(Exception):
        pass

    def hold():
        started.set()
        release.wait(5)
    holder = threading.Thread(target=measure_in_turn, args=(hold,))
    holder.start()
    assert started.wait(5)

    def leaver():
        def on_wait(w):
            raise SessionGone  # what Streamlit does to a session that went away
        with pytest.raises(SessionGone):
            measure_in_turn(lambda: ran.append("leaver"), on_wait=on_wait)
    t = threading.Thread(target=leaver)
    t.start()
    t.join(5)
    assert GPU_LOCK.in_line() == 1  # only the holder
    release.set()
    holder.join(5)
    assert ran == [] and GPU_LOCK.in_line() == 0


def test_two_sessions_with_the_same_setting_cost_one_measurement():
    cache, calls, gate = SharedResults(max_entries=4), [], threading.Event()

    def slow_measure():
        calls.append(1)
        gate.wait(5)
        return {"wall_us": 270.0}
    out = []
    threads = [threading.Thread(target=lambda: out.append(cache.get_or_make(("graph", 120), slow_measure)))
               for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    gate.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and cache.made == 1 and out == [{"wall_us": 270.0}] * 2
    assert cache.get_or_make(("graph", 120), slow_measure) == {"wall_us": 270.0} and len(calls) == 1


def test_the_cache_is_bounded_and_expires():
    cache = SharedResults(max_entries=2, ttl_s=0.2)
    for key in "abc":
        cache.get_or_make(key, lambda: key)
    assert len(cache) == 2
    cache.get_or_make("c", lambda: "again")
    time.sleep(0.3)
    assert cache.get_or_make("c", lambda: "fresh") == "fresh"


def test_a_failed_measurement_is_not_cached_and_the_next_caller_retries():
    cache = SharedResults()
    with pytest.raises(RuntimeError):
        cache.get_or_make("k", lambda: (_ for _ in ()).throw(RuntimeError("GPU busy")))
    assert cache.get_or_make("k", lambda: 7) == 7


def test_the_cap_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("RUNTIME_QUEUE_CAP", "3")
    assert cap() == 3
    monkeypatch.setenv("RUNTIME_QUEUE_CAP", "lots")
    assert cap() == 8
    assert "1st" not in Waiting(2, 0.5).describe()

"""FairLock: first come first served, positions a waiter can show, and no abandoned tickets."""
import threading
import time

import pytest

from runtime_core.engine.fair_lock import FairLock, ordinal


def ticket_from_another_thread(lock):
    """A ticket taken by another thread (the holder seen from this one)."""
    out = []
    t = threading.Thread(target=lambda: out.append(lock.take_ticket()))
    t.start()
    t.join()
    return out[0]


def test_positions_count_the_holder_as_first():
    lock = FairLock("test")
    a, b, c = lock.take_ticket(), lock.take_ticket(), lock.take_ticket()
    assert [lock.position(t) for t in (a, b, c)] == [1, 2, 3]
    assert lock.waiting() == 2
    lock.leave(b)  # a waiter gives up: the one behind moves up
    assert lock.position(c) == 2
    with pytest.raises(KeyError):
        lock.position(b)


def test_waiters_are_served_in_the_order_they_asked_and_see_their_place():
    lock = FairLock("test")
    order, seen = [], {}
    gate = threading.Event()

    def student(name):
        def on_wait(pos):
            seen.setdefault(name, []).append(pos)
        with lock.hold(on_wait=on_wait, poll_s=0.01):
            order.append(name)
            gate.wait(5) if name == "a" else time.sleep(0.01)

    threads = []
    for name in "abcd":
        t = threading.Thread(target=student, args=(name,))
        t.start()
        threads.append(t)
        deadline = time.monotonic() + 5
        while lock.waiting() + 1 < len(threads) and time.monotonic() < deadline:
            time.sleep(0.005)  # each student is in line before the next one arrives
    gate.set()
    for t in threads:
        t.join(10)
    assert order == list("abcd")
    assert "a" not in seen  # the first student never waited
    assert seen["b"][0] == 2 and seen["c"][0] == 3 and seen["d"][0] == 4
    assert seen["d"][-1] == 2  # d moved up as the others finished
    assert lock.waiting() == 0


def test_an_exception_while_waiting_leaves_the_line():
    lock = FairLock("test")
    holder = ticket_from_another_thread(lock)

    def on_wait(pos):
        raise KeyboardInterrupt  # what a stopped Streamlit session does inside a page call

    with pytest.raises(KeyboardInterrupt):
        with lock.hold(on_wait=on_wait):
            pass
    assert lock.waiting() == 0
    lock.leave(holder)


def test_a_timeout_leaves_the_line_with_a_clear_message():
    lock = FairLock("AOT measurements")
    ticket_from_another_thread(lock)
    with pytest.raises(TimeoutError, match=r"still 2nd in line"):
        with lock.hold(timeout_s=0.1, poll_s=0.01):
            pass
    assert lock.waiting() == 0


def test_the_holder_may_enter_again_without_waiting_for_itself():
    lock = FairLock("test")
    with lock.hold():
        with lock.hold():  # a helper inside the turn (clear_cache inside a measurement helper)
            assert lock.held_by_current_thread()
    assert not lock.held_by_current_thread() and lock.waiting() == 0


def test_a_waiter_hears_from_the_lock_at_least_every_heartbeat():
    """A page redraws its line on each call: that is when Streamlit can stop a closed session."""
    lock = FairLock("test")
    holder, waiter = lock.take_ticket(), lock.take_ticket()
    calls = []
    t = threading.Thread(target=lock.wait_turn, args=(waiter, calls.append),
                         kwargs={"poll_s": 0.01, "heartbeat_s": 0.05})
    t.start()
    time.sleep(0.5)
    lock.leave(holder)
    t.join(5)
    assert lock.position(waiter) == 1
    assert len(calls) >= 5 and set(calls) == {2}, calls


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"]

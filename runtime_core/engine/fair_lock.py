"""A first-come, first-served lock whose waiters can see where they are in line.

Every Streamlit session is a thread of one server process. When three students press "measure"
at once, one measures and two wait; a plain threading.Lock serves them in no particular order
and cannot tell a student that they are 2nd in line. FairLock hands out numbered tickets, serves
them in order, and answers `position(ticket)`:

    lock = FairLock("AOT measurements")
    with lock.hold(on_wait=lambda pos: show(f"you are {ordinal(pos)} in line")) as ticket:
        ...  # this thread's turn

Position 1 is the ticket being served; 2 is next, and so on. A waiter that gives up (a timeout,
or an exception raised inside `on_wait`, as Streamlit does when a session reruns or closes)
leaves the line, so nobody waits behind an abandoned ticket. A thread that already holds the
lock may enter it again (it is re-entrant), so a helper called inside a turn cannot deadlock.
"""
from __future__ import annotations

import contextlib
import itertools
import threading
import time


class FairLock:
    """FIFO tickets over a threading.Condition. Args: name (for messages)."""

    def __init__(self, name: str = "lock"):
        self.name = name
        self._cond = threading.Condition()
        self._line: list[int] = []          # tickets in order; _line[0] holds the lock
        self._owner: dict[int, int] = {}    # ticket -> thread id that took it
        self._numbers = itertools.count(1)
        self._entered = threading.local()   # `with lock:` contexts of this thread, innermost last

    # ---- the line ------------------------------------------------------------------------
    def take_ticket(self) -> int:
        """Join the end of the line; returns the ticket."""
        with self._cond:
            ticket = next(self._numbers)
            self._line.append(ticket)
            self._owner[ticket] = threading.get_ident()
            return ticket

    def position(self, ticket: int) -> int:
        """1 while `ticket` holds the lock, 2 when it is next, ... Raises KeyError if it left."""
        with self._cond:
            try:
                return self._line.index(ticket) + 1
            except ValueError:
                raise KeyError(f"ticket {ticket} is not in line for {self.name}") from None

    def waiting(self) -> int:
        """How many tickets wait behind the holder."""
        with self._cond:
            return max(0, len(self._line) - 1)

    def held_by_current_thread(self) -> bool:
        with self._cond:
            return bool(self._line) and self._owner.get(self._line[0]) == threading.get_ident()

    def leave(self, ticket: int) -> None:
        """Leave the line (done, or given up); whoever is next is woken."""
        with self._cond:
            if ticket in self._line:
                self._line.remove(ticket)
                self._owner.pop(ticket, None)
                self._cond.notify_all()

    def wait_turn(self, ticket: int, on_wait=None, poll_s: float = 0.25, timeout_s: float | None = None,
                  heartbeat_s: float = 1.0) -> None:
        """Block until `ticket` is first in line.

        Args:
            on_wait: called with the position (2, 3, ...) when waiting starts, whenever it
                changes, and at least every `heartbeat_s` (a page redraws its line then, which is
                also when Streamlit can stop a session that went away); called outside the
                lock, so it may be slow. An exception from it makes the ticket leave the line.
            poll_s: longest sleep between two looks at the line.
            timeout_s: give up after this long: the ticket leaves the line, TimeoutError.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        shown, told_at = None, 0.0
        try:
            while True:
                with self._cond:
                    pos = self.position(ticket)
                    if pos == 1:
                        return
                    due = on_wait is not None and time.monotonic() - told_at >= heartbeat_s
                    if pos == shown and not due:
                        left = None if deadline is None else deadline - time.monotonic()
                        if left is not None and left <= 0:
                            raise TimeoutError(f"waited {timeout_s:g} s for {self.name}: "
                                               f"still {ordinal(pos)} in line")
                        self._cond.wait(poll_s if left is None else min(poll_s, left))
                        continue
                shown, told_at = pos, time.monotonic()
                if on_wait is not None:
                    on_wait(pos)
        except BaseException:
            self.leave(ticket)
            raise

    def in_line(self) -> int:
        """Tickets in line, the holder included."""
        with self._cond:
            return len(self._line)

    # ---- `with lock:` (a drop-in for threading.Lock: a fair wait, no position shown) ----------
    def __enter__(self):
        ctx = self.hold()
        ctx.__enter__()
        self._entered.__dict__.setdefault("stack", []).append(ctx)
        return self

    def __exit__(self, *exc):
        return self._entered.stack.pop().__exit__(*exc)

    # ---- the usual way in ---------------------------------------------------------------------
    @contextlib.contextmanager
    def hold(self, on_wait=None, poll_s: float = 0.25, timeout_s: float | None = None):
        """Take a ticket, wait for the turn, yield the ticket, leave. Re-entrant per thread."""
        if self.held_by_current_thread():  # a helper inside this thread's turn: no second ticket
            yield self._line[0]
            return
        ticket = self.take_ticket()
        try:
            self.wait_turn(ticket, on_wait, poll_s, timeout_s)
            yield ticket
        finally:
            self.leave(ticket)


def ordinal(n: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"

"""The GPU's line: one measurement at a time, first come first served, with a cap, a place and
an estimate for whoever waits, and a shared cache so a setting is measured once for everyone.

Every Streamlit session is a thread of one server process. When a class opens the widget at
once, their measurements queue here:

    numbers = LIVE_RESULTS.get_or_make(key, lambda: measure_in_turn(fn, on_wait=show))

- `GPU_LOCK` (a FairLock) serves measurements in arrival order; `with GPU_LOCK:` still works
  for code that needs the GPU without showing a place in line.
- `measure_in_turn` refuses with `QueueFull` when `cap()` measurements are already in line:
  the page then shows the recorded numbers with a notice, rather than a long wait.
- A waiter is told its place and an estimate (`Waiting.describe`) at least once a second. A
  session that goes away while waiting raises inside that callback and leaves the line: it
  costs nothing.
- `SharedResults` is a bounded, expiring cache shared by all sessions. Two sessions asking for
  the same setting at once cost one measurement: the second waits for the first's result.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from .fair_lock import FairLock, ordinal

GPU_LOCK = FairLock("GPU measurements")
CAP_ENV = "RUNTIME_QUEUE_CAP"
DEFAULT_CAP = 8  # measurements in line (the one running included) before new ones are refused


def cap() -> int:
    """The line's cap: $RUNTIME_QUEUE_CAP (1..1000), else DEFAULT_CAP (a junk value is named
    in the pages' sidebar: env_check.notices)."""
    from ..env_check import queue_cap
    return queue_cap()[0]


class QueueFull(RuntimeError):
    """Too many measurements are waiting for the GPU; show recorded numbers instead."""


class _Durations:
    """A running mean of how long one measurement holds the GPU (for the estimate)."""

    def __init__(self, first_guess_s: float = 0.5):
        self._mean, self._lock = first_guess_s, threading.Lock()

    def add(self, seconds: float) -> None:
        with self._lock:
            self._mean = 0.7 * self._mean + 0.3 * seconds

    @property
    def mean_s(self) -> float:
        return self._mean


DURATIONS = _Durations()


@dataclass(frozen=True)
class Waiting:
    """Where a waiter stands: `position` (2 = next) and an estimate of the wait, seconds."""

    position: int
    estimate_s: float

    def describe(self) -> str:
        ahead = self.position - 1
        return (f"Waiting for the GPU: you are {ordinal(self.position)} in line ({ahead} "
                f"measurement{'s' if ahead != 1 else ''} ahead of you, about {max(self.estimate_s, 0.1):.1f} s).")


def measure_in_turn(fn, on_wait=None, limit: int | None = None):
    """Run `fn()` in this caller's turn on the GPU and return its result.

    Args:
        fn: the measurement.
        on_wait: called with a `Waiting` while the caller waits (not called when the GPU is free).
        limit: the cap (default `cap()`); QueueFull when that many are already in line.
    """
    if GPU_LOCK.held_by_current_thread():
        return fn()
    limit = cap() if limit is None else limit
    if GPU_LOCK.in_line() >= limit:
        raise QueueFull(f"{GPU_LOCK.in_line()} measurements are already waiting for the GPU "
                        f"(the cap is {limit})")

    def tell(position: int) -> None:
        if on_wait is not None:
            on_wait(Waiting(position, (position - 1) * DURATIONS.mean_s))
    with GPU_LOCK.hold(on_wait=tell):
        t0 = time.monotonic()
        try:
            return fn()
        finally:
            DURATIONS.add(time.monotonic() - t0)


class SharedResults:
    """A bounded, expiring, thread-safe cache of results keyed by setting, that computes each key
    once even when many threads ask for it at the same moment.

    Args:
        max_entries: oldest results are dropped past this many.
        ttl_s: a result older than this is measured again.
    """

    def __init__(self, max_entries: int = 256, ttl_s: float = 600.0):
        self.max_entries, self.ttl_s = max_entries, ttl_s
        self._done: OrderedDict = OrderedDict()   # key -> (made_at, value)
        self._making: dict = {}                   # key -> threading.Event of the thread making it
        self._lock = threading.Lock()
        self.made = 0                             # how many times a value was computed

    def get_or_make(self, key, make):
        """The cached value of `key`, or `make()`'s (one caller makes it, the others wait)."""
        while True:
            with self._lock:
                hit = self._done.get(key)
                if hit is not None and time.monotonic() - hit[0] <= self.ttl_s:
                    self._done.move_to_end(key)
                    return hit[1]
                busy = self._making.get(key)
                if busy is None:
                    busy = self._making[key] = threading.Event()
                    break
            busy.wait()  # another session is measuring this setting: take its result
            with self._lock:
                hit = self._done.get(key)
                if hit is not None:
                    return hit[1]
            # it failed (or was abandoned): try to make it ourselves
        try:
            value = make()
            with self._lock:
                self.made += 1
                self._done[key] = (time.monotonic(), value)
                self._done.move_to_end(key)
                while len(self._done) > self.max_entries:
                    self._done.popitem(last=False)
            return value
        finally:
            with self._lock:
                self._making.pop(key, None)
            busy.set()

    def __len__(self) -> int:
        with self._lock:
            return len(self._done)


LIVE_RESULTS = SharedResults()

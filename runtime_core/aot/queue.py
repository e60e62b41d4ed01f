"""One AOT measurement (or cache clear) at a time, first come first served, and where you are in line.

A measurement compiles, builds the C++ runner, writes packages and runs child processes for a
minute or more; two at once on a 2-core machine would each take twice as long and race for the
cache. So they queue, like the GPU's measurements queue behind engine/measure.py's GPU_LOCK,
but fairly and visibly:

    with aot_turn(on_wait=lambda w: placeholder.info(w.describe())):
        ...  # measure, or clear the cache

In this process (every Streamlit session is one of its threads) AOT_QUEUE hands out tickets in
order and tells each waiter its place. Across processes (the CLI beside the app) a flock on
<cache root>/.measure.lock keeps the same rule; a waiter for it is told "another process".
"Clear cache" takes the same turn, so it can never pull files from under a measurement.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..engine.fair_lock import FairLock, ordinal
from ..cache_lock import MEASURE_LOCK, file_lock
from ..cache_paths import cache_root

AOT_QUEUE = FairLock("AOT measurements")


@dataclass(frozen=True)
class Waiting:
    """Where a waiter stands: `position` in this process's line (2 = next), or `other_process`
    when this process's turn has come but another process (the CLI) is measuring."""

    position: int
    other_process: bool = False

    def describe(self) -> str:
        if self.other_process:
            return "waiting: another process (a command-line run) is using the AOT cache"
        ahead = self.position - 1
        return (f"waiting: you are {ordinal(self.position)} in line ({ahead} "
                f"{'measurement or cache clear' if ahead == 1 else 'measurements or cache clears'} ahead of you)")


@contextlib.contextmanager
def aot_turn(on_wait=None, poll_s: float = 0.25, timeout_s: float | None = None):
    """Wait for this caller's turn at the AOT cache (FIFO in this process, flock across processes).

    Args:
        on_wait: called with a `Waiting` whenever the caller's place changes while it waits.
        poll_s: seconds between looks at the line.
        timeout_s: give up waiting in this process's line after this long (TimeoutError).
    Re-entrant: a thread whose turn it is may call it again (clear_cache inside a measurement
    helper would otherwise wait for itself).
    """
    def tell(position: int) -> None:
        if on_wait is not None:
            on_wait(Waiting(position))

    def tell_other() -> None:
        if on_wait is not None:
            on_wait(Waiting(1, other_process=True))

    if AOT_QUEUE.held_by_current_thread():
        yield
        return
    with AOT_QUEUE.hold(on_wait=tell, poll_s=poll_s, timeout_s=timeout_s):
        with file_lock(cache_root() / MEASURE_LOCK, on_wait=tell_other, poll_s=poll_s):
            yield

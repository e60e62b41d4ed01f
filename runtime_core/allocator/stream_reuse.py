"""Where a freed block becomes reusable: after the events recorded on the streams that used it.

The CPU frees a tensor as soon as Python drops it, but kernels queued on other streams may still
read or write its bytes. So at free time the pool records one event on every such stream (the
streams named with `record_stream`) and parks the block here. A parked block goes back on the
free list only when all its events have completed, which `ready()` checks by querying them
(no waiting). `wait_all()` blocks until they complete; the pool uses it before giving memory
back to the backend.
"""
from __future__ import annotations


class PendingFrees:
    """Blocks freed by the caller but possibly still in use on another stream.

    Args:
        backend: provides new_event() -> event with record(stream)/query(), and wait_event(event).
    """

    def __init__(self, backend):
        self._backend = backend
        self._parked: list[tuple[object, list]] = []  # (block, events still to complete)

    def park(self, block, streams) -> None:
        """Record an event on each stream in `streams` and hold `block` until they all complete."""
        events = []
        for stream in streams:
            event = self._backend.new_event()
            event.record(stream)
            events.append(event)
        self._parked.append((block, events))

    def ready(self) -> list:
        """Remove and return the parked blocks whose events have all completed (queried, no wait)."""
        done, still = [], []
        for block, events in self._parked:
            (done if all(e.query() for e in events) else still).append((block, events))
        self._parked = still
        return [block for block, _ in done]

    def wait_all(self) -> list:
        """Wait for every parked block's events, then remove and return all the blocks."""
        for _, events in self._parked:
            for event in events:
                self._backend.wait_event(event)
        blocks = [block for block, _ in self._parked]
        self._parked = []
        return blocks

    def __len__(self) -> int:
        return len(self._parked)

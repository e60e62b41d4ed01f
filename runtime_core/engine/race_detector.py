"""The simulator's race detector: two ops on different streams touch one buffer, one of them
writes, and nothing orders them.

Ordering is tracked with vector clocks, not with the simulated times: a race is a missing
happens-before edge, whether or not the two ops happened to overlap in this run. The edges are
the ones CUDA gives:
    stream order      ops on one stream run in the order they were enqueued
    events            record(s) then wait(s2): s2's later ops come after s's earlier ones
    wait_stream       the same edge, without a user-visible event
    host waits        after synchronize(), a finished event query, or item(), everything the
                      host waited for comes before anything it enqueues next
Each op is checked when it is enqueued against the buffer's last write and, if it writes,
against every read since that write.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class RaceError(RuntimeError):
    """Two unordered ops on different streams touched the same buffer, and one wrote it."""


Clock = dict  # stream id -> how many ops of that stream are known to come before


def _merge(a: Clock, b: Clock) -> Clock:
    out = dict(a)
    for k, v in b.items():
        if v > out.get(k, 0):
            out[k] = v
    return out


@dataclass
class _Access:
    stream: int
    seq: int        # the op's position on its stream (1-based)
    what: str       # op name, for the message


@dataclass
class _History:
    last_write: _Access | None = None
    reads: list[_Access] = field(default_factory=list)


class RaceDetector:
    """Happens-before bookkeeping for one SimDevice.

    Args:
        raise_on_race: raise RaceError at the first race (default); when False, keep going as a
            GPU would (silently) and collect each race's message in `found`, so a lab can show
            both the detector's verdict and the wrong value the race produced.
    """

    def __init__(self, raise_on_race: bool = True):
        self.raise_on_race = raise_on_race
        self.found: list[str] = []
        self._streams: dict[int, Clock] = {}   # each stream's clock: what its next op comes after
        self._host: Clock = {}                 # what the host has waited for
        self._host_version = 0                 # bumped when the host waits for more
        self._seen_host: dict[int, int] = {}   # per stream: the host version merged into it
        self._buffers: dict[int, _History] = {}

    # ---- edges --------------------------------------------------------------------------
    def clock_of(self, sid: int) -> Clock:
        return dict(self._streams.get(sid, {}))

    def wait(self, waiter: int, clock: Clock) -> None:
        """`waiter`'s later ops come after everything `clock` covers (an event or stream wait)."""
        mine = self._streams.setdefault(waiter, {})
        for k, v in clock.items():
            if v > mine.get(k, 0):
                mine[k] = v

    def host_waited_for(self, clock: Clock) -> None:
        """The host saw `clock`'s ops finish: what it enqueues next comes after them."""
        self._host = _merge(self._host, clock)
        self._host_version += 1

    def host_waited_for_all(self) -> None:
        for clock in self._streams.values():
            self._host = _merge(self._host, clock)
        self._host_version += 1

    # ---- ops ----------------------------------------------------------------------------
    def op(self, sid: int, what: str, reads=(), writes=()) -> None:
        """Enqueue an op on stream `sid` that reads and writes the given buffer keys; raises
        RaceError when it is unordered with an earlier conflicting access."""
        clock = self._streams.setdefault(sid, {})
        if self._seen_host.get(sid) != self._host_version:  # the host waited since: it orders us
            for k, v in self._host.items():
                if v > clock.get(k, 0):
                    clock[k] = v
            self._seen_host[sid] = self._host_version
        seq = clock.get(sid, 0) + 1
        clock[sid] = seq
        me = _Access(sid, seq, what)
        buffers = self._buffers
        for key in reads:
            if key in writes:
                continue  # a write checks everything a read would
            h = buffers.get(key)
            if h is None:
                h = buffers[key] = _History()
            self._check(me, clock, h.last_write, key)
            h.reads.append(me)
        for key in writes:
            h = buffers.get(key)
            if h is None:
                h = buffers[key] = _History()
            self._check(me, clock, h.last_write, key)
            for r in h.reads:
                self._check(me, clock, r, key)
            h.last_write, h.reads = me, []

    # ---- runs of one op, in bulk (SimDevice's bulk chain launches) ----------------------
    def same_op_again(self, sid: int, what: str, key: int, times: int) -> None:
        """What `times` more op(sid, what, (key,), (key,)) calls do right after one such call with
        no host wait between: each comes after the last in stream order, so none can race; the
        stream's clock moves on and the buffer's last write is the last of them."""
        if times <= 0:
            return
        clock = self._streams[sid]
        clock[sid] = seq = clock[sid] + times
        h = self._buffers[key]
        h.last_write, h.reads = _Access(sid, seq, what), []

    def steady_blocking(self, sid: int, key: int) -> bool:
        """True when the host has waited for everything every stream has enqueued and stream
        `sid` knows it (its clock covers the host's), and `key` was last written on `sid` with no
        read since: then each launch on `sid` followed by host_waited_for_all() keeps it so."""
        clock, host = self._streams.get(sid), self._host
        if clock is None or self._seen_host.get(sid) is None:
            return False
        for c in self._streams.values():
            for k, v in c.items():
                if host.get(k, 0) < v:
                    return False
        for k, v in host.items():
            if clock.get(k, 0) < v:
                return False
        h = self._buffers.get(key)
        return h is not None and h.last_write is not None and h.last_write.stream == sid and not h.reads

    def blocking_again(self, sid: int, what: str, key: int, times: int) -> None:
        """What `times` × (op(sid, what, (key,), (key,)), host_waited_for_all()) do from the state
        steady_blocking() checks."""
        if times <= 0:
            return
        clock = self._streams[sid]
        clock[sid] = seq = clock[sid] + times
        self._host = dict(self._host)
        self._host[sid] = seq
        self._host_version += times
        self._seen_host[sid] = self._host_version - 1
        h = self._buffers[key]
        h.last_write, h.reads = _Access(sid, seq, what), []

    def _check(self, me: _Access, clock: Clock, earlier: _Access | None, key: int) -> None:
        if earlier is None or earlier.stream == me.stream:
            return  # stream order covers ops on one stream
        if clock.get(earlier.stream, 0) >= earlier.seq:
            return  # an event, a stream wait or a host wait put `earlier` before `me`
        message = (f"race on buffer {key:#x}: '{me.what}' on stream {me.stream} is not ordered after "
                   f"'{earlier.what}' on stream {earlier.stream}; record an event (or wait_stream) "
                   f"between them")
        if self.raise_on_race:
            raise RaceError(message)
        self.found.append(message)

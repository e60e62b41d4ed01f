"""Which CPU cores the measuring thread runs on: migrations between cores add timing noise, so
timing runs pinned to one core, and children that need every core get them back (the trace worker).

Which core: `RUNTIME_CORE_PIN` chooses (env_check.core_pin reads it).
    middle    the middle one of the cores this process may use (when it has more than two): the
              default
    fastest   the one that runs a short pure-Python loop quickest right now, probed on every core
              each time a timing starts. On the shared H200 virtual machine each virtual core is
              slowed, for seconds at a time, by what runs beside it on the physical host (one decode
              step at ~7, ~10 and ~13 ms on one core while another core ran fast). It lowered H and
              steadied it in a probe, but predicted the external grid worse than the middle core
              side by side (21 of 40 against 27 of 39 within ±15%; README, Known limits), so it is
              not the default.
"""
from __future__ import annotations

import contextlib
import os
import time

from ..errors import UsageError

SPIN_LOOPS = 2000   # the speed probe: this many interpreted additions, ~60-100 µs on a server core
SPIN_REPS = 3       # ... best of this many on each core


def pin_mode() -> str:
    """RUNTIME_CORE_PIN's mode (env_check.core_pin: a value it does not know means "middle", and
    the app's sidebar and `make run` say so)."""
    from ..env_check import core_pin
    return core_pin()[0]


def _spin() -> int:
    x = 0
    for i in range(SPIN_LOOPS):
        x += i
    return x


def core_speeds_us(cores) -> dict[int, float]:
    """Per core: the best of SPIN_REPS runs of the probe loop on it, µs (this thread is moved to
    each core in turn and left on the last)."""
    out = {}
    for c in cores:
        os.sched_setaffinity(0, {c})
        best = float("inf")
        for _ in range(SPIN_REPS):
            t0 = time.perf_counter()
            _spin()
            best = min(best, time.perf_counter() - t0)
        out[c] = round(best * 1e6, 2)
    return out


def choose_core(cores: list[int], mode: str | None = None) -> int:
    """The core to time on, of `cores` (sorted), by `mode` (default: pin_mode())."""
    if (mode or pin_mode()) == "fastest":
        speeds = core_speeds_us(cores)
        return min(speeds, key=speeds.get)
    return cores[len(cores) // 2]


def pin_to_one_core(mode: str | None = None) -> set[int] | None:
    """Pin this thread to one core (choose_core); returns the cores it had (None where affinity is
    not available, or with two cores or fewer, where nothing changes)."""
    try:
        before = os.sched_getaffinity(0)
        cores = sorted(before)
        if len(cores) > 2:
            os.sched_setaffinity(0, {choose_core(cores, mode)})
            return before
    except (AttributeError, OSError):
        pass
    return None


@contextlib.contextmanager
def one_core(mode: str | None = None):
    """Run the enclosed timing on one core, then give the process its cores back (torch.compile's
    workers, started later, need them)."""
    before = pin_to_one_core(mode)
    try:
        yield
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)


def all_cores() -> None:
    """In a child process: run on any core it may use (every core, or RUNTIME_CORE_CPUS's), even if
    the parent pinned itself to one."""
    try:
        os.sched_setaffinity(0, allowed_cpus() or range(os.cpu_count() or 1))
    except (AttributeError, OSError, UsageError):
        pass


CPUS_ENV = "RUNTIME_CORE_CPUS"  # e.g. "16,17,18": the cores a process, and the children it starts, may use


MAX_CPU_NUMBER = 1 << 16  # Linux's CONFIG_NR_CPUS tops out at 8192; beyond this a value is a typo


def parse_cpus(raw: str) -> set[int]:
    """The cores of a RUNTIME_CORE_CPUS value: numbers and ranges, comma-separated ("0-3,8")."""
    cpus = set()
    for part in raw.split(","):
        lo, dash, hi = part.strip().partition("-")
        if not lo.isdigit() or (dash and not hi.isdigit()) or int(hi or lo) < int(lo):
            cpus = set()
            break
        if int(hi or lo) >= MAX_CPU_NUMBER:  # named before a set of a billion cores is built
            raise UsageError(f"{CPUS_ENV}={raw[:40]!r} names core {int(hi or lo)}; core numbers here are below "
                             f"{MAX_CPU_NUMBER}")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    if not cpus:
        raise UsageError(f"{CPUS_ENV}={raw!r} is not a list of CPU cores: give numbers and ranges, such as 0-3,8")
    return cpus


def allowed_cpus() -> set[int] | None:
    """RUNTIME_CORE_CPUS's cores, None where it is unset or empty."""
    raw = os.environ.get(CPUS_ENV, "").strip()
    return parse_cpus(raw) if raw else None


def cpus_arg(cores) -> str:
    """`cores` as a RUNTIME_CORE_CPUS value."""
    return ",".join(str(c) for c in sorted(cores))


def apply_cpus_env() -> None:
    """Run this process on RUNTIME_CORE_CPUS's cores where it is set (the recorder of the external
    grid gives each of the fresh processes it runs at once a share of its own): the timing core is
    then the middle one of those (choose_core). A UsageError where the value is not cores this
    machine lets the process use."""
    cpus = allowed_cpus()
    if cpus is None:
        return
    try:
        os.sched_setaffinity(0, cpus)
    except (AttributeError, OSError) as e:
        raise UsageError(f"{CPUS_ENV}={cpus_arg(cpus)}: this process cannot run on those cores ({e})") from None

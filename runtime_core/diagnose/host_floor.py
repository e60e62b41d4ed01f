"""The host's floor: how a diagnosis reads H and the measured steps on a host whose speed wanders.

On the H200's virtual machine the CPU runs the same Python up to 2.4x slower for a fraction of a
second to tens of seconds at a time, on every core, with no steal time and no other process on the
core (tests/gpu_runs/steal_probe.py, 2026-12-02: the thread's own CPU clock slows exactly as the
wall clock does, so the physical core itself runs slower: a busy neighbour on it, or a lower clock).
A median over half a second is then a draw of the neighbour's load, and it does not repeat: two
whole grids agreed on the eager step at 18 of 41 points.

What does repeat is the floor: the fastest the host runs the step, read as the best of many rounds
spread over seconds (Python's own `timeit` advises the same: the lowest of several repeats, since
slower ones are other work getting in the way, not the code). In one process, the floor of
fifteen seconds of H rounds was within ±15% of the floor of the next fifteen seconds of eager steps
at 137 of 140 moments over six probes of four networks (90-100% each), the medians at 83 of 140;
with ten-second windows 179 of 200 and 142 of 200 (tests/gpu_runs/floor_repeat.py, on the
repeat_probe and steal_probe recordings: no grid point). Two partial runs of the external grid
with ten-second windows (2026-12-02) were within ±15% at 15 of 19 and 19 of 19 points.

So a diagnosis made with `FLOOR` (every new one):
- H is the lowest of HOST_ROUNDS rounds spread over HOST_WINDOW_S seconds (each round the median
  of its own reps), timed before anything is predicted;
- every variant's step time is the lowest of MEASURE_ROUNDS round medians spread over
  MEASURE_WINDOW_S seconds, timed after; each variant's median over all its steps is kept beside it;
- the band lets the floor move as far as it moved between the two halves of the H rounds.
Points recorded before the floor (`RECENT`) keep their own rule: H the median of the last five
rounds, the band from the j-th lowest and highest rounds (diagnosis.band_rounds).
"""
from __future__ import annotations

import statistics
import time

FLOOR = "floor"     # point["timing"]["statistic"] of a diagnosis made with the rules above
RECENT = "recent"   # a point recorded before them (no "timing"): H the median of the last rounds

HOST_ROUNDS = 60        # H rounds before anything is predicted ...
HOST_WINDOW_S = 15.0    # ... spread evenly over this many seconds (0 on a virtual clock)
MEASURE_ROUNDS = 60     # rounds of every variant's steps, interleaved ...
MEASURE_WINDOW_S = 15.0  # ... spread evenly over this many seconds
VIRTUAL_HOST_ROUNDS = 5     # a virtual clock gives every round the same H: a few rounds say so ...
VIRTUAL_MEASURE_ROUNDS = 1  # ... and the same step time: one round, back to back
ROUND_BUDGET_US = 50_000.0  # one variant's steps in one measuring round, about
ROUND_REPS = (3, 5)     # ... at least 3 steps (a median), at most 5


def timing_fields(virtual: bool, host_window_s: float = HOST_WINDOW_S) -> dict:
    """What a point keeps of how it was timed (point["timing"]); a virtual clock times its few rounds
    back to back."""
    if virtual:
        return {"statistic": FLOOR, "host_rounds": VIRTUAL_HOST_ROUNDS, "host_window_s": 0.0,
                "measure_rounds": VIRTUAL_MEASURE_ROUNDS, "measure_window_s": 0.0}
    return {"statistic": FLOOR, "host_rounds": HOST_ROUNDS, "host_window_s": host_window_s,
            "measure_rounds": MEASURE_ROUNDS, "measure_window_s": MEASURE_WINDOW_S}


def describe(timing: dict) -> str:
    """A point's timing rule in a few words, for messages."""
    return (f"the floor of {timing['host_rounds']} H rounds over {timing['host_window_s']:g} s, then of "
            f"{timing['measure_rounds']} rounds of steps over {timing['measure_window_s']:g} s")


def statistic(point: dict) -> str:
    """FLOOR for a point timed by this module's rules, RECENT for one recorded before them."""
    return (point.get("timing") or {}).get("statistic", RECENT)


def floor_us(rounds: list[float]) -> float:
    """The floor of `rounds`: the lowest (each round is already the median of its own reps)."""
    return round(min(rounds), 3)


def floor_interval(rounds: list[float]) -> tuple[float, float]:
    """The band's H interval around floor_us(rounds) (rounds in the order they were timed): the
    floor moved by ±d, where d is how far the floors of the first and the second half of the
    rounds differ (what half the window did to the floor, allowed once more for the steps after)."""
    f = min(rounds)
    if len(rounds) < 2 or f <= 0:
        return f, f
    half = len(rounds) // 2
    d = abs(min(rounds[:half]) - min(rounds[half:])) / f
    return round(f * (1 - d), 3), round(f * (1 + d), 3)


def round_reps(guess_us: float) -> int:
    """Steps of one variant in one measuring round: about ROUND_BUDGET_US of them, within ROUND_REPS."""
    lo, hi = ROUND_REPS
    return max(lo, min(hi, int(ROUND_BUDGET_US / max(guess_us, 1.0))))


def summarize(round_medians: list[float], samples: list[float]) -> dict:
    """One variant's measurement: its floor (us), the median of every step (median_us), and the
    round medians in the order they were timed (rounds_us)."""
    return {"us": floor_us(round_medians), "median_us": round(statistics.median(samples), 3),
            "rounds_us": [round(r, 1) for r in round_medians]}


def spread(rounds: int, spread_s: float):
    """Yield 0 .. rounds−1, sleeping between them so that round i starts no earlier than
    i·spread_s/rounds seconds after the first (0: back to back)."""
    t0 = time.monotonic()
    for i in range(rounds):
        yield i
        wait = t0 + (i + 1) * spread_s / rounds - time.monotonic()
        if wait > 0 and i + 1 < rounds:
            time.sleep(wait)

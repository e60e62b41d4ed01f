"""d2h_hazard on a GPU: a device-to-host copy with non_blocking=True returns before the bytes
arrive. Read before the stream is synchronized, the pinned buffer holds what was there before.

Each trial: a kernel that keeps the stream busy (torch.cuda._sleep), then the result written
(x.fill_(trial value)), then the copy to the host, then the host reads. The checksum of what the
host read is compared with the synchronized copy's (the trial value × numel). Ways to read:
    early            host.copy_(x, non_blocking=True), read at once
    to_cpu           y = x.to("cpu", non_blocking=True) (torch pins y for you), read at once
    sync_before      torch.cuda.synchronize() before the copy, none after: the copy itself is async
    event            an event recorded after the copy, event.synchronize() before the read (the fix)
    sync_after       the stream synchronized after the copy, before the read (the fix)
Stream priorities, measured beside it: a small kernel and its one-value copy to the host, issued
while a long background job runs on another stream, from a normal- and a high-priority stream.
"""
from __future__ import annotations

import statistics
import time

import torch

from .common import attempt, environment, need_cuda

NUMEL = 1 << 22            # 16 MiB of float32
TRIALS = 6
SLEEP_CYCLES = 20_000_000  # about 10 ms of busy stream before the result is written
BG_NUMEL, BG_KERNELS, PRIORITY_TRIALS = 1 << 26, 30, 25


def _trial(way: str, x, host, value: float) -> float:
    torch.cuda.synchronize()
    host.fill_(-1.0)
    torch.cuda._sleep(SLEEP_CYCLES)
    x.fill_(value)
    if way == "sync_before":
        torch.cuda.synchronize()
    if way == "to_cpu":
        y = x.to("cpu", non_blocking=True)
        seen = float(y.sum())
    else:
        host.copy_(x, non_blocking=True)
        if way == "event":
            ev = torch.cuda.Event()
            ev.record()
            ev.synchronize()
        elif way == "sync_after":
            torch.cuda.current_stream().synchronize()
        seen = float(host.sum())
    torch.cuda.synchronize()
    return seen


def _issue_us(x, host) -> dict:
    """Host µs to issue the copy, non_blocking vs blocking (what non_blocking buys)."""
    out = {}
    for name, nb in (("non_blocking", True), ("blocking", False)):
        times = []
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            host.copy_(x, non_blocking=nb)
            times.append((time.perf_counter() - t0) * 1e6)
            torch.cuda.synchronize()
        out[name] = round(statistics.median(times), 2)
    return out


def _priorities() -> dict:
    least, greatest = torch.cuda.Stream.priority_range()
    bg = torch.cuda.Stream(priority=least)
    streams = {"normal": torch.cuda.Stream(priority=least), "high": torch.cuda.Stream(priority=greatest)}
    big = torch.ones(BG_NUMEL, device="cuda")
    small = torch.zeros(1024, device="cuda")
    one = torch.empty(1, pin_memory=True)
    lat = {k: [] for k in streams}
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.cuda.stream(bg):
        for _ in range(BG_KERNELS):
            big.mul_(1.0000001)
    torch.cuda.synchronize()
    bg_us = (time.perf_counter() - t0) * 1e6
    for _ in range(PRIORITY_TRIALS):
        for name, s in streams.items():
            torch.cuda.synchronize()
            with torch.cuda.stream(bg):
                for _ in range(BG_KERNELS):
                    big.mul_(1.0000001)
            t0 = time.perf_counter()
            with torch.cuda.stream(s):
                small.add_(1.0)
                one.copy_(small[:1], non_blocking=True)
                ev = torch.cuda.Event()
                ev.record(s)
            ev.synchronize()
            lat[name].append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return {"priority_range": [int(least), int(greatest)], "background_us": round(bg_us, 1),
            "background_kernels": BG_KERNELS, "trials": PRIORITY_TRIALS,
            "normal_us": round(statistics.median(lat["normal"]), 1),
            "high_us": round(statistics.median(lat["high"]), 1)}


def measure() -> dict:
    need_cuda()
    x = torch.empty(NUMEL, device="cuda")
    host = torch.empty(NUMEL, pin_memory=True)
    out = {"env": environment(), "numel": NUMEL, "bytes": NUMEL * 4, "trials": TRIALS, "sleep_cycles": SLEEP_CYCLES,
           "ways": {}}
    for way in ("early", "to_cpu", "sync_before", "event", "sync_after"):
        stale, seen = 0, []
        for t in range(TRIALS):
            value = float(t + 1)
            got = _trial(way, x, host, value)
            stale += got != value * NUMEL
            seen.append(got)
        out["ways"][way] = {"stale_trials": int(stale), "checksums": seen[:3],
                            "expected": [float(t + 1) * NUMEL for t in range(3)]}
    out["issue_us"] = attempt(lambda: _issue_us(x, host))
    out["priority"] = attempt(_priorities)
    return out

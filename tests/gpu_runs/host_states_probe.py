"""Issue 25's open question (not product code): why does this host run Python in a fast and a slow
state (~1.8x apart in the external grid's eager steps, ~1.4x in the chain's launch tax), and does
the timing's pinning to one core cause it?

For one model step, in one process, 3 conditions x 30 blocks, interleaved condition by condition:
    pinned to the middle core (what the diagnosis does), pinned to core 1, not pinned
each block = an H round (9 reps, as diagnosis.host_rounds) then 9 synced eager steps. Per block it
keeps both medians, the core the thread ran on, and the per-core busy share of /proc/stat over the
block, so a slow block can be matched with what else ran on its core.

    python3 tests/gpu_runs/host_states_probe.py OUT.json [validation.external:gpt2_decode] [1] [bf16]
"""
import json
import os
import statistics
import sys
import time

import torch

from runtime_core.diagnose.diagnosis import prepare
from runtime_core.diagnose.runners import get_runner
from runtime_core.diagnose.spec import Spec

BLOCKS, REPS = 30, 9


def cpu_times() -> list[tuple[int, int]]:
    rows = []
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                v = list(map(int, line.split()[1:]))
                rows.append((sum(v) - v[3] - v[4], sum(v)))
    return rows


def busy(a, b) -> list[float]:
    return [round((b1 - a1) / max(1, (t1 - t0)), 3) for (a1, t0), (b1, t1) in zip(a, b)]


def block(step, request) -> dict:
    for _ in range(2):
        step(*request)
    torch.cuda.synchronize()
    h, e = [], []
    for _ in range(REPS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step(*request)
        h.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    for _ in range(REPS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step(*request)
        torch.cuda.synchronize()
        e.append((time.perf_counter() - t0) * 1e6)
    return {"h_us": round(statistics.median(h), 1), "eager_us": round(statistics.median(e), 1)}


def main(out: str, model: str, batch: int, dtype: str) -> None:
    runner = get_runner("cuda")
    step = runner.build(prepare(runner, Spec(model, batch, None, dtype)))
    request = step.clone_inputs()
    allc = sorted(os.sched_getaffinity(0))
    conditions = {"pinned_middle": {allc[len(allc) // 2]}, "pinned_core1": {allc[1]}, "unpinned": set(allc)}
    rows = []
    for i in range(BLOCKS):
        for name, cores in conditions.items():
            os.sched_setaffinity(0, cores)
            a = cpu_times()
            r = block(step, request)
            b = cpu_times()
            rows.append({"block": i, "condition": name, "cpu": os.sched_getcpu() if hasattr(os, "sched_getcpu") else None,
                         **r, "core_busy": busy(a, b)})
        os.sched_setaffinity(0, set(allc))
    summary = {}
    for name in conditions:
        h = [r["h_us"] for r in rows if r["condition"] == name]
        e = [r["eager_us"] for r in rows if r["condition"] == name]
        ratio = [r["eager_us"] / r["h_us"] for r in rows if r["condition"] == name]
        summary[name] = {"h_min": min(h), "h_max": max(h), "h_median": statistics.median(h),
                         "eager_min": min(e), "eager_max": max(e), "eager_over_h_min": round(min(ratio), 3),
                         "eager_over_h_max": round(max(ratio), 3)}
    with open(out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "model": model,
                   "batch": batch, "dtype": dtype, "summary": summary, "rows": rows}, f)
    print(json.dumps(summary, indent=1))
    runner.close()


if __name__ == "__main__":
    a = sys.argv[1:] + [None] * 4
    main(a[0], a[1] or "validation.external:gpt2_decode", int(a[2] or 1), a[3] or "bf16")

"""Issue 25's open question (not product code): does the *measurement* repeat? On the H200 a point's
measured speedup agreed with its own fresh re-check within ±15% at 5 of 10 points (the eager step
at 3 of 10; the graph step at 10 of 10), so no prediction can be judged right against one
measurement more often than that. This probe asks how long an eager timing window must be for two
windows of one process to agree within ±15%, and how well H, timed in the seconds before a window,
predicts it.

For each point, in one process, pinned to one core as the diagnosis times (engine.cores), blocks
back to back for SECONDS: each block = one H round (2 warm-ups, 9 reps, as diagnosis.host_rounds)
then 5 synced eager steps and 5 synced graph replays (our GraphedStep). Every block keeps its start
time and its three medians, so windows of any length can be formed offline.

    python3 tests/gpu_runs/repeat_probe.py OUT.json SECONDS name:batch:dtype ...
"""
import json
import statistics
import sys
import time

import torch

from runtime_core.diagnose.diagnosis import prepare
from runtime_core.diagnose.graph_step import GraphedStep
from runtime_core.diagnose.runners import get_runner
from runtime_core.diagnose.spec import Spec
from runtime_core.engine.cores import one_core


def timed(fn, reps, sync_after):
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if sync_after:
            torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(out)


def probe(runner, name, batch, dtype, seconds):
    step = runner.build(prepare(runner, Spec(f"validation.external:{name}", batch, None, dtype)))
    graphed = GraphedStep(runner, step)
    x = step.clone_inputs()
    eager, graph = (lambda: step(*x)), (lambda: graphed(*x))
    for _ in range(3):
        eager(), graph()
    torch.cuda.synchronize()
    rows, t0 = [], time.monotonic()
    with one_core():
        while time.monotonic() - t0 < seconds:
            t = time.monotonic() - t0
            eager(), eager()
            h = timed(eager, 9, False)
            e = timed(eager, 5, True)
            g = timed(graph, 5, True)
            rows.append([round(t, 3), round(h, 1), round(e, 1), round(g, 1)])
    graphed = step = None
    runner.cleanup()
    return {"name": name, "batch": batch, "dtype": dtype, "rows": rows}


def main(out, seconds, points):
    runner = get_runner("cuda")
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seconds": seconds,
           "columns": ["t_s", "h_us", "eager_us", "graph_us"], "points": []}
    for p in points:
        name, b, dt = p.split(":")
        doc["points"].append(probe(runner, name, int(b), dt, seconds))
        with open(out, "w") as f:
            json.dump(doc, f)
        r = doc["points"][-1]["rows"]
        print(p, len(r), "blocks; eager", min(x[2] for x in r), "-", max(x[2] for x in r), flush=True)
    runner.close()


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), sys.argv[3:])

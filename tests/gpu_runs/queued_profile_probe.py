"""Issue 25 (not product code): do a real network's kernels run for as long in its graph as the
profiled eager step says, or does the eager step's pacing change their durations?

The diagnosis predicts a graph step from the durations of one profiled eager step. At a host-bound
point that step is paced by the host: the GPU idles ~10-20 µs before each kernel. In the replayed
graph the same kernels run back to back. The external grid's graph steps miss by a steady amount
per network and dtype (GPT-2 decode: -6.5% in bf16, +4 to +8% in fp32, the same in every grid),
and kernels of our own making, profiled with short gaps, do not show it.

For each point, in one process, nothing profiled before the timing:
    G   the graph step as the diagnosis measures it (copies, one replay, sync), median of rounds
    R   one replay's GPU time with replays queued back to back (20 per sync)
then three profiles of the step as it would be captured (profile_step.capture_answer):
    paced   the eager step as the diagnosis profiles it (the host paces the GPU)
    queued  the same eager step queued behind a sleep kernel, so its operations run back to back
            as launched one by one (no capture, no replay: still one profiled eager step)
    replay  one profiled graph replay (the profiler slows replays; kept for reference)
Every operation's duration is kept for each, so per-kind differences can be read offline.

    python3 tests/gpu_runs/queued_profile_probe.py OUT.json name:batch:dtype ...     (CUDA)

The H200's answer (2026-12-04 20:55, queued_profile_h200.json, 14 points of six networks): no.
Queued or paced, the step's summed durations agree within -1.0% to +1.1% (two pairs a point;
two paced profiles of one point differ by up to 0.8%), so the eager step's pacing is not what
moves the graph step. A caution for readers of the file: only the first point was timed in a
process that had profiled nothing; after a profile, one replay() call costs the host 125-250 µs
instead of 8 (decode_copy_probe.py measured it), so later points' graph_wall_us are inflated,
while replay_bulk_us (20 replays queued, still GPU-bound) is not. The first point, GPT-2 decode
bf16 at batch 1, replayed in 794 µs: 0.42 µs a node beyond its kernels, where all six grids of
2026-12-02 to 12-04 03:32 measured its whole graph step at 689-696 µs.
"""
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from repeat_probe import timed, warm_steps  # noqa: E402

from runtime_core.diagnose.profile_step import capture_answer  # noqa: E402
from runtime_core.model.node_costs import gpu_events  # noqa: E402
from runtime_core.model.stream_gaps import cycles_per_us  # noqa: E402


def rows(ev, skip_first: bool = False) -> list:
    ev = ev[1:] if skip_first else ev
    return [[e["cat"][:6], round(e["ts"], 3), round(e["dur"], 3), e["grid"], e["name"][:70]] for e in ev]


def summary(ops) -> dict:
    if not ops:
        return {}
    span = ops[-1][1] + ops[-1][2] - ops[0][1]
    busy = sum(o[2] for o in ops)
    return {"ops": len(ops), "busy_us": round(busy, 2), "span_us": round(span, 2),
            "gap_per_op_us": round((span - busy) / max(1, len(ops) - 1), 4)}


def bulk_us(replay, reps: int = 20, rounds: int = 7) -> float:
    """GPU time of one replay: `reps` calls of `replay` queued back to back, per call, median of `rounds`."""
    out = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            replay()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) / reps * 1e6)
    return statistics.median(out)


def bulk_replay_us(graphed, reps: int = 20, rounds: int = 7) -> float:
    return bulk_us(graphed.graph.replay, reps, rounds)


def probe(runner, name, batch, dtype, per_us):
    step, graphed, eager, graph = warm_steps(runner, name, batch, dtype)
    g_wall = statistics.median(timed(graph, 10, True) for _ in range(9))
    replay = bulk_replay_us(graphed)
    h = statistics.median(timed(eager, 5, False) for _ in range(5))
    sleep_cycles = int(max(5000.0, 8.0 * h) * per_us)

    def paced():
        with capture_answer(True):
            eager()

    def queued():
        torch.cuda._sleep(sleep_cycles)
        with capture_answer(True):
            eager()

    out = {"name": name, "batch": batch, "dtype": dtype, "graph_wall_us": round(g_wall, 2),
           "replay_bulk_us": round(replay, 2), "host_us": round(h, 1), "sleep_us": round(sleep_cycles / per_us, 1)}
    for label, fn, skip in (("paced", paced, False), ("queued", queued, True), ("paced2", paced, False),
                            ("queued2", queued, True), ("replay", lambda: graphed.graph.replay(), False)):
        torch.cuda.synchronize()
        ops = rows(gpu_events(fn, name_chars=70), skip)
        out[label] = summary(ops)
        if label in ("paced", "queued", "replay"):
            out[label + "_ops"] = ops
    graphed = step = None
    runner.cleanup()
    return out


def main(path, points):
    from runtime_core.diagnose.runners import get_runner
    runner = get_runner("cuda")
    per_us = cycles_per_us()
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "points": []}
    for p in points:
        name, b, dt = p.split(":")
        try:
            r = probe(runner, name, int(b), dt, per_us)
        except Exception as e:  # noqa: BLE001 - a probe: say it and go on
            r = {"name": name, "batch": int(b), "dtype": dt, "error": repr(e)[:300]}
        doc["points"].append(r)
        Path(path).write_text(json.dumps(doc))
        print(p, {k: r.get(k) for k in ("graph_wall_us", "replay_bulk_us", "host_us")},
              {k: r.get(k) for k in ("paced", "queued", "paced2", "queued2", "replay")}, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])

"""Issue 25 (not product code): does timing on the quickest core right now (engine.cores, mode
"fastest") make the eager measurement repeat, where the middle core (mode "middle") does not?

host_states.json (session 13) showed one decode step at ~7, ~10 and ~13 ms on core 8 while core 1,
in the block just before or after, ran at another of those levels: the slow states belong to a
virtual core, not to the machine. If so, the quickest core now is the host unslowed.

For each point, in one process, blocks alternate between the two modes for SECONDS: each block
probes every core's speed (engine.cores.core_speeds_us, both modes alike), pins by its mode, then
times one H round (2 warm-ups, 9 reps) and 5 synced eager steps and 5 synced graph replays.

    python3 tests/gpu_runs/core_pick_probe.py OUT.json SECONDS name:batch:dtype ...
    python3 tests/gpu_runs/core_pick_probe.py --summary OUT.json      (here, no GPU)

The rule fixed before the H200 run: "fastest" becomes diagnose's default if, pooled over the
points, its 2 s windows agree pairwise within ±15% in speedup at least 10 points (of 100) more
often than "middle"'s, and its median H is not higher. `--summary` prints the decision.

The H200's answer (2026-12-01, core_pick_probe_h200_2026-12-01.json): 2 s windows agree 54%
(middle) against 72% (fastest), and the median H is 18-25% lower on the quickest core at every
point, so the rule chose "fastest" for the grid that followed. That grid predicted worse (23 of 42
within ±15%), and pin_ab_grid.py then compared the two modes on the grid itself.
"""
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from repeat_probe import timed, warm_steps, windows  # noqa: E402

MODES = ("middle", "fastest")


def probe(runner, name, batch, dtype, seconds):
    from runtime_core.engine import cores
    step, graphed, eager, graph = warm_steps(runner, name, batch, dtype)
    allowed = sorted(os.sched_getaffinity(0))
    rows, t0, i = [], time.monotonic(), 0
    while time.monotonic() - t0 < seconds:
        mode = MODES[i % 2]
        i += 1
        t = time.monotonic() - t0
        speeds = cores.core_speeds_us(allowed)
        core = min(speeds, key=speeds.get) if mode == "fastest" else allowed[len(allowed) // 2]
        os.sched_setaffinity(0, {core})
        eager(), eager()
        h = timed(eager, 9, False)
        e = timed(eager, 5, True)
        g = timed(graph, 5, True)
        rows.append({"t_s": round(t, 3), "mode": mode, "core": core, "h_us": round(h, 1),
                     "eager_us": round(e, 1), "graph_us": round(g, 1), "speeds_us": list(speeds.values())})
    os.sched_setaffinity(0, allowed)
    graphed = step = None
    runner.cleanup()
    return {"name": name, "batch": batch, "dtype": dtype, "cores": allowed, "rows": rows}


def main(out, seconds, points):
    import torch
    from runtime_core.diagnose.runners import get_runner
    runner = get_runner("cuda")
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seconds": seconds, "points": []}
    for p in points:
        name, b, dt = p.split(":")
        doc["points"].append(probe(runner, name, int(b), dt, seconds))
        with open(out, "w") as f:
            json.dump(doc, f)
        print("\n".join(summary({"points": doc["points"][-1:]})[:-1]), flush=True)
    runner.close()


def agreement(rows, w):
    """Of the speedups of consecutive `w`-second windows, the share of pairs within ±15%."""
    spd = [statistics.median(r[2] for r in x) / statistics.median(r[3] for r in x) for x in windows(rows, w)]
    pairs = [(a, b) for i, a in enumerate(spd) for b in spd[i + 1:]]
    return sum(abs(b / a - 1) <= 0.15 for a, b in pairs), len(pairs)


def summary(doc) -> list[str]:
    lines, pooled = [], {m: [0, 0, []] for m in MODES}
    for p in doc["points"]:
        lines.append(f"{p['name']} batch {p['batch']} {p['dtype']}:")
        for m in MODES:
            rows = [[r["t_s"], r["h_us"], r["eager_us"], r["graph_us"]] for r in p["rows"] if r["mode"] == m]
            hs = sorted(r[1] for r in rows)
            cells = []
            for w in (2, 5):
                a, n = agreement(rows, w)
                cells.append(f"{w} s windows agree {a}/{n}")
                if w == 2:
                    pooled[m][0] += a
                    pooled[m][1] += n
            pooled[m][2].append(statistics.median(hs))
            used = {r["core"] for r in p["rows"] if r["mode"] == m}
            lines.append(f"  {m:8} {len(rows):4} blocks, H median {statistics.median(hs):7.0f} µs "
                         f"(p10 {hs[len(hs) // 10]:.0f}, p90 {hs[9 * len(hs) // 10]:.0f}), {', '.join(cells)}; "
                         f"cores used {len(used)}")
    share = {m: pooled[m][0] / max(1, pooled[m][1]) for m in MODES}
    h_ok = all(f <= mid for f, mid in zip(pooled["fastest"][2], pooled["middle"][2]))
    adopt = share["fastest"] >= share["middle"] + 0.10 and h_ok
    lines.append(f"decision: 2 s windows agree {share['middle']:.0%} (middle) vs {share['fastest']:.0%} "
                 f"(fastest), H not higher at every point: {h_ok} -> RUNTIME_CORE_PIN={'fastest' if adopt else 'middle'}")
    return lines


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        with open(sys.argv[2]) as f:
            print("\n".join(summary(json.load(f))))
    else:
        main(sys.argv[1], float(sys.argv[2]), sys.argv[3:])

"""Issue 25 (not product code): where a real network's graph step spends the time that its
kernels' durations and the chain's node gap do not explain.

The shipped grid's graph steps run 0.1-0.7 µs per node over the prediction, and kernels of our own
making do not (model/node_costs.py: +0.2 µs per node beyond the kernel in chains of one kind;
model/node_mix.py: memsets, copies and different kernels in between cost nothing more). For a few
points this probe profiles one graph step (static copies and replay) after timing it unprofiled,
and keeps every GPU operation with its start, duration, grid, block, registers and shared memory,
so the gap before each node can be read against what the node is.

    python3 tests/gpu_runs/graph_gap_probe.py OUT.json name:batch:dtype ...
"""
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from repeat_probe import timed, warm_steps  # noqa: E402


def ops(fn) -> list:
    from runtime_core.model.node_costs import gpu_events
    ev = gpu_events(fn, name_chars=120)
    return [[e["cat"], round(e["ts"], 3), round(e["dur"], 3), e["grid"], e["block"], e["registers per thread"],
             e["shared memory"], e["name"]] for e in ev]


def main(out, points):
    from runtime_core.diagnose.runners import get_runner
    runner = get_runner("cuda")
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "points": []}
    for p in points:
        name, b, dt = p.split(":")
        step, graphed, eager, graph = warm_steps(runner, name, int(b), dt)
        walls = [timed(graph, 20, True) for _ in range(5)]
        doc["points"].append({"name": name, "batch": int(b), "dtype": dt, "graph_wall_us": sorted(walls)[2],
                              "graph_ops": ops(graph), "eager_ops": ops(eager)})
        print(p, "graph wall", round(sorted(walls)[2], 1), "ops", len(doc["points"][-1]["graph_ops"]), flush=True)
        graphed = step = eager = graph = None
        runner.cleanup()
    Path(out).write_text(json.dumps(doc))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])

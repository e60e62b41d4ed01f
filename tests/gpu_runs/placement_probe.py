"""Issue 25 (not product code): is the fast bf16 GPT-2 replay of a long process where its memory
came from?

process_mode_probe.py's run of 2026-12-05 (tests/gpu_runs/results/process_mode_2026-12-05/) put
one point through the in-process recorder twice: GPT-2's decode step, bf16, batch 4, first in a
fresh process (graph step 845.8 µs, 0.40 µs a node beyond its replayed kernels) and again after
the prompt in fp32 and in bf16 (726.6 µs, 0.04 µs a node): 14% faster, same code, same process.
New captures made afterwards by the probe's own path in that process were slow again (floor
846.6 µs). One thing the fp32 prompt leaves behind is the caching allocator's cache: hundreds of
MB of freed fp32 blocks, which the next network's weights and graph pool are carved out of
instead of fresh cudaMalloc segments. This probe asks whether that placement is the cause.

Each condition runs in a fresh child process (twice, interleaved), and times the decode step
(bf16, batch 4) as process_mode_probe's readings do: floor (the fastest of 30 synchronized
groups of 5 replays), bulk (replays back to back), and the replay profiled once: its kernels'
busy time and (bulk − busy) / nodes, the cost a node adds beyond its kernel.

    plain          the decode step alone
    fp32_first     the fp32 prompt built, run, captured and freed first (the cache kept)
    fp32_emptied   the same, then torch.cuda.empty_cache() before the decode step is built
    expandable     PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, the decode step alone
    twice          the decode step built, timed and freed, then built and timed again

    python3 tests/gpu_runs/placement_probe.py OUT_DIR        (CUDA, ~5 min)
    python3 tests/gpu_runs/placement_probe.py --summary OUT_DIR   (here, no GPU)
"""
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

CONDITIONS = ("plain", "fp32_first", "fp32_emptied", "expandable", "twice")
REPEATS = 2
POINT = ("gpt2_decode", 4, "bf16")


def reading(runner) -> dict:
    """The decode step built, captured and timed in this process (see the module's docstring)."""
    import torch
    from queued_profile_probe import bulk_us
    from repeat_probe import timed, warm_steps
    from runtime_core.model.node_costs import gpu_events
    step, graphed, _, graph = warm_steps(runner, *POINT)
    floor = min(timed(graph, 5, True) for _ in range(30))
    bulk = bulk_us(graphed.graph.replay)
    ev = gpu_events(lambda: (graphed.graph.replay(), torch.cuda.synchronize()), name_chars=70)
    busy = sum(e["dur"] for e in ev)
    out = {"floor_us": round(floor, 2), "bulk_us": round(bulk, 2), "busy_us": round(busy, 2), "ops": len(ev),
           "beyond_us": round((bulk - busy) / max(1, len(ev)), 4),
           "reserved_mib": round(torch.cuda.memory_reserved() / 2**20, 1),
           "segments": len(torch.cuda.memory_snapshot())}
    del step, graphed, graph
    return out


def child(out: Path, condition: str) -> None:
    import gc

    import torch
    from repeat_probe import warm_steps
    from runtime_core.diagnose.runners import get_runner
    runner = get_runner("cuda")
    doc = {"condition": condition, "pid": os.getpid(), "readings": []}
    if condition in ("fp32_first", "fp32_emptied"):
        step, graphed, eager, graph = warm_steps(runner, "gpt2_prompt", 4, "fp32")
        for _ in range(20):
            graph()
        torch.cuda.synchronize()
        doc["reserved_after_fp32_mib"] = round(torch.cuda.memory_reserved() / 2**20, 1)
        del step, graphed, eager, graph
        gc.collect()
        if condition == "fp32_emptied":
            torch.cuda.empty_cache()
    doc["readings"].append(reading(runner))
    if condition == "twice":
        gc.collect()
        doc["readings"].append(reading(runner))
    out.write_text(json.dumps(doc, indent=1))


def main(out_dir: Path) -> None:
    import torch
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "point": POINT, "runs": []}
    for k in range(REPEATS):
        for condition in CONDITIONS:
            path = out_dir / f"{condition}_{k}.json"
            env = dict(os.environ)
            if condition == "expandable":
                env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
            done = subprocess.run([sys.executable, __file__, "--child", str(path), condition], env=env, timeout=300)
            run = json.loads(path.read_text()) if done.returncode == 0 else {"condition": condition,
                                                                             "error": f"child exited {done.returncode}"}
            doc["runs"].append(run)
            (out_dir / "placement.json").write_text(json.dumps(doc, indent=1))  # the card is inside
            print(summary_line(run), flush=True)
    print("\n".join(summary(doc)))


def summary_line(run: dict) -> str:
    if "error" in run:
        return f"{run['condition']:13s} {run['error']}"
    return f"{run['condition']:13s} " + " | ".join(
        f"floor {r['floor_us']:7.1f} bulk {r['bulk_us']:7.1f} busy {r['busy_us']:7.1f} beyond {r['beyond_us']:+.3f} µs/node"
        for r in run["readings"])


def summary(doc: dict) -> list[str]:
    lines = [f"{doc['device']} torch {doc['torch']} {doc['recorded_at']}: {doc['point']}"]
    for condition in CONDITIONS:
        runs = [r for r in doc["runs"] if r["condition"] == condition and "error" not in r]
        bulks = [r["readings"][-1]["bulk_us"] for r in runs]
        if bulks:
            lines.append(f"{condition:13s} median bulk {statistics.median(bulks):7.1f} µs over {len(bulks)} processes")
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(Path(sys.argv[2]), sys.argv[3])
    elif sys.argv[1:2] == ["--summary"] and len(sys.argv) == 3:
        print("\n".join(summary(json.loads((Path(sys.argv[2]) / "placement.json").read_text()))))
    elif len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        main(Path(sys.argv[1]))
    else:
        sys.exit(f"usage: python {sys.argv[0]} OUT_DIR  |  --summary OUT_DIR (the folder that holds placement.json)")

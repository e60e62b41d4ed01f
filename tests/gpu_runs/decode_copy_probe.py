"""Issue 25 (not product code): do the GPT-2 decode step's twelve tiny device-to-device copies
decide what its graph costs per node?

validation/external.py's decode step first sets each layer's cache counter with
`counter.copy_(position)`: twelve 8-byte copies that the profiler lists as "Memcpy DtoD", which a
graph replays as memcpy nodes (the other networks of the grid have none). On 2026-12-04 21:05 the
bf16 decode step's graph replayed 126 µs slower than in all six grids of 12-02 to 12-04, while
ResNet-18's matched them and kernels of our own making cost the same per node as on 12-01.

For GPT-2 decode at batch 1, both dtypes, two forms of the counter update, in turn, twice (ABAB):
    memcpy   counter.copy_(position)              (as validation/external.py does)
    kernel   counter.zero_().add_(position)       (two elementwise kernels, no memcpy node)
each: the host's time for one replay() call with the GPU busy (launch_host_us), the graph step as the diagnosis measures it (copies in, one replay, sync; median of round
medians and the lowest), a bulk replay's GPU time (20 replays queued), and the step as captured
profiled paced (its operations and their summed durations).

    python3 tests/gpu_runs/decode_copy_probe.py OUT.json       (CUDA, ~60 s)

The H200's answer (2026-12-04 21:23, decode_copy_h200.json): no. Beyond its kernels the step's
bulk replay costs 0.42-0.44 µs a node in bf16 and 0.43-0.47 µs in fp32 with memcpy nodes, and
0.44-0.46 µs in both with kernels instead. Its first row, timed before anything in the process
was profiled, is the day's clean reading: the graph step's floor 817 µs (six grids: 689-696 µs),
one replay() call 8 µs of host time; every later row ran after a profile, and its replay() call
cost the host 126-248 µs (its graph step times are inflated by that, not its bulk replays).
"""
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from queued_profile_probe import bulk_replay_us, rows, summary  # noqa: E402
from repeat_probe import timed, warm_steps  # noqa: E402

from runtime_core.diagnose.profile_step import capture_answer  # noqa: E402
from runtime_core.model.node_costs import gpu_events  # noqa: E402
from validation import external  # noqa: E402

SHIPPED = external._DecodeStep.forward


def kernel_forward(self, token, position):
    for layer in getattr(self.cache, "layers", ()):
        counter = getattr(layer, "cumulative_length", None)
        if isinstance(counter, torch.Tensor):
            counter.zero_().add_(position.reshape(counter.shape).to(counter.dtype))
    return self.model(input_ids=token, past_key_values=self.cache, cache_position=position,
                      use_cache=True).logits


def launch_host_us(graphed, reps: int = 5) -> float:
    """The host's time for one replay() call while the GPU is busy behind a sleep (so no call
    waits for it): what a cudaGraphLaunch of this graph costs the CPU, median of `reps`."""
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        torch.cuda._sleep(20_000_000)
        t0 = time.perf_counter()
        graphed.graph.replay()
        out.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)


def one(runner, dtype, form):
    external._DecodeStep.forward = SHIPPED if form == "memcpy" else kernel_forward
    try:
        step, graphed, eager, graph = warm_steps(runner, "gpt2_decode", 1, dtype)
        rounds = [timed(graph, 5, True) for _ in range(30)]
        replay = bulk_replay_us(graphed)
        launch = launch_host_us(graphed)

        def paced():
            with capture_answer(True):
                eager()
        ops = rows(gpu_events(paced, name_chars=70))
        out = {"dtype": dtype, "form": form, "graph_median_us": round(statistics.median(rounds), 2),
               "graph_floor_us": round(min(rounds), 2), "replay_bulk_us": round(replay, 2),
               "launch_host_us": round(launch, 2),
               "paced": summary(ops), "memcpy_ops": sum(1 for o in ops if o[0].startswith("gpu_me"))}
        graphed = step = None
        runner.cleanup()
        return out
    finally:
        external._DecodeStep.forward = SHIPPED


def main(path):
    from runtime_core.diagnose.runners import get_runner
    runner = get_runner("cuda")
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": []}
    for dtype in ("bf16", "fp32"):
        for form in ("memcpy", "kernel", "memcpy", "kernel"):
            r = one(runner, dtype, form)
            r["per_node_us"] = round((r["replay_bulk_us"] - r["paced"]["busy_us"]) / r["paced"]["ops"], 4)
            doc["rows"].append(r)
            Path(path).write_text(json.dumps(doc, indent=1))
            print(r, flush=True)


if __name__ == "__main__":
    main(sys.argv[1])

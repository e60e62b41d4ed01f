"""Why vit_b_16 bf16 batch 16 missed on the H100's held-out networks (not product code).

There the eager step's floor (4,903 µs) never came near the H floor it was predicted from
(3,332 µs), while the GPU needed about 1,900 µs, so the step was not GPU-bound. This probe times,
interleaved in rounds over a few seconds so the host's slow and fast states reach all of them alike:
  iso:  H as the diagnosis times it (sync, then the clock over one call: enqueue only);
  b2b:  the eager step as measured (5 calls back to back, then sync), per step;
  call: the host time of each call inside b2b (enqueue while the GPU still runs earlier work);
and, under the profiler, the CUDA runtime calls of 3 steps back to back, by name (a call that
blocks the host, such as a synchronizing copy, shows as a long total). Controls: vit_b_16 fp32 b1
(predicted within its band), resnet50 and distilbert bf16 b16, and vit bf16 b16 with PyTorch's
fused multi-head attention path turned off (torch.backends.mha.set_fastpath_enabled(False)).

    python3 tests/gpu_runs/vit_probe.py OUT.json
"""
import json
import statistics
import sys
import time

import torch

from validation import heldout

CONFIGS = [("vit_b_16", 16, torch.bfloat16, True), ("vit_b_16", 16, torch.bfloat16, False),
           ("vit_b_16", 1, torch.float32, True), ("resnet50", 16, torch.bfloat16, True),
           ("distilbert", 16, torch.bfloat16, True)]
WINDOW_S = 8.0


def now_us() -> float:
    return time.perf_counter() * 1e6


def probe(name: str, batch: int, dtype, fastpath: bool) -> dict:
    torch.backends.mha.set_fastpath_enabled(fastpath)
    model, inputs = getattr(heldout, name)(batch=batch, dtype=dtype, device="cuda")

    def fn():
        with torch.no_grad():
            return model(*inputs)

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    iso, b2b, call = [], [], []
    t_end = time.monotonic() + WINDOW_S
    while time.monotonic() < t_end:
        xs = []
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = now_us()
            fn()
            xs.append(now_us() - t0)
        torch.cuda.synchronize()
        iso.append(statistics.median(xs))
        cs = []
        t0 = now_us()
        for _ in range(5):
            c0 = now_us()
            fn()
            cs.append(now_us() - c0)
        torch.cuda.synchronize()
        b2b.append((now_us() - t0) / 5)
        call.append(statistics.median(cs[1:]))
        time.sleep(0.05)
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
    runtime = {}
    for e in prof.key_averages():
        if e.key.startswith("cuda"):
            runtime[e.key] = {"count": e.count, "cpu_total_us": round(e.cpu_time_total, 1)}
    top_ops = sorted(((e.key, e.count, round(e.cpu_time_total, 1)) for e in prof.key_averages()
                      if e.key.startswith("aten::")), key=lambda r: -r[2])[:12]
    gpu_busy = sum(e.device_time_total for e in prof.key_averages() if e.device_type.name == "CUDA") / 3
    out = {"model": name, "batch": batch, "dtype": str(dtype), "mha_fastpath": fastpath, "rounds": len(iso),
           "iso_us": [round(x, 1) for x in iso], "b2b_us": [round(x, 1) for x in b2b],
           "call_us": [round(x, 1) for x in call],
           "floor": {"iso": round(min(iso), 1), "b2b": round(min(b2b), 1), "call": round(min(call), 1)},
           "median": {"iso": round(statistics.median(iso), 1), "b2b": round(statistics.median(b2b), 1),
                      "call": round(statistics.median(call), 1)},
           "runtime_calls_3_steps": runtime, "top_aten_3_steps": top_ops, "gpu_time_per_step_us": round(gpu_busy, 1)}
    del model, inputs
    torch.cuda.empty_cache()
    return out


def main(path: str) -> None:
    doc = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"),
           "configs": []}
    for name, batch, dtype, fp in CONFIGS:
        try:
            r = probe(name, batch, dtype, fp)
        except Exception as exc:  # noqa: BLE001 - a probe: keep the reason, go on
            r = {"model": name, "batch": batch, "dtype": str(dtype), "mha_fastpath": fp, "error": repr(exc)[:500]}
        doc["configs"].append(r)
        print(json.dumps({k: r.get(k) for k in ("model", "batch", "dtype", "mha_fastpath", "floor", "median",
                                                  "gpu_time_per_step_us", "error")}), flush=True)
        json.dump(doc, open(path, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])

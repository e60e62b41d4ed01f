"""Issue 25 (not product code): does a decoder layer built from our own calls reproduce what a
replayed GPT-2 decode step costs per node, and its split by dtype?

The external grid's GPT-2 decode steps replay at 0.47-0.60 µs per node beyond their captured
kernels' durations in fp32, and at 0.09-0.15 µs in bf16 (the model prices every node at the
chains' median, 0.20 µs). Chains of one kind (model/node_costs.py) and the mixes of
model/node_mix.py show neither. Here one decoder layer's operations, called by us at GPT-2-small
sizes (layer norm, the QKV/projection/MLP GEMMs with bias, the KV cache's index copies, decode
attention by SDPA, GELU, the residual adds), are timed as a pattern repeated in one graph (K1 and
K2 repetitions, the slope per repetition, unprofiled), then profiled once eagerly:

    per_node_extra = (slope − Σ eager durations of one repetition) / nodes in one repetition

the same quantity as the grid's (graph step − captured busy) / nodes. Every operation is also
timed in a chain of its own (its own per-node extra), and the pattern's excess over their sum is
what the mix adds. Nothing here feeds the prediction.

    python3 tests/gpu_runs/decoder_mix_probe.py OUT.json      (CUDA, ~75 s)

The H200's answer (2026-12-04, tests/gpu_runs/results/decoder_mix_h200.json; two runs agree within
0.02 µs a node): beyond its eagerly profiled kernels, the twelve-layer model costs −0.20, +0.38 and
+0.64 µs a node in fp32 at 1, 4 and 64 rows, and +0.41, +0.47 and +0.42 µs in bf16, with the same
cuBLAS (nvjet, split-K), cuDNN SDPA and elementwise kernels as GPT-2's bf16 decode step. It
matches the grid's fp32 decode cost and not its bf16 one.
"""
import json
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from runtime_core.model.node_costs import K1, K2, capture, gpu_events, replay_us  # noqa: E402

D, HEADS, CACHE = 768, 12, 64
LAYER = "LQKVSOALFGDA"
MODEL_LAYERS, MK1, MK2 = 12, 2, 12  # the model pattern: 12 layers of their own weights (HBM, not L2)


def blocks(dtype, rows: int) -> dict:
    dev, hd = "cuda", D // HEADS
    t = dict(device=dev, dtype=dtype)
    x = torch.randn(rows, D, **t)
    w, b = torch.ones(D, **t), torch.zeros(D, **t)
    lin = lambda k, n: (torch.randn(k, n, **t) * 0.02, torch.zeros(n, **t))  # noqa: E731
    (wq, bq), (wo, bo), (wf, bf), (wd, bd) = lin(D, 3 * D), lin(D, D), lin(D, 4 * D), lin(4 * D, D)
    qkv, o, f, g, dn = (torch.empty(rows, n, **t) for n in (3 * D, D, 4 * D, 4 * D, D))
    kc, vc = torch.randn(rows, HEADS, CACHE, hd, **t), torch.randn(rows, HEADS, CACHE, hd, **t)
    pos = torch.tensor([CACHE - 1], device=dev)
    knew, vnew = torch.randn(rows, HEADS, 1, hd, **t), torch.randn(rows, HEADS, 1, hd, **t)
    q = torch.randn(rows, HEADS, 1, hd, **t)
    h = torch.empty(rows, D, **t)
    return {
        "L": lambda: torch.layer_norm(x, (D,), w, b),
        "Q": lambda: torch.addmm(bq, x, wq, out=qkv),
        "K": lambda: kc.index_copy_(2, pos, knew),
        "V": lambda: vc.index_copy_(2, pos, vnew),
        "S": lambda: F.scaled_dot_product_attention(q, kc, vc),
        "O": lambda: torch.addmm(bo, x, wo, out=o),
        "A": lambda: h.add_(o),
        "F": lambda: torch.addmm(bf, x, wf, out=f),
        "G": lambda: torch.ops.aten.gelu.out(f, approximate="tanh", out=g),
        "D": lambda: torch.addmm(bd, g, wd, out=dn),
    }


def pattern(bl, letters):
    ops = [bl[c] for c in letters]

    def op():
        for fn in ops:
            fn()
    return op


def slope(op, k1=K1, k2=K2) -> float:
    return (replay_us(capture(op, k2)) - replay_us(capture(op, k1))) / (k2 - k1)


def model(dtype, rows: int):
    """MODEL_LAYERS layers, each with weights of its own, one after another: a repetition streams
    every weight from HBM, as a real decode step does (one layer's repeated alone sits in L2)."""
    layers = [pattern(blocks(dtype, rows), LAYER) for _ in range(MODEL_LAYERS)]

    def op():
        for fn in layers:
            fn()
    return op


def main(out: str) -> None:
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "k1": K1, "k2": K2, "rows": []}
    cases = [(dt, rows) for dt in ("fp32", "bf16") for rows in (1, 4, 64)]
    models, timed = [], []
    for dt, rows in cases:  # the model pattern first: the grid's analogue (weights from HBM)
        op = model(torch.float32 if dt == "fp32" else torch.bfloat16, rows)
        models.append((dt, rows, op, [slope(op, MK1, MK2) for _ in range(3)]))
    for dt, rows in cases:  # all timing before any profile: a profiled process launches more slowly
        bl = blocks(torch.float32 if dt == "fp32" else torch.bfloat16, rows)
        singles = {c: slope(bl[c]) for c in dict.fromkeys(LAYER)}
        layer = [slope(pattern(bl, LAYER)) for _ in range(3)]
        timed.append((dt, rows, bl, singles, layer))
        print(f"timed {dt} rows={rows}: layer {statistics.median(layer):.2f} µs a repetition", file=sys.stderr, flush=True)
    for dt, rows, op, slopes in models:
        ev = gpu_events(op, name_chars=80)
        n, busy, s = len(ev), sum(e["dur"] for e in ev), statistics.median(slopes)
        doc.setdefault("model_rows", []).append({
            "dtype": dt, "rows": rows, "layers": MODEL_LAYERS, "nodes": n, "busy_us": round(busy, 3),
            "slope_us": round(s, 3), "slopes_us": [round(v, 3) for v in slopes], "per_node_extra_us": round((s - busy) / n, 4)})
        print(f"model {dt} rows={rows:3d}: {n} nodes, eager busy {busy:.1f} µs, replay {s:.1f} µs -> "
              f"{(s - busy) / n:+.3f} µs a node beyond the kernels", flush=True)
    del models
    for dt, rows, bl, singles, layer in timed:
        ev = gpu_events(pattern(bl, LAYER), name_chars=80)
        n, busy = len(ev), sum(e["dur"] for e in ev)
        own = {}
        for c in singles:
            e1 = gpu_events(bl[c], name_chars=80)
            own[c] = {"slope_us": round(singles[c], 4), "nodes": len(e1), "busy_us": round(sum(e["dur"] for e in e1), 4),
                      "names": [e["name"] for e in e1]}
        s = statistics.median(layer)
        doc["rows"].append({
            "dtype": dt, "rows": rows, "layer": LAYER, "nodes": n, "busy_us": round(busy, 4),
            "slope_us": round(s, 4), "slopes_us": [round(v, 4) for v in layer],
            "per_node_extra_us": round((s - busy) / n, 4),
            "excess_over_own_chains_us": round(s - sum(singles[c] for c in LAYER), 4),
            "own_chain_extra_us": {c: round((v["slope_us"] - v["busy_us"]) / v["nodes"], 4) for c, v in own.items()},
            "ops": [[e["cat"], round(e["dur"], 3), e["name"]] for e in ev], "own": own})
        r = doc["rows"][-1]
        print(f"{dt} rows={rows:3d}: {n} nodes, busy {busy:.1f} µs, slope {s:.1f} µs -> "
              f"{r['per_node_extra_us']:+.3f} µs a node beyond the kernels; excess over own chains "
              f"{r['excess_over_own_chains_us']:+.2f} µs; own chains {r['own_chain_extra_us']}", flush=True)
    Path(out).write_text(json.dumps(doc, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])

"""Issue 25 (not product code, CUDA): what a node and an eager gap cost for the kernels that the
transformers of the external grid run and node_costs.py's 57 configs do not: cuBLASLt GEMMs with
a bias epilogue (F.linear, GPT-2's Conv1D addmm: `nvjet_..._bias` in bf16), a GEMM followed by
its activation, and SDPA's attention kernels (cuDNN flash in bf16, cutlass fmha in fp32).

Why: on the fresh grids the graph step of BERT, GPT-2 prompt and GPT-2 decode in bf16 at batch 1-4
runs 4-8% under its prediction (measured step less the profiled replay's kernel time: 0.02-0.14 µs
a node, where the prediction prices 0.20), and the same networks in fp32 3-8% over (0.35-0.55 µs).
Those figures were read off the test grids; this probe measures the candidate kernels on our own
shapes, so that a rule, if one follows, comes from kernels of our own making. Nothing here feeds
the prediction.

Each config is timed as node_costs.run_experiment times a node (graphs of 20 and 220 calls, the
slope less the eager-profiled duration) and as stream_gaps.run_stream times an eager gap (the same
chains launched one by one behind a sleep), in two processes (a profiled process launches slower):

    python3 tests/gpu_runs/bias_gemm_probe.py graph OUT_graph.json
    python3 tests/gpu_runs/bias_gemm_probe.py stream OUT_stream.json
    python3 tests/gpu_runs/bias_gemm_probe.py show OUT_graph.json OUT_stream.json   (no GPU)
"""
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def configs():
    import torch
    import torch.nn.functional as F
    dev, out = "cuda", []
    for dt, t in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        # (rows, in, out): BERT's q/k/v and output projections at batch 1 (128 tokens), its MLP,
        # GPT-2's c_attn and MLP at a 32-token prompt, and GPT-2's one-token decode step
        for rows, k, n in ((128, 768, 768), (128, 768, 3072), (128, 3072, 768), (32, 768, 2304), (1, 768, 2304),
                           (1, 768, 3072), (1, 3072, 768)):
            x = torch.randn(rows, k, device=dev, dtype=t)
            w, b = torch.randn(n, k, device=dev, dtype=t) * 0.01, torch.zeros(n, device=dev, dtype=t)
            o = torch.empty(rows, n, device=dev, dtype=t)
            out.append((f"linear+bias {dt} {rows}x{k}->{n}",
                        (lambda x=x, w=w, b=b, o=o: torch.addmm(b, x, w.t(), out=o)), {"family": "addmm", "dtype": dt}))
        for rows, k, n in ((128, 768, 3072), (1, 768, 3072)):
            x = torch.randn(rows, k, device=dev, dtype=t)
            w, b = torch.randn(n, k, device=dev, dtype=t) * 0.01, torch.zeros(n, device=dev, dtype=t)
            o = torch.empty(rows, n, device=dev, dtype=t)
            out.append((f"linear+bias, gelu {dt} {rows}x{k}->{n}",
                        (lambda x=x, w=w, b=b, o=o: F.gelu(torch.addmm(b, x, w.t(), out=o))),
                        {"family": "addmm_gelu", "dtype": dt}))
        for bsz, s in ((1, 128), (1, 32), (16, 128)):
            q = torch.randn(bsz, 12, s, 64, device=dev, dtype=t)
            out.append((f"sdpa {dt} {bsz}x12x{s}x64",
                        (lambda q=q: F.scaled_dot_product_attention(q, q, q)), {"family": "sdpa", "dtype": dt}))
    return out


def main(argv):
    if argv[:1] == ["show"]:
        return show(*argv[1:3])
    mode, out = argv[0], argv[1]
    import torch
    from runtime_core.model.node_costs import run_experiment
    from runtime_core.model.stream_gaps import run_stream
    rows = run_experiment(configs()) if mode == "graph" else run_stream(configs())
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "mode": mode,
           "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows}
    Path(out).write_text(json.dumps(doc, indent=1))
    show(out if mode == "graph" else None, out if mode == "stream" else None)
    return 0


def show(graph_path=None, stream_path=None):
    """One line a config: the node's extra (graph) and the eager gap (stream), µs."""
    g = {r["name"]: r for r in json.loads(Path(graph_path).read_text())["rows"]} if graph_path else {}
    s = {r["name"]: r for r in json.loads(Path(stream_path).read_text())["rows"]} if stream_path else {}
    for name in dict.fromkeys([*g, *s]):
        a, b = g.get(name, {}), s.get(name, {})
        names = sorted({k["name"][:40] for k in a.get("kernels", [])})
        print(f"{name:38s} node extra {a.get('extra_us', '-')!s:>8} µs   eager gap {b.get('gap_us', '-')!s:>8} µs"
              f"{'' if b.get('gpu_bound', True) else ' (not GPU-bound)'}   {names}")
    for label, rows, key in (("node extra", g, "extra_us"), ("eager gap", s, "gap_us")):
        for fam in sorted({r.get("family") for r in rows.values()}):
            x = [r[key] for r in rows.values() if r.get("family") == fam and r.get(key) is not None]
            if x:
                print(f"  {label} median, {fam}: {statistics.median(x):+.3f} µs over {len(x)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

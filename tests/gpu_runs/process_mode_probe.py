"""Issue 25 (not product code): does a long process replay some graphs faster than a fresh one?

What the committed recordings show (tests/gpu_runs/process_mode.py, no GPU): in the six external
grids recorded as ONE process (points in turn), the bf16 GPT-2 decode step (every batch), the bf16
GPT-2 prompt at batch 1 and 4 and, in five grids of six, bf16 BERT at batch 1 replayed their graphs
at 0.02-0.14 µs a node beyond their own kernels. In every FRESH `diagnose` process timed by the
floor (the re-checks of 12-03 and 12-04, and the two user-style runs of 12-04 evening) the same
points cost 0.39-0.46 µs a node, like every other point of the grid in either kind of process.
What a user gets is the fresh process; the one-process grid flattered those points' graph step
by 6-15%. This probe asks where the fast replays come from, with the product's own code paths:

1. child A, a fresh process: GPT-2 decode bf16 b4, GPT-2 prompt bf16 b4, BERT bf16 b1, and a
   decoder layer stack of our own making (our weights, F.layer_norm / F.linear with bias /
   F.scaled_dot_product_attention / GELU, 12 layers, batch 4, one token, bf16): each captured, then
   the graph step timed as the diagnosis reads it (floor of 30 rounds of 5 synced steps) and as a
   bulk replay (20 back to back); then node costs of library families our node-cost experiment
   lacks (linear with bias, SDPA, conv2d, batch norm, embedding) by runtime_core.model.node_costs'
   own method; profiles only after every timing (a profile slows later replay() calls).
2. the main process: the external grid's in-process recorder (record_external.run_external, the
   path that made the grids) over decode bf16 b4 FIRST, then the prompt in fp32 and in bf16 (as
   the grids ran them), then decode bf16 b4 again: is the first one already fast (the recorder's path), or only the repeat (history)? In
   the grids the fast replays showed up early: the prompt in bf16 at batch 1 was the 10th point of
   its process, right after the same network in fp32; BERT bf16 at batch 1, the 8th, was fast in
   three grids of four and not in the fourth.
3. the main process again: the readings of 1 (new captures, same code), then the families.
4. child B, a fresh process again: the readings of 1 without the families (did the machine change
   meanwhile?).

    python3 tests/gpu_runs/process_mode_probe.py OUT_DIR          (CUDA, ~7 min)
    python3 tests/gpu_runs/process_mode_probe.py --child OUT.json   (one fresh reading)
    python3 tests/gpu_runs/process_mode_probe.py --summary OUT_DIR  (here, no GPU)

Why those families: in the fresh re-checks GPT-2's graph step ran 55-65 µs a step above its
prediction in both dtypes (0.48-0.53 µs a node beyond its kernels, 0.20 priced), BERT's did not.
SDPA alone cannot be the difference: BERT's steps run 12 SDPA nodes too (every point of the
shipped grid profiles aten::scaled_dot_product_attention: cutlass's fmha in fp32, cuDNN's sm90
kernel in bf16), and our own SDPA calls cost +0.12 to +0.14 µs a node in a bf16 chain
(decoder_mix_h200.json) and +0.48 with cuDNN's workspace memset (bias_gemm_graph_h200.json), not
the ~5 µs a node that would be the whole of it. GPT-2's bf16 decode differs in running cuDNN's
sm80 kernel; the sdpa rows (with and without the mask transformers passes when it captures) time
our calls of it beside the other families.

Per reading: floor_us, bulk_us, and from the profiled replay afterwards busy_us (its kernels'
durations summed), span_us (first start to last end) and ops; (bulk − busy)/ops is the node's
cost beyond its kernel, the number the grids and the re-checks disagree on.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

NETS = (("gpt2_decode", 4, "bf16"), ("gpt2_prompt", 4, "bf16"), ("bert_base", 1, "bf16"))
SEQUENCE = (("gpt2_decode", 4, "bf16"), ("gpt2_prompt", 4, "fp32"), ("gpt2_prompt", 4, "bf16"),
            ("gpt2_decode", 4, "bf16"))   # the decode step first, then as the grids ran it: after others
SEQ = {"bert_base": 128, "gpt2_prompt": 32, "gpt2_decode": 32}


def own_decoder(dtype, batch: int = 4, layers: int = 12, width: int = 768, heads: int = 12, past: int = 40):
    """A decoder stack of our own making at one token: (step, inputs). Our weights, the same
    torch ops GPT-2 calls (so the same library kernels), none of transformers' code."""
    import torch
    import torch.nn.functional as F
    dev = "cuda"
    r = lambda *s: torch.randn(*s, device=dev, dtype=dtype) * 0.02  # noqa: E731
    blocks = [dict(ln1=(torch.ones(width, device=dev, dtype=dtype), torch.zeros(width, device=dev, dtype=dtype)),
                   qkv=(r(3 * width, width), r(3 * width)), proj=(r(width, width), r(width)),
                   ln2=(torch.ones(width, device=dev, dtype=dtype), torch.zeros(width, device=dev, dtype=dtype)),
                   up=(r(4 * width, width), r(4 * width)), down=(r(width, 4 * width), r(width)),
                   k=r(batch, heads, past, width // heads), v=r(batch, heads, past, width // heads))
              for _ in range(layers)]

    def step(x):
        with torch.no_grad():
            for b in blocks:
                h = F.layer_norm(x, (width,), *b["ln1"])
                q, k, v = F.linear(h, *b["qkv"]).split(width, dim=-1)
                # contiguous: on 2026-12-05 the transposed view's replay hit an illegal memory access
                # (in bf16, where cuDNN's SDPA runs; cf. pytorch/pytorch#169849, SDPA on strided inputs
                # in a CUDA graph), in a fresh child and in the main process alike
                q = q.view(batch, 1, heads, -1).transpose(1, 2).contiguous()
                k = torch.cat([b["k"], k.view(batch, 1, heads, -1).transpose(1, 2)], dim=2)
                v = torch.cat([b["v"], v.view(batch, 1, heads, -1).transpose(1, 2)], dim=2)
                a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(batch, 1, width)
                x = x + F.linear(a, *b["proj"])
                x = x + F.linear(F.gelu(F.linear(F.layer_norm(x, (width,), *b["ln2"]), *b["up"]), approximate="tanh"),
                                 *b["down"])
            return x
    return step, (r(batch, 1, width),)


class OwnGraphed:
    """own_decoder's step captured with torch.cuda.graph (static input, replayed as is)."""

    def __init__(self, step, inputs):
        import torch
        self.x = inputs[0].clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step(self.x)
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.out = step(self.x)
        self.graph.replay()
        torch.cuda.synchronize()

    def __call__(self):
        self.graph.replay()


def family_configs():
    """(name, op, features) triples for node_costs.run_experiment: library families real networks
    launch that the shipped node-cost experiment does not (each op reads fixed inputs; in a graph
    the nodes still run one after another, in capture order)."""
    import torch
    import torch.nn.functional as F
    dev, out = "cuda", []
    for dt, t in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        for m, k, n in ((4, 768, 2304), (4, 768, 768), (4, 3072, 768), (128, 768, 3072)):
            x, w, b = (torch.randn(m, k, device=dev, dtype=t), torch.randn(n, k, device=dev, dtype=t),
                       torch.randn(n, device=dev, dtype=t))
            out.append((f"linear+bias {dt} {m}x{k}->{n}", (lambda x=x, w=w, b=b: F.linear(x, w, b)),
                        {"family": "linear_bias", "dtype": dt}))
        for lq in (1, 32):
            q = torch.randn(4, 12, lq, 64, device=dev, dtype=t)
            kv = torch.randn(4, 12, 40, 64, device=dev, dtype=t)
            mask = torch.zeros(4, 1, lq, 40, device=dev, dtype=t)  # transformers' capture-safe branch passes one
            out.append((f"sdpa {dt} 4x12x{lq}x40", (lambda q=q, kv=kv: F.scaled_dot_product_attention(q, kv, kv)),
                        {"family": "sdpa", "dtype": dt}))
            out.append((f"sdpa+mask {dt} 4x12x{lq}x40",
                        (lambda q=q, kv=kv, m=mask: F.scaled_dot_product_attention(q, kv, kv, attn_mask=m)),
                        {"family": "sdpa", "dtype": dt}))
        for cin, cout, ks, groups, hw in ((64, 64, 3, 1, 56), (64, 256, 1, 1, 56), (96, 96, 3, 96, 56)):
            x = torch.randn(1, cin, hw, hw, device=dev, dtype=t)
            w = torch.randn(cout, cin // groups, ks, ks, device=dev, dtype=t)
            out.append((f"conv2d {dt} {cin}->{cout} k{ks} g{groups} {hw}x{hw}",
                        (lambda x=x, w=w, ks=ks, groups=groups: F.conv2d(x, w, padding=ks // 2, groups=groups)),
                        {"family": "conv2d", "dtype": dt}))
        x = torch.randn(1, 64, 56, 56, device=dev, dtype=t)
        rm, rv = torch.zeros(64, device=dev, dtype=t), torch.ones(64, device=dev, dtype=t)
        out.append((f"batch_norm eval {dt} 64x56x56", (lambda x=x, rm=rm, rv=rv: F.batch_norm(x, rm, rv, rv, rm)),
                    {"family": "batch_norm", "dtype": dt}))
        emb, ids = torch.randn(50257, 768, device=dev, dtype=t), torch.randint(0, 50257, (4, 32), device=dev)
        out.append((f"embedding {dt} 4x32 of 50257x768", (lambda emb=emb, ids=ids: F.embedding(ids, emb)),
                    {"family": "embedding", "dtype": dt}))
    return out


def readings(phase: str, families: bool = True) -> dict:
    """Every NETS network and our own decoder: captured, then timed (nothing profiled in between),
    then each replay profiled; then (`families`) the family node costs (node_costs' own two phases)."""
    import torch
    from queued_profile_probe import bulk_us
    from repeat_probe import timed, warm_steps
    from runtime_core.diagnose.runners import get_runner
    from runtime_core.model.node_costs import gpu_events, run_experiment
    runner = get_runner("cuda")
    built = []
    for name, batch, dtype in NETS:
        _, graphed, _, graph = warm_steps(runner, name, batch, dtype)
        built.append((f"{name} b{batch} {dtype}", graphed.graph.replay, graph))
    for dtype in ("bf16", "fp32"):
        step, inputs = own_decoder(torch.bfloat16 if dtype == "bf16" else torch.float32)
        g = OwnGraphed(step, inputs)
        built.append((f"own decoder b4 {dtype}", g, g))
    rows = []
    for label, replay, graph in built:
        floor = min(timed(graph, 5, True) for _ in range(30))
        bulk = bulk_us(replay)
        rows.append({"label": label, "floor_us": round(floor, 2), "bulk_us": round(bulk, 2)})
        print(phase, label, rows[-1], file=sys.stderr, flush=True)
    families = run_experiment(family_configs()) if families else []
    for row, (label, replay, _) in zip(rows, built):
        ev = gpu_events(lambda: (replay(), torch.cuda.synchronize()), name_chars=70)
        busy = sum(e["dur"] for e in ev)
        span = ev[-1]["ts"] + ev[-1]["dur"] - ev[0]["ts"] if ev else 0.0
        row.update(ops=len(ev), busy_us=round(busy, 2), span_us=round(span, 2),
                   node_beyond_kernel_us=round((row["bulk_us"] - busy) / max(1, len(ev)), 4),
                   ops_profile=[[e["cat"][:6], round(e["ts"], 3), round(e["dur"], 3), e["shared memory"], e["name"]]
                                for e in ev])
    return {"phase": phase, "pid": os.getpid(), "at": time.strftime("%H:%M:%S", time.gmtime()), "rows": rows,
            "families": [{k: v for k, v in f.items() if k != "kernels"} | {"kernel": (f.get("kernels") or [{}])[0].get("name")}
                         for f in families]}


def child(out: Path, phase: str) -> None:
    out.write_text(json.dumps(readings(phase, families=phase != "child_b"), indent=1))


def run_child(out_dir: Path, phase: str) -> dict:
    path = out_dir / f"{phase}.json"
    done = subprocess.run([sys.executable, __file__, "--child", str(path), phase], timeout=240)
    if done.returncode != 0:
        return {"phase": phase, "error": f"child exited {done.returncode}"}
    return json.loads(path.read_text())


def main(out_dir: Path) -> None:
    import torch
    from runtime_core.diagnose import record_external
    from runtime_core.diagnose.runners import get_runner
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = {"device": None, "torch": None, "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    save = lambda: (out_dir / "process_mode_h200.json").write_text(json.dumps(doc, indent=1))  # noqa: E731
    doc["child_a"] = run_child(out_dir, "child_a")   # each phase saved as it ends: a call cut short keeps them
    runner = get_runner("cuda")
    doc["device"], doc["torch"] = torch.cuda.get_device_name(0), torch.__version__
    only = [{"model": f"validation.external:{n}", "batch": b, "seq": SEQ[n], "dtype": d} for n, b, d in SEQUENCE]
    seq_path = out_dir / "sequence.json"
    rec = record_external.run_external(runner, seq_path, budget_s=400.0, force=True, only=only)
    doc["sequence"] = [{"model": p["model"].split(":")[-1], "batch": p["batch"], "dtype": p["dtype"],
                        "graph_us": p["graph_us"], "predicted_graph_us": p["predicted_graph_us"],
                        "replay_busy_us": (p.get("graph_profile") or {}).get("busy_us"),
                        "nodes": p["captured_gpu_ops"],
                        "node_beyond_kernel_us": round((p["graph_us"] - p["graph_profile"]["busy_us"]) / p["captured_gpu_ops"], 4)
                        if (p.get("graph_profile") or {}).get("busy_us") else None}
                       for p in rec["points"]]
    runner.close()
    save()
    doc["main_after"] = readings("main_after")
    save()
    doc["child_b"] = run_child(out_dir, "child_b")
    save()
    print("\n".join(summary(doc)))


def summary(doc: dict) -> list[str]:
    lines = [f"{doc.get('device')} torch {doc.get('torch')} {doc.get('recorded_at')}"]
    for phase in ("child_a", "main_after", "child_b"):
        r = doc.get(phase) or {}
        if "error" in r:
            lines.append(f"{phase}: {r['error']}")
            continue
        for row in r.get("rows", []):
            lines.append(f"{phase:10s} {row['label']:24s} floor {row['floor_us']:8.1f}  bulk {row['bulk_us']:8.1f}  "
                         f"busy {row.get('busy_us', 0):8.1f}  ops {row.get('ops', 0):4d}  "
                         f"beyond kernel {row.get('node_beyond_kernel_us', float('nan')):+.3f} µs/node")
        fam = {}
        for f in r.get("families", []):
            if f.get("extra_us") is not None:
                fam.setdefault(f["family"], []).append(f"{f['name'].split(' ', 1)[1]} {f['extra_us']:+.3f}")
        for k, v in fam.items():
            lines.append(f"{phase:10s} family {k}: " + "; ".join(v))
    for s in doc.get("sequence", []):
        lines.append(f"sequence   {s['model']:12s} b{s['batch']} {s['dtype']}: graph {s['graph_us']:.1f} "
                     f"(predicted {s['predicted_graph_us']:.1f}), beyond kernel {s['node_beyond_kernel_us']} µs/node")
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(Path(sys.argv[2]), sys.argv[3])
    elif sys.argv[1:2] == ["--summary"]:
        print("\n".join(summary(json.loads((Path(sys.argv[2]) / "process_mode_h200.json").read_text()))))
    elif len(sys.argv) == 2:
        main(Path(sys.argv[1]))
    else:
        sys.exit(__doc__)

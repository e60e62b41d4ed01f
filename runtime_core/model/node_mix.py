"""What a CUDA-graph node costs when its neighbours differ: a memset or a copy between kernels, and
one kernel after another of a different kind. Kernels of our own making, as in node_costs.py.

node_costs.py times chains of one operation repeated, where every node follows its own kind. A
real network's graph interleaves: cuBLAS's split-K GEMMs put a memset before the kernel that
accumulates into it, a static KV cache adds device copies, and hardly two kernels in a row are the
same function. This experiment times patterns of several operations, each pattern repeated as one
graph (K1 and K2 repetitions, per-repetition slope as in node_costs), against the sum of what each
of its operations costs in a chain of its own kind:

    excess = slope(pattern) − Σ per_node(op, in a chain of its own)
    per switch = excess / switches in one repetition (counted around the cycle: the pattern repeats)

Two kinds of switch, read off an eager profile of the pattern:
    copy switches    a kernel followed by a memset or copy node, or the other way round
    kernel switches  a kernel followed by a different kernel function

`derive_mix(rows)` gives the median excess per memset of each size, per copy and per kernel switch;
diagnose/predict.py adds a memset's (μ) for every memset node of a step's captured profile, by its
bytes (a count and a size, never a fit to any network's graph), and neither of the others, which
measure as nothing.

A memset comes from cudaMemsetAsync itself (ctypes on the CUDA runtime that torch loaded), as
cuBLAS issues it; the copies are torch's copy_ between device tensors (a DtoD memcpy).

    python -m runtime_core node-costs --mix --out lessons/recordings/node_costs_h200.json   (CUDA, ~30 s)

The H200's answer (2026-12-02, tests/gpu_runs/session17.sh): a memset of 4 to 4,096 bytes between
kernels costs 0.61 to 0.90 µs more than in a run of memsets (profiled, the next kernel starts 2 to
5 µs after it, as after cuBLAS's split-K memsets in GPT-2 and BERT, which zero 4 to 192 bytes); one
of 16 KB to 1 MB, a 64 KB copy, and a kernel after another function cost within ±0.06 µs of their
own chains. The profiled gaps overstate a memset: a replayed chain of 4-byte memsets shows gaps of
1.2 and 3.9 µs under the profiler, yet costs 0.91 µs a memset unprofiled (its slope), so only the
unprofiled slopes are used. Why the graph steps of public networks still run ~3% over their
prediction is not found here.
"""
from __future__ import annotations

import ctypes
import statistics
import sys

import torch
import torch.nn.functional as F

from .node_costs import K1, K2, capture, gpu_events, replay_us


def cudart():
    """The CUDA runtime library this process's torch loaded (so its streams and context are ours)."""
    torch.cuda.init()
    with open("/proc/self/maps") as f:
        paths = sorted({line.split()[-1] for line in f if "libcudart" in line and "/" in line})
    if not paths:
        raise RuntimeError("no libcudart is loaded in this process: torch's CUDA runtime is linked statically")
    lib = ctypes.CDLL(paths[0])
    lib.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
    lib.cudaMemsetAsync.restype = ctypes.c_int
    return lib


def memset_op(t: torch.Tensor, nbytes: int | None = None, offset: int = 0):
    """A cudaMemsetAsync of `nbytes` of `t` (all of it by default) from byte `offset`, to zero, on
    the current stream (captured as a memset node)."""
    lib = cudart()
    nbytes = t.numel() * t.element_size() if nbytes is None else nbytes

    def op():
        err = lib.cudaMemsetAsync(t.data_ptr() + offset, 0, nbytes, torch.cuda.current_stream().cuda_stream)
        if err:
            raise RuntimeError(f"cudaMemsetAsync returned CUDA error {err}")
    return op


MEMSET_BYTES = {"s": 4, "v": 256, "u": 1000, "w": 4096, "x": 16384, "S": 65536, "T": 1 << 20}


def building_blocks(dev: str = "cuda") -> dict:
    """The operations the patterns are made of: letter -> a callable that launches them. Upper-case
    kernels and copies, lower-case small memsets; MEMSET_BYTES gives every memset's size."""
    x, y = torch.zeros(16384, device=dev), torch.ones(16384, device=dev)
    h = torch.randn(128, 768, device=dev)
    w, b = torch.ones(768, device=dev), torch.zeros(768, device=dev)
    a, m = torch.randn(16, 768, device=dev), torch.randn(768, 768, device=dev)
    out = torch.empty(16, 768, device=dev)
    c_dst, c_src = torch.empty(16384, device=dev), torch.ones(16384, device=dev)
    area = torch.empty(1 << 18, device=dev)  # 1 MiB, the largest memset

    def addmm(m, k, n):  # a Linear layer's GEMM in fp32, as GPT-2's Conv1D and BERT's Linear call it
        bias, x, w = torch.zeros(n, device=dev), torch.randn(m, k, device=dev), torch.randn(k, n, device=dev)
        o = torch.empty(m, n, device=dev)
        return lambda: torch.addmm(bias, x, w, out=o)
    blocks = {
        "A": lambda: x.add_(1.0),                                   # elementwise add, 64 KB
        "M": lambda: y.mul_(0.999),                                 # another elementwise function, 64 KB
        "L": lambda: F.layer_norm(h, (768,), w, b),                 # layer norm, 128x768
        "G": lambda: torch.mm(a, m, out=out),                       # cuBLAS GEMM 16x768x768 (split-K)
        "C": lambda: c_dst.copy_(c_src),                            # device-to-device copy, 64 KB
        "P": addmm(2048, 3072, 768),                                # fp32 GEMMs of GPT-2's and BERT's
        "R": addmm(32, 3072, 768),                                  # sizes: cuBLAS zeroes a few bytes
        "W": addmm(128, 768, 768),                                  # of split-K workspace before them
    }
    for letter, n in MEMSET_BYTES.items():  # cudaMemsetAsync; 1000 bytes from an odd address
        blocks[letter] = memset_op(area, n, offset=1 if n == 1000 else 0)
    return blocks


SINGLES = ("A", "M", "L", "G", "C", "P", "R", "W") + tuple(MEMSET_BYTES)
PATTERNS = ("AS", "AAAS", "ASS", "GS", "LS", "AT", "GT", "As", "Gs", "Av", "Au", "Gu", "Aw", "Gw", "Ax", "Gx",
            "AC", "AAAC", "ACC", "GC",                                           # memsets, copies
            "AM", "AL", "AG", "ALG", "AMLG")                                     # kernels only


def pattern_op(blocks: dict, pattern: str):
    ops = [blocks[c] for c in pattern]

    def op():
        for f in ops:
            f()
    return op


def switches(kinds: list[str], names: list[str], cyclic: bool = True) -> tuple[int, int]:
    """(copy switches, kernel switches) between consecutive operations of one step: kernel to
    memset/copy or back (any kind but "kernel" is a copy: the profiler's gpu_memcpy and gpu_memset,
    a diagnosis profile's memcpy and memset), and kernel to a kernel of another function.
    `cyclic`: the sequence repeats, so its last operation also precedes its first."""
    n = len(kinds)
    pairs = [(i, (i + 1) % n) for i in range(n if cyclic and n > 1 else n - 1)]
    copy = sum((kinds[i] == "kernel") != (kinds[j] == "kernel") for i, j in pairs)
    kernel = sum(kinds[i] == kinds[j] == "kernel" and names[i] != names[j] for i, j in pairs)
    return copy, kernel


def run_mix(singles: tuple = SINGLES, patterns: tuple = PATTERNS) -> list[dict]:
    """Every single and pattern timed (unprofiled), then profiled; one row each."""
    blocks = building_blocks()
    cfgs = [(c, pattern_op(blocks, c)) for c in singles + patterns]
    rows = []
    for name, op in cfgs:  # time first: nothing profiled yet in this process
        try:
            w1, w2 = replay_us(capture(op, K1)), replay_us(capture(op, K2))
            rows.append({"name": name, "family": "single" if len(name) == 1 else "pattern",
                         "slope_us": round((w2 - w1) / (K2 - K1), 4), "_g": capture(op, 3)})
        except Exception as e:  # noqa: BLE001 - a probe: say it and go on
            rows.append({"name": name, "family": "single" if len(name) == 1 else "pattern", "error": repr(e)[:300]})
        print("timed mix", name, rows[-1].get("slope_us", rows[-1].get("error")), file=sys.stderr, flush=True)
    for (name, op), r in zip(cfgs, rows):
        small = r.pop("_g", None)
        if "error" in r:
            continue
        try:
            ev = gpu_events(op, name_chars=200)  # add_ and mul_ differ only past 60 characters
            r["kinds"] = [e["cat"] for e in ev]
            r["names"] = [e["name"] for e in ev]
            r["eager_us"] = [round(e["dur"], 4) for e in ev]
            g = gpu_events(small.replay, name_chars=200)  # three repetitions replayed: the gaps
            r["graph_gaps_us"] = [round(b["ts"] - a["ts"] - a["dur"], 3) for a, b in zip(g, g[1:])]
        except Exception as e:  # noqa: BLE001
            r["profile_error"] = repr(e)[:300]
    return rows


def derive_mix(rows: list[dict]) -> dict:
    """Per pattern, its excess over its operations' own chains (excess_us); then the median excess
    per memset of each size, per copy, and per kernel switch that a pattern of kernels adds to the
    switches inside its operations' own chains (a GEMM of two kernels switches inside its chain)."""
    ok = {r["name"]: r for r in rows if "slope_us" in r and "kinds" in r}
    single = {n: r for n, r in ok.items() if r.get("family") == "single"}
    memsets, copies, kernels = {}, [], []
    for name, r in ok.items():
        if r.get("family") != "pattern" or any(c not in single for c in name):
            continue
        excess = r["slope_us"] - sum(single[c]["slope_us"] for c in name)
        r["excess_us"] = round(excess, 4)
        sets = [c for c in name if c in MEMSET_BYTES]
        if sets and len(set(sets)) == 1:
            memsets.setdefault(MEMSET_BYTES[sets[0]], []).append(excess / len(sets))
        elif "C" in name and not sets:
            copies.append(excess / name.count("C"))
        elif all(k == "kernel" for k in r["kinds"]):
            own = sum(switches(single[c]["kinds"], single[c]["names"])[1] for c in name)
            added = switches(r["kinds"], r["names"])[1] - own
            if added > 0:
                kernels.append(excess / added)
    if len(memsets) < 2 or len(copies) < 2 or len(kernels) < 3:
        raise ValueError(f"the mix needs memsets of at least 2 sizes, 2 copy patterns and 3 kernel patterns; got "
                         f"{len(memsets)}, {len(copies)} and {len(kernels)}")
    med = lambda xs: round(statistics.median(xs), 4)  # noqa: E731
    return {"patterns": sum(map(len, memsets.values())) + len(copies) + len(kernels),
            "memset_extra_us": [[b, med(xs)] for b, xs in sorted(memsets.items())],
            "copy_extra_us": med(copies), "kernel_switch_us": med(kernels),
            "kernel_switch_range_us": [round(min(kernels), 4), round(max(kernels), 4)]}


def existing_node_costs(out_path: str, flag: str) -> dict:
    """The node_costs recording at `out_path`, made on this GPU, that a `node-costs FLAG` section
    goes into (UsageError, before anything is measured, where it is not one)."""
    from ..errors import UsageError
    from .. import safe_read
    doc = safe_read.read_json(out_path, "node_costs recording")
    device = torch.cuda.get_device_name(0)
    if (doc.get("meta") or {}).get("kind") != "node_costs":
        raise UsageError(f"{out_path} is not a node_costs recording: record it first with node-costs --out "
                         f"(then {flag})")
    if doc["meta"].get("device_name") != device:
        raise UsageError(f"{out_path} was recorded on {doc['meta'].get('device_name')}, this GPU is {device}: "
                         "record its node costs here first (node-costs --out NEW_FILE)")
    return doc


def record_mix(out_path: str) -> dict:
    """Run the mix on this GPU and write it into the node_costs recording at `out_path` (made by
    `node-costs --out`, same device) as its "mix" section, with its own date and torch version.
    Run in a process of its own: a profiled process launches more slowly afterwards."""
    from ..recordings import store
    from ..engine.measure import _torch_version
    from ..errors import UsageError
    doc = existing_node_costs(out_path, "--mix")
    rows = run_mix()
    try:
        derived = derive_mix(rows)
    except ValueError as e:
        import json
        print(json.dumps(rows), file=sys.stderr)  # what was measured, for the record
        raise UsageError(f"node-costs --mix: {e}; nothing written (the rows are on stderr)") from e
    doc["mix"] = {"recorded_at": store.now_utc(),
                  "torch_version": _torch_version(), "k1": K1, "k2": K2, "rows": rows, "derived": derived}
    store.write(out_path, doc, overwrite=True)
    return {"out": str(out_path), **derived}

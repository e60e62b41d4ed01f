"""The trees_lifecycle lab's measurements (runtime_core/labs/trees_lifecycle.py): a cudagraph tree's
life under torch.compile(mode="reduce-overhead"), on a small MLP, in THIS process (the lab runs
points() in a fresh child). See the lab's docstring for the points. On a CPU every line runs
(the tests' smoke run) but Inductor records no CUDA graph, so every count reads 0.
"""
from __future__ import annotations

import contextlib
import time
import traceback

RERECORD_LIMIT = 2
DYNAMIC_SIZES = (2, 3, 4, 5, 6)
MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


@contextlib.contextmanager
def tree_events():
    """Count the tree manager's warm-ups, recordings and replays inside the block (a dict)."""
    from torch._inductor import cudagraph_trees as ct
    manager = ct.CUDAGraphTreeManager
    box = {"warmup": 0, "record": 0, "replay": 0}
    names = {"run_eager": "warmup", "record_function": "record", "execute_node": "replay"}
    original = {n: getattr(manager, n) for n in names}

    def wrapped(n):
        def call(self, *a, **kw):
            box[names[n]] += 1
            return original[n](self, *a, **kw)
        return call
    for n in names:
        setattr(manager, n, wrapped(n))
    try:
        yield box
    finally:
        for n, f in original.items():
            setattr(manager, n, f)


def _skips() -> int:
    from torch._dynamo.utils import counters
    return int(counters["inductor"]["cudagraph_skips"])


def _graphs_compiled() -> int:
    """Dynamo's count of graphs compiled in this process (a recompile bumps it)."""
    from torch._dynamo.utils import counters
    return int(counters["stats"]["unique_graphs"])


def _one_line(e: BaseException, n: int = 400) -> str:
    return f"{type(e).__name__}: {' '.join(str(e).split())[:n]}"


def _call_rows(box, calls) -> list[dict]:
    """Run each (label, fn) in `calls`; per call: what the tree did, torch's new skips, ms."""
    import torch
    rows = []
    for label, fn in calls:
        before, skips, compiled = dict(box), _skips(), _graphs_compiled()
        t = time.perf_counter()
        fn()
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
        rows.append({"call": label, **{k: box[k] - before[k] for k in box}, "skips": _skips() - skips,
                     "compiles": _graphs_compiled() - compiled, "ms": round((time.perf_counter() - t) * 1e3, 3)})
    return rows


def _mlp(device: str):
    import torch
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256)).to(device)


def per_call(device: str) -> dict:
    import torch
    model = _mlp(device).eval()
    compiled = torch.compile(model, mode="reduce-overhead")
    x = torch.randn(8, 256, device=device)
    with tree_events() as box, torch.no_grad():
        rows = _call_rows(box, [(i, lambda: compiled(x)) for i in range(1, 6)])
    return {"rows": rows}


def _read(y, want) -> dict:
    """Read a kept output: raised (torch's error), changed (silently) or kept."""
    try:
        err = float((y - want).abs().max())
    except RuntimeError as e:
        return {"behaviour": "raised", "error": _one_line(e, 600)}
    return {"behaviour": "changed" if err > 1e-4 else "kept", "max_abs_err": err}


def overwritten(device: str) -> dict:
    import torch
    model = _mlp(device).eval()
    compiled = torch.compile(model, mode="reduce-overhead")
    x1, x2 = torch.randn(8, 256, device=device), torch.randn(8, 256, device=device)
    out = {}
    with torch.no_grad():
        want = model(x1)
        for _ in range(3):
            compiled(x1)          # warm-up, record, replay: from here on every call replays
        y1 = compiled(x1)
        compiled(x2)
        out["kept_across_calls"] = _read(y1, want)
        y1 = compiled(x1).clone()
        compiled(x2)
        out["clone"] = _read(y1, want)
        torch.compiler.cudagraph_mark_step_begin()
        y1 = compiled(x1)
        compiled(x2)
        out["mark_once_two_calls"] = _read(y1, want)
        torch.compiler.cudagraph_mark_step_begin()
        y1 = compiled(x1)
        torch.compiler.cudagraph_mark_step_begin()
        compiled(x2)
        out["mark_before_each_call"] = _read(y1, want)
    return out


def rerecord(device: str, limit: int = RERECORD_LIMIT, calls: int = 6) -> dict:
    import torch

    from .reduce_overhead import capture_torch_logs
    torch._dynamo.reset()
    model = _mlp(device).eval()
    out = {"limit": limit, "torch_default_limit": torch._inductor.config.triton.cudagraph_unexpected_rerecord_limit}
    with torch._inductor.config.patch({"triton.cudagraph_unexpected_rerecord_limit": limit}):
        compiled = torch.compile(model, mode="reduce-overhead")
        x = torch.randn(8, 256, device=device)

        def fresh_input():
            compiled(torch.randn(8, 256, device=device))

        def new_parameter():
            model[0].weight = torch.nn.Parameter(model[0].weight.detach().clone())
            y = compiled(x)
            box_err.append(float((y - model(x)).abs().max()))

        def new_static_input():   # an input marked static (never copied in) at a new address
            s = torch.randn(8, 256, device=device)
            torch._dynamo.mark_static_address(s)
            y = compiled(s)
            box_err.append(float((y - model(s)).abs().max()))
        box_err: list[float] = []
        with tree_events() as box, torch.no_grad(), capture_torch_logs() as logs:
            warm = _call_rows(box, [(f"warm {i}", lambda: compiled(x)) for i in (1, 2, 3)])
            fresh = _call_rows(box, [(f"fresh input {i}", fresh_input) for i in (1, 2, 3)])
            moved = _call_rows(box, [(f"new weight {i}", new_parameter) for i in range(1, calls + 1)])
            marked = _call_rows(box, [(f"new static input {i}", new_static_input) for i in range(1, calls + 1)])
    out.update(rows=warm + fresh + moved + marked, max_abs_err=max(box_err, default=None),
               logged=[" ".join(m.split())[:400] for m in logs if "record" in m.lower() or "skip" in m.lower()][:4],
               records_for_new_weights=sum(r["record"] for r in moved),
               graphless_calls_for_new_weights=sum(r["record"] == 0 and r["replay"] == 0 for r in moved),
               records_for_fresh_inputs=sum(r["record"] for r in fresh),
               records_for_static_inputs=sum(r["record"] for r in marked),
               compiles_for_new_weights=sum(r["compiles"] for r in moved))
    return out


def skip_dynamic(device: str) -> dict:
    import torch

    from .reduce_overhead import capture_torch_logs

    def f(x):
        return (x.sin() * 2).cos() + 1
    out = {}
    for flag in (False, True):
        torch._dynamo.reset()
        with torch._inductor.config.patch({"triton.cudagraph_skip_dynamic_graphs": flag}), \
                tree_events() as box, capture_torch_logs() as logs:
            compiled = torch.compile(f, mode="reduce-overhead", dynamic=True)
            calls = [(f"size {n}, call {k}", (lambda n=n: compiled(torch.ones(n, 64, device=device))))
                     for n in DYNAMIC_SIZES for k in (1, 2, 3)]
            rows = _call_rows(box, calls)
        out["skip" if flag else "default"] = {
            "rows": rows, "records": sum(r["record"] for r in rows), "replays": sum(r["replay"] for r in rows),
            "skips": sum(r["skips"] for r in rows),
            "logged": [" ".join(m.split())[:400] for m in logs if "skip" in m.lower()][:2]}
    return out


def max_autotune(device: str) -> dict:
    import torch
    out = {"mode_options": {m: {k: v for k, v in torch._inductor.list_mode_options(m).items()
                                if k in ("triton.cudagraphs", "max_autotune", "coordinate_descent_tuning")}
                            for m in MODES}}
    if not device.startswith("cuda"):
        return out

    def f(x):
        return (x.sin() * 2).cos() + 1
    torch._dynamo.reset()
    compiled = torch.compile(f, mode="max-autotune")
    x = torch.ones(64, 64, device=device)
    with tree_events() as box:
        rows = _call_rows(box, [(i, lambda: compiled(x)) for i in (1, 2, 3, 4)])
    out.update(rows=rows, records=sum(r["record"] for r in rows), replays=sum(r["replay"] for r in rows))
    return out


POINTS = (("per_call", per_call), ("overwritten", overwritten), ("rerecord", rerecord),
          ("skip_dynamic", skip_dynamic), ("max_autotune", max_autotune))


def points(device: str = "cuda", only: list | None = None) -> dict:
    """Every point in THIS process (the child). A point that fails records its error; the rest run."""
    import torch
    out = {"device": device, "torch_version": torch.__version__, "errors": []}
    for name, fn in POINTS:
        if only and name not in only:
            continue
        try:
            out[name] = fn(device)
        except Exception as e:  # one broken point must not hide the others
            out[name] = {"error": _one_line(e), "traceback": traceback.format_exc(limit=5)[-1500:]}
            out["errors"].append(f"{name}: {out[name]['error']}")
    return out

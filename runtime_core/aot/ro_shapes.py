"""reduce-overhead and shapes, measured: one graph per new size, torch's warning, and skipped graphs.

    new_shapes      the decoder step at batch 1, 2, 3, ...: each new size records a graph of its
                    own (batch 1 is compiled static; from the second size on Dynamo recompiles
                    with a dynamic batch, and cudagraph trees record one graph per distinct size
                    of it). Past torch._inductor.config.triton.cudagraph_dynamic_shape_warn_limit
                    sizes torch logs a warning; the lab sets the limit low and catches the text.
    skipped_graphs  regions Inductor may not turn into a graph, each with the reason it logs:
                    an input the region mutates, a registered buffer it mutates, a CPU tensor
                    beside the GPU ones, a branch on data (torch.cond). A skipped region still
                    runs (un-graphed) and counters["inductor"]["cudagraph_skips"] goes up. The lab
                    runs them twice: with this torch's graph partitioning, and with it off.

Both reset Dynamo first (torch._dynamo.reset(): compiled code and cudagraph trees), so their
counts start from zero. Every call marks its own step (torch.compiler.cudagraph_mark_step_begin).
"""
from __future__ import annotations

import contextlib

import torch

from .models import decoder_inputs, make_decoder
from .reduce_overhead import capture_torch_logs, count_recordings

WARN_LIMIT = 2          # distinct sizes of one dynamic graph before torch warns (its default is 8)
CALLS_PER_SIZE = 3      # a new size: warm-up, record, replay


def _step(compiled, *args):
    torch.compiler.cudagraph_mark_step_begin()
    with torch.no_grad():
        return compiled(*args)


def new_shapes(device: str, batches=(1, 2, 3, 4, 5, 6), warn_limit: int = WARN_LIMIT, **model_kw) -> dict:
    """Run the decoder step CALLS_PER_SIZE times at each batch. Returns per_batch
    [{batch, new_recordings, warned}], recordings_total, compiled_graphs (Dynamo's), warn_limit
    (None where this torch has no such setting), warning (torch's text) and warned_at_batch."""
    import torch._inductor.config  # noqa: F401  (the warn limit lives there)
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    model = make_decoder(device, max_batch=max(batches), **model_kw)
    compiled = torch.compile(model, mode="reduce-overhead")
    cfg = torch._inductor.config.triton
    has_limit = hasattr(cfg, "cudagraph_dynamic_shape_warn_limit")
    old = getattr(cfg, "cudagraph_dynamic_shape_warn_limit", None)
    graphs0 = counters["stats"]["unique_graphs"]
    per_batch = []
    with capture_torch_logs() as logs, count_recordings() as rec:
        if has_limit:
            cfg.cudagraph_dynamic_shape_warn_limit = warn_limit
        try:
            for b in batches:
                before, seen = rec["recordings"], len(logs)
                for _ in range(CALLS_PER_SIZE):
                    _step(compiled, *decoder_inputs(device, batch=b))
                per_batch.append({"batch": b, "new_recordings": rec["recordings"] - before,
                                  "warned": any(_is_size_warning(m) for m in logs[seen:])})
        finally:
            if has_limit:
                cfg.cudagraph_dynamic_shape_warn_limit = old
    warnings = [m for m in logs if _is_size_warning(m)]
    return {"batches": list(batches), "per_batch": per_batch, "recordings_total": rec["recordings"],
            "compiled_graphs": counters["stats"]["unique_graphs"] - graphs0,
            "warn_limit": warn_limit if has_limit else None, "torch_default_warn_limit": old,
            "warning": " ".join(warnings[0].split())[:600] if warnings else None,
            "warned_at_batch": next((p["batch"] for p in per_batch if p["warned"]), None)}


def _is_size_warning(message: str) -> bool:
    text = message.lower()
    return "distinct" in text and "size" in text


def _mutates_its_input(x):
    x.add_(1)
    return x * 2


def _reads_a_cpu_tensor(x, y_cpu):
    return x * 2, y_cpu + 1


class _MutatesItsBuffer(torch.nn.Module):
    """A module that updates a registered buffer in place (a running statistic, a KV cache)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(8))

    def forward(self, x):
        self.seen.add_(1)
        return x * 2


def _branches_on_data(x):
    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))


def skipped_graphs(device: str, partition: bool | None = None) -> dict:
    """Compile small regions Inductor may refuse to graph, run each three times. Returns, per
    region ("mutated_input", "mutated_buffer", "cpu_tensor", "data_branch"): skips (counter
    increase), message (the first skip reason torch logged, one line, or None) and
    result_correct; and `graph_partition`, the setting it ran with.

    Args:
        partition: torch._inductor.config.graph_partition for the run (None: this torch's
            default). With partitioning, Inductor splits CPU ops out of the graph and still
            graphs the rest; without it, one CPU tensor keeps the whole region un-graphed."""
    import torch._inductor.config as inductor_config
    setting = getattr(inductor_config, "graph_partition", None)
    if partition is not None and setting is None:
        return {"skipped": "this torch has no torch._inductor.config.graph_partition setting"}
    patch = inductor_config.patch(graph_partition=partition) if partition is not None else contextlib.nullcontext()
    with patch:
        out = _skip_cases(device)
        out["graph_partition"] = getattr(inductor_config, "graph_partition", None)
    return out


def _skip_cases(device: str) -> dict:
    out = {}
    full = lambda value: torch.full((8,), value)  # noqa: E731
    buffered = _MutatesItsBuffer().to(device)
    cases = (("mutated_input", _mutates_its_input, lambda: (torch.ones(8, device=device),),
              lambda r: bool(torch.equal(r.cpu(), full(4.0)))),
             ("mutated_buffer", buffered, lambda: (torch.ones(8, device=device),),
              lambda r: bool(torch.equal(r.cpu(), full(2.0)))),
             ("cpu_tensor", _reads_a_cpu_tensor, lambda: (torch.ones(8, device=device), torch.ones(8)),
              lambda r: bool(torch.equal(r[0].cpu(), full(2.0)) and torch.equal(r[1], full(2.0)))),
             ("data_branch", _branches_on_data, lambda: (torch.ones(8, device=device),),
              lambda r: bool(torch.equal(r.cpu(), full(2.0)))))
    for name, fn, make_args, correct in cases:
        try:
            out[name] = _one_skip(fn, make_args, correct)
        except Exception as e:  # one region this torch cannot compile must not hide the others
            out[name] = {"error": f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"}
    return out


def _one_skip(fn, make_args, correct) -> dict:
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    skips0 = counters["inductor"]["cudagraph_skips"]
    compiled = torch.compile(fn, mode="reduce-overhead")
    with capture_torch_logs() as logs:  # each result checked before the next call: a graphed
        correct_each = [correct(_step(compiled, *make_args())) for _ in range(3)]  # region overwrites it
    reasons = [" ".join(m.split()) for m in logs if "skipping cudagraphs" in m.lower()]
    return {"skips": counters["inductor"]["cudagraph_skips"] - skips0,
            "message": reasons[0].split(". Found from")[0][:300] if reasons else None,
            "result_correct": all(correct_each)}

"""`python -m runtime_core alloc`: the allocator comparison (issue 5), as JSON.

    python -m runtime_core alloc [--size-bytes B] [--backend auto|cuda|sim] [--json] [--record PATH [--force]]

Output keys: backend, device_name, torch_version, recorded_at, size_bytes;
  allocators: plan_arena / caching_pool / torch / raw, each with alloc_free_us (median µs per
      alloc+free pair), driver_mallocs_steady, peak_reserved_bytes, measured_on ("CPU"/"CUDA");
  plan: arena_bytes, sum_bytes, buffers (count), allocations_per_step, torch/caching-pool peaks;
  expandable: {"ours": default vs expandable on our pool; "torch": PyTorch's own, CUDA only};
  hot_path: empty_cache() every step vs a kept cache (summary and samples);
  graph_pool: CUDA only, torch.cuda.graph with a private pool: stable data_ptrs across replays.
--record PATH writes a recording (design.md format): {"meta": {device_name, torch_version,
recorded_at, "kind": "alloc"}, "points": [], "labs": {"alloc": <the JSON above>}}.
PATH is checked before the run (a folder, a missing folder, or an existing file without --force
is a one-line error, exit 2) and written atomically. The page reads lessons/recordings/alloc_*.json.
"""
from __future__ import annotations

import argparse
from datetime import datetime, timezone

from ..cli_args import add_backend_arg, add_json_flag, path
from ..errors import UsageError
from .errors import BadAllocSize
from .sizes import GiB, MiB, check_size

MAX_SIZE_BYTES = 1 * GiB  # a per-buffer benchmark; above this the numbers mean nothing here


def _size_bytes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of bytes, got {text[:40]!r}") from None
    try:
        check_size(value)
    except BadAllocSize as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if value > MAX_SIZE_BYTES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SIZE_BYTES} bytes (1 GiB), got {value}")
    return value


def register(sub) -> None:
    p = sub.add_parser("alloc", help="allocator comparison")
    p.add_argument("--size-bytes", type=_size_bytes, default=1 * MiB,
                   help=f"buffer size for the cost table, bytes (1..{MAX_SIZE_BYTES}; default 1 MiB)")
    add_backend_arg(p)
    add_json_flag(p)
    p.add_argument("--record", type=path, metavar="PATH", help="also write the result as a recording")
    p.add_argument("--force", action="store_true", help="with --record: replace an existing file")
    p.set_defaults(func=_cli)


def run(size_bytes: int, backend: str) -> dict:
    """Every measurement of the allocator lab on the device of `backend` ("sim", "cuda", "auto")."""
    import torch
    from . import compare, hot_path, labs, plan_report
    from .backends import for_device, torch_allocator_checks
    from ..recordings.shipped import get_device
    dev = get_device(backend, **hot_path.SIM_PARAMS)
    out = {"backend": str(dev.backend), "source": dev.source_label, "device_name": dev.name,
           "torch_version": torch.__version__,
           "recorded_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "size_bytes": size_bytes,
           "allocators": compare.measure_allocators(dev, size_bytes),
           "plan": plan_report.plan_report(dev.torch_device, backend=for_device(dev, 1 << 30)),
           "expandable": {"ours": labs.expandable_comparison()},
           "hot_path": {"clock": f"{dev.source_label} host clock",
                        "empty_cache_each_step": hot_path.hot_path(dev, empty_cache_each_step=True),
                        "cache_kept": hot_path.hot_path(dev, empty_cache_each_step=False)}}
    torch_checks = torch_allocator_checks(dev)  # PyTorch's own CUDA allocator: on a GPU only
    if torch_checks:
        out["expandable"]["torch"] = torch_checks["expandable"]
        out["graph_pool"] = torch_checks["graph_pool"]
    return out


def write_recording(result: dict, path: str, force: bool = True) -> None:
    """Write `result` as an alloc recording (atomically; an existing file only with `force`)."""
    from ..recordings import store
    meta = store.new_meta("alloc", result["device_name"], result["torch_version"], result["backend"])
    meta["recorded_at"] = result["recorded_at"]
    store.write(path, {"meta": meta, "points": [], "labs": {"alloc": result}}, overwrite=force)


def _cli(a) -> dict:
    from ..recordings import store
    if a.force and not a.record:
        raise UsageError("--force replaces a recording: it goes with --record PATH")
    if a.record:  # before the run: a bad path must not cost the whole measurement
        store.check_target(a.record, a.force)
    result = run(a.size_bytes, a.backend)
    if a.record:
        write_recording(result, a.record, force=a.force)
    return result

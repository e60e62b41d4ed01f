"""SYNTHETIC results for issue 29's CUDA-only labs: made-up numbers IN THE SHAPE the labs return,
for testing how a result is handled and drawn. Not a measurement: never copy these into
lessons/recordings/ (a test writes them to a temporary folder only, with the device named
SYNTHETIC). The real numbers come from tests/gpu_runs/session12_labs29.sh on an H200."""
from __future__ import annotations

SYNTHETIC_DEVICE = "SYNTHETIC test fixture (not a measurement)"
MiB = 1 << 20


def synthetic_snapshot() -> dict:
    """A torch.cuda.memory._snapshot()-shaped dict: two segments, a short trace."""
    base1, base2 = 0x7F0000000000, 0x7F0040000000
    trace = [{"action": "segment_alloc", "addr": base1, "size": 20 * MiB, "stream": 0, "time_us": 1},
             {"action": "alloc", "addr": base1, "size": 4 * MiB, "stream": 0, "time_us": 2},
             {"action": "alloc", "addr": base1 + 4 * MiB, "size": 8 * MiB, "stream": 0, "time_us": 3},
             {"action": "free_requested", "addr": base1, "size": 4 * MiB, "stream": 0, "time_us": 4},
             {"action": "free_completed", "addr": base1, "size": 4 * MiB, "stream": 0, "time_us": 4},
             {"action": "alloc", "addr": base1, "size": 2 * MiB, "stream": 0, "time_us": 5},
             {"action": "segment_alloc", "addr": base2, "size": 2 * MiB, "stream": 0, "time_us": 6},
             {"action": "alloc", "addr": base2, "size": 512, "stream": 0, "time_us": 7, "frames": [{"name": "x"}]}]
    segments = [{"address": base1, "total_size": 20 * MiB, "allocated_size": 10 * MiB, "stream": 0,
                 "segment_type": "large", "blocks": [
                     {"size": 2 * MiB, "requested_size": 2 * MiB, "state": "active_allocated"},
                     {"size": 2 * MiB, "state": "inactive"},
                     {"size": 8 * MiB, "requested_size": 8 * MiB, "state": "active_allocated"},
                     {"size": 8 * MiB, "state": "inactive"}]},
                {"address": base2, "total_size": 2 * MiB, "allocated_size": 512, "stream": 0, "segment_type": "small",
                 "blocks": [{"size": 512, "state": "active_allocated"}, {"size": 2 * MiB - 512, "state": "inactive"}]}]
    return {"segments": segments, "device_traces": [trace]}


def _calls(labels, kinds):
    return [{"call": c, "warmup": int(k == "w"), "record": int(k == "r"), "replay": int(k == "p"), "skips": 0,
             "ms": 1.0} for c, k in zip(labels, kinds)]


def synthetic_results() -> dict:
    """{lab name: a synthetic result} for the four CUDA-only labs (compile_cache has a real CPU one)."""
    from runtime_core.labs import alloc_conf, alloc_snapshot, malloc_async, trees_lifecycle
    err = "RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run."
    trees = trees_lifecycle.finish({
        "device": "cuda", "torch_version": "synthetic", "errors": [],
        "per_call": {"rows": _calls([1, 2, 3, 4, 5], "wrppp")},
        "overwritten": {"kept_across_calls": {"behaviour": "raised", "error": err},
                        "clone": {"behaviour": "kept", "max_abs_err": 0.0},
                        "mark_once_two_calls": {"behaviour": "kept", "max_abs_err": 0.0},
                        "mark_before_each_call": {"behaviour": "raised", "error": err}},
        "rerecord": {"limit": 2, "torch_default_limit": 128, "max_abs_err": 0.0,
                     "rows": _calls(["warm 1", "warm 2", "warm 3", "new weight 1", "new weight 2", "new weight 3"],
                                    "wrppr-"),
                     "logged": ["skipping cudagraph due to function 0 exceeding max re-recording limit (=2)"],
                     "records_for_new_weights": 2, "graphless_calls_for_new_weights": 1, "records_for_fresh_inputs": 0},
        "skip_dynamic": {"default": {"rows": [], "records": 5, "replays": 10, "skips": 0, "logged": []},
                         "skip": {"rows": [], "records": 0, "replays": 0, "skips": 1,
                                  "logged": ["skipping cudagraphs due to graph with symbolic shapes inputs"]}},
        "max_autotune": {"mode_options": {"reduce-overhead": {"triton.cudagraphs": True},
                                          "max-autotune": {"max_autotune": True, "triton.cudagraphs": True}},
                         "rows": _calls([1, 2, 3, 4], "wrpp"), "records": 1, "replays": 2}})
    snap = alloc_snapshot.finish(dict(alloc_snapshot.reduce_snapshot(synthetic_snapshot()), model="synthetic MLP",
                                      torch_version="synthetic"))
    frag = lambda oom: {"reserved_peak_bytes": 8 << 30, "free_bytes": 2 << 30,  # noqa: E731
                        "largest_free_block_bytes": (512 * MiB) if oom else (2 << 30), "fragmentation": 0.75 if oom else 0.0,
                        "num_driver_mallocs": 4, "mallocs_counted": "per order", "request_oom": oom,
                        "oom_message": "CUDA out of memory. Tried to allocate 1024.00 MiB (synthetic)" if oom else None}
    grow = {"reserved_peak_bytes": 150 * MiB, "free_bytes": 150 * MiB, "largest_free_block_bytes": 26 * MiB,
            "fragmentation": 0.8, "num_driver_mallocs": 8, "mallocs_counted": "per order", "request_oom": False,
            "oom_message": None}
    conf = alloc_conf.finish({"errors": [], "settings": {
        name: {"alloc_conf": value, "fragmenting": frag(name in ("default", "garbage_collection_threshold")),
               "growing": grow} for name, value in alloc_conf.SETTINGS.items()}})
    backend = lambda name, us: {"allocator_backend": name, "alloc_free_us": {"4 KiB": us, "1 MiB": us, "64 MiB": us},  # noqa: E731
                                "memory": {"reserved_bytes": 64 * MiB, "allocated_bytes": 0,
                                           "driver_used_peak_bytes": 300 * MiB, "driver_used_after_bytes": 64 * MiB},
                                "graph": {"captured": True, "matches_eager": True, "replay_us": 20.0, "max_abs_err": 0.0}}
    asy = malloc_async.finish({"errors": [], "backends": {"native": backend("native", 5.0),
                                                          "cudaMallocAsync": backend("cudaMallocAsync", 7.0)}})
    head = lambda name: {"lab": name, "backend": "cuda", "source": "live", "device_name": SYNTHETIC_DEVICE}  # noqa: E731
    return {"trees_lifecycle": {**head("trees_lifecycle"), **trees}, "alloc_snapshot": {**head("alloc_snapshot"), **snap},
            "alloc_conf": {**head("alloc_conf"), **conf}, "malloc_async": {**head("malloc_async"), **asy}}


def write_synthetic_recordings(folder, shipped) -> None:
    """The shipped recordings copied into `folder`, with the synthetic labs added to the labs
    recording under a SYNTHETIC device name (a temporary folder: tests only)."""
    import json
    import shutil
    for path in shipped.glob("*.json"):
        shutil.copy(path, folder / path.name)
    labs = json.loads((folder / "labs_h200.json").read_text())
    labs["meta"]["device_name"] = SYNTHETIC_DEVICE
    labs["labs"].update(synthetic_results())
    (folder / "labs_h200.json").write_text(json.dumps(labs))

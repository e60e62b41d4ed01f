"""One diagnosis: profile, predict, then measure, for one (model, batch, shape, dtype) on a device.

    runner = get_runner("auto")                    # runners/: CudaRunner on a GPU, SimRunner elsewhere
    spec = prepare(runner, Spec("cnn", batch=1))   # checked before any work
    out = diagnose(runner, spec, runner.machine())

The order is the point:
1. Profile one eager step (and one graph replay) in the worker process: K, B, driver calls,
   the kernels' spread, the two-lane timeline.
2. Time the host's dispatch of one unprofiled step: H.
3. Predict the eager and graph step times from K, B, H and the machine's constants alone.
4. Only then measure every variant, interleaved in this process.
The result is one flat dict: a diagnose recording stores it as a point.

The host drifts between a fast and a slow state for seconds at a time, so one H and one timed
eager step can land in different states. A recording therefore measures each point in several
passes, minutes apart (`measure_pass`): each pass times H first and then the steps, so H still
comes before whatever it predicts, and the point keeps the median of its passes (`fold_passes`).
"""
from __future__ import annotations

import statistics

from .measure_variants import measure_variants
from .predict import Machine, StepCounts, predict_step
from .spec import Spec, check
from ..engine.cores import one_core
from .timing import host_dispatch_us
from .verdict import verdict


def prepare(runner, spec: Spec) -> Spec:
    """`spec` checked against its model on this runner (UsageError before any work)."""
    return check(spec, runner.resolve(spec.model))


def counts_of(point: dict) -> StepCounts:
    """The prediction's inputs, as a point (or a diagnosis) stores them."""
    return StepCounts(point["gpu_ops"], point["busy_us"], point["host_dispatch_us"], point["inputs"])


def predicted_fields(point: dict, m: Machine) -> dict:
    """The prediction and verdict of a point from its counts and the constants `m`."""
    k = counts_of(point)
    pred = predict_step(k, m)
    return {"predicted_eager_us": pred["eager_us"], "predicted_graph_us": pred["graph_us"],
            "predicted_graph_speedup": pred["graph_speedup"], "verdict": verdict(k, m, pred["graph_speedup"])}


def diagnose(runner, spec: Spec, machine: Machine, variants=("eager", "our_graph"), profile=None) -> dict:
    """Diagnose `spec` (already prepared) on `runner` with the constants `machine`.

    Args:
        variants: which variants to measure (eager and our_graph always run).
        profile: a result of runner.profile(spec) to reuse (None: profile now).
    Returns the flat point dict: counts, prediction, measurements, verdict, timelines.
    """
    prof = profile or runner.profile(spec)
    eager_prof, graph_prof = prof["eager"], prof["graph"]
    step = runner.build(spec)
    host_us = _host_dispatch_us(runner, step)
    point = {**spec.as_dict(), "backend": runner.backend, "device_name": runner.device_name,
             "kernels": eager_prof.kernels, "gpu_ops": eager_prof.gpu_ops,
             "driver_calls": eager_prof.driver_calls, "copy_calls": eager_prof.copy_calls,
             "busy_us": round(eager_prof.busy_us, 3), "kernel_mean_us": round(eager_prof.kernel_mean_us, 3),
             "kernel_std_us": round(eager_prof.kernel_std_us, 3),
             "kernel_p10_us": round(eager_prof.kernel_p10_us, 3), "kernel_p90_us": round(eager_prof.kernel_p90_us, 3),
             "kernel_max_us": round(eager_prof.kernel_max_us, 3), "top_kernels": eager_prof.top_kernels,
             "host_dispatch_us": round(host_us, 3), "inputs": len(step.inputs),
             "graph_profile": {k: v for k, v in graph_prof.as_dict().items() if k != "top_kernels"}}
    point.update(predicted_fields(point, machine))  # before anything is timed
    measured = measure_variants(runner, step, variants, guess_us=point["predicted_eager_us"])
    point.update(measured_fields(measured))
    point["passes"] = [pass_fields(point)]
    point["gpu_idle_share"] = gpu_idle_share(point)
    point["timelines"] = {"eager": _rows(eager_prof), "our_graph": _rows(graph_prof)}
    step = None  # drop the model before cleanup() empties the allocator's cache
    runner.cleanup()
    return point


PASS_KEYS = ("host_dispatch_us", "eager_us", "graph_us")


def pass_fields(point: dict) -> dict:
    """What one pass measured of a point: H, then the eager and graph step times."""
    return {k: point[k] for k in PASS_KEYS}


def measure_pass(runner, spec: Spec, guess_us: float) -> dict:
    """One more pass over a point (K and B are the first pass's profile): H first, before
    anything is timed, then eager and our graph timed, interleaved. Returns pass_fields."""
    step = runner.build(spec)
    host_us = _host_dispatch_us(runner, step)
    measured = measure_variants(runner, step, ("eager", "our_graph"), guess_us=guess_us)
    step = None  # drop the model before cleanup() empties the allocator's cache
    runner.cleanup()
    return {"host_dispatch_us": round(host_us, 3), "eager_us": measured["eager"]["us"],
            "graph_us": measured["our_graph"]["us"]}


def fold_passes(point: dict) -> dict:
    """The point's H and step times set to the median of its passes (a point recorded before
    passes existed counts as one pass); the measured speedup is their ratio. Returns the point."""
    passes = point.setdefault("passes", [pass_fields(point)])
    for k in PASS_KEYS:
        point[k] = round(statistics.median(p[k] for p in passes), 3)
    point["measured_graph_speedup"] = round(point["eager_us"] / point["graph_us"], 4)
    return point


def _host_dispatch_us(runner, step) -> float:
    """H: the host's time to enqueue one step of a fresh request, pinned to one core."""
    request = step.clone_inputs()
    with one_core():
        return host_dispatch_us(runner.dev, lambda: step(*request))


def measured_fields(measured: dict) -> dict:
    """The flat measured keys of a point, from measure_variants' result."""
    eager, graph = measured["eager"], measured["our_graph"]
    return {"eager_us": eager["us"], "graph_us": graph["us"], "measured_graph_speedup": graph["speedup"],
            "graph_capture_s": graph["setup_s"], "graph_pool_bytes": graph["pool_bytes"],
            "variants": measured}


def gpu_idle_share(point: dict) -> float:
    """The share of the measured eager step in which the GPU ran nothing: 1 − B / eager."""
    return round(max(0.0, 1.0 - point["busy_us"] / point["eager_us"]), 4)


def _rows(prof) -> list[dict]:
    from .profile_step import span_rows
    return span_rows(prof.spans)

"""One diagnosis: profile, predict, then measure, for one (model, batch, shape, dtype) on a device.

    runner = get_runner("auto")                    # runners/: CudaRunner on a GPU, SimRunner elsewhere
    spec = prepare(runner, Spec("cnn", batch=1))   # checked before any work
    out = diagnose(runner, spec, runner.machine())

The order is the point:
1. Profile one eager step (and one graph replay) in the worker process: K, B, driver calls,
   the kernels' spread, the two-lane timeline.
2. Time the host's dispatch of one unprofiled step, in 60 rounds spread over 15 seconds: H is
   the host's floor, the lowest round (host_floor.py); the band lets that floor move as far as
   it moved between the two halves of the rounds (host_rounds, point_h, h_interval).
3. Predict the eager and graph step times from K, B, H and the machine's constants alone.
4. Only then measure every variant, interleaved in rounds spread over the next 15 seconds, each
   read as its floor too (measure_variants, timing.step_times_us).
The result is one flat dict: a diagnose recording stores it as a point, with `timing` saying how
it was timed. A point recorded before the floor (no `timing`) keeps its own rule when predicted
again: H the median of its last five rounds, the band from its lowest and highest rounds.

The host drifts between a fast and a slow state for seconds at a time, so one H and one timed
eager step can land in different states: the floor is what repeats (host_floor.py). The zoo's
recording also measures each point in several passes, minutes apart (`measure_pass`): each pass
times H first and then the steps, and the point keeps the median of its passes (`fold_passes`).
"""
from __future__ import annotations

import statistics

from . import host_floor
from .measure_variants import measure_variants
from .predict import Machine, StepCounts, memsets_us, predict_band, predict_step, saving_split
from .spec import Spec, check
from ..engine.cores import one_core, pin_mode
from .timing import host_dispatch_us
from .verdict import verdict


def prepare(runner, spec: Spec) -> Spec:
    """`spec` checked against its model on this runner (UsageError before any work)."""
    return check(spec, runner.resolve(spec.model))


def counts_of(point: dict) -> StepCounts:
    """The prediction's inputs, as a point (or a diagnosis) stores them."""
    return StepCounts(point["gpu_ops"], point["busy_us"], point["host_dispatch_us"], point["inputs"],
                      point.get("captured_gpu_ops"), point.get("captured_busy_us"), memset_bytes(point),
                      op_durations(point), op_ready(point), op_durations(point, captured=True))


def op_durations(point: dict, captured: bool = False) -> tuple:
    """Each operation's duration (µs) of the profiled eager step, in order, where the profile
    lists all K of them with sane numbers (else empty: the prediction uses the closed form);
    `captured`: of the step profiled as it would be captured (all Kc of them; the band's nodes)."""
    prof = point.get("profile") or {}
    rows = (prof.get("captured_ops") if captured else prof.get("eager_ops")) or []
    count = (point.get("captured_gpu_ops") or point["gpu_ops"]) if captured else point["gpu_ops"]
    us = tuple(r[1] for r in rows if r and len(r) > 1)
    ok = len(us) == count and all(isinstance(x, (int, float)) and x >= 0 for x in us)
    return tuple(float(x) for x in us) if ok else ()


def op_ready(point: dict) -> tuple:
    """Each operation's share of the host's dispatch after which the profiled eager step had
    queued it (its launch call's return over the dispatch's span), in order, where the profile
    timed all K calls inside a positive span (else empty: even shares)."""
    prof = point.get("profile") or {}
    at, span = prof.get("eager_launch_us") or [], prof.get("eager_span_us")
    ok = (len(at) == point["gpu_ops"] and isinstance(span, (int, float)) and span > 0
          and all(isinstance(x, (int, float)) and 0 <= x <= span for x in at))
    return tuple(float(x) / span for x in at) if ok else ()


def memset_bytes(point: dict) -> tuple:
    """The size of each memset node of the step as it would be captured, from the profile's op
    rows ([kind, µs, blocks, shared memory, name, bytes]; None where a row has no size)."""
    prof = point.get("profile") or {}
    rows = prof.get("captured_ops") or prof.get("eager_ops") or []
    return tuple((r[5] if len(r) > 5 else None) for r in rows if r and r[0] == "memset")


def predicted_fields(point: dict, m: Machine) -> dict:
    """The prediction and verdict of a point from its counts and the constants `m`, the band
    (from its H rounds where it has them) and the explanation: the per-node graph cost used, the
    three biggest host-time consumers, and the split of the saving. A point whose capture failed
    gets the capture verdict and no graph prediction."""
    k = counts_of(point)
    pred = predict_step(k, m)
    if point.get("capturable") is False:
        return {"predicted_eager_us": pred["eager_us"], "predicted_graph_us": None, "predicted_graph_speedup": None,
                "predicted_speedup_band": None,
                "verdict": capture_verdict(k, m, point["capture_failure"])}
    h_lo, h_hi = h_interval(point)
    band = predict_band(k, m, h_lo, h_hi, m.node_spread_us)
    return {"predicted_eager_us": pred["eager_us"], "predicted_graph_us": pred["graph_us"],
            "predicted_graph_speedup": pred["graph_speedup"], "predicted_speedup_band": band,
            "explanation": {"node_cost_us": round(m.node_cost_us, 4),
                            "node_cost_source": "chain" if m.node_extra_us is None else "node_costs",
                            "node_cost_spread_us": round(m.node_spread_us, 4),
                            "stream_gap_us": round(m.eager_gap_us, 4),
                            "stream_gap_source": "chain" if m.stream_gap_extra_us is None else "node_costs",
                            "stream_gap_spread_us": round(m.stream_spread_us, 4),
                            "node_cost_rel_spread": round(m.node_rel_spread, 4),
                            "stream_gap_rel_spread": round(m.stream_rel_spread, 4),
                            "eager_op_by_op": k.op_by_op, "eager_ready_profiled": k.ready_profiled,
                            "memset_nodes": len(k.graph_memsets), "memsets_us": round(memsets_us(k, m), 3),
                            "graph_nodes": k.graph_ops, "graph_busy_us": round(k.graph_busy_us, 3),
                            "top_host": point.get("top_host", []), "saving": saving_split(k, m)},
            "verdict": verdict(k, m, pred["graph_speedup"])}


def with_band(point: dict, m: Machine) -> dict:
    """`point` with a predicted_speedup_band where a recording made before bands lacks one: its H
    spread is that of its passes (each pass timed H before its steps), its node spread `m`'s."""
    if point.get("predicted_speedup_band") or point.get("capturable") is False:
        return point
    hs = pass_hs(point)
    return dict(point, predicted_speedup_band=predict_band(counts_of(point), m, min(hs), max(hs), m.node_spread_us))


def with_explanation(point: dict, m: Machine) -> dict:
    """`point` with the explanation a recording made without one lacks (the simulated demo's),
    computed from its counts and `m`, where `m` gives the speedup it stores (within 0.5%): an
    explanation that did not add up to the number shown would explain another prediction."""
    if point.get("explanation") or point.get("capturable") is False or not point.get("predicted_graph_speedup"):
        return point
    fields = predicted_fields(point, m)
    if abs(fields["predicted_graph_speedup"] / point["predicted_graph_speedup"] - 1) > 0.005:
        return point
    return dict(point, explanation=fields["explanation"])


def pass_hs(point: dict) -> list[float]:
    """The H of each pass of a point recorded before rounds (each pass timed H before its steps)."""
    return [q["host_dispatch_us"] for q in point.get("passes") or []] or [point["host_dispatch_us"]]


def capture_verdict(k: StepCounts, m: Machine, failure: dict) -> dict:
    """The verdict of a step that cannot be captured: graphs won't help as is; why, and what to try."""
    from .capture_failure import headline
    v = verdict(k, m, 1.0)
    v.update(graphs_help=False, capturable=False, headline=headline(failure), reason=failure["reason"],
             culprit=failure.get("culprit"), evidence=failure.get("evidence"), what_to_try=failure.get("try", []))
    return v


HOST_ROUNDS = host_floor.HOST_ROUNDS      # H is timed in this many rounds before anything is predicted ...
HOST_SPREAD_S = host_floor.HOST_WINDOW_S  # ... spread evenly over at least this many seconds (a real clock)
VIRTUAL_ROUNDS = host_floor.VIRTUAL_HOST_ROUNDS  # the simulator's virtual clock: a few rounds, all alike
HOST_RECENT = 5       # a point recorded before the floor: its H was the median of its last five rounds
BAND_COVERAGE = 0.90  # ... and its band's H interval held a new round with at least this probability


def point_h(point: dict) -> float:
    """The H a point is predicted from, by the rule it was timed with: the floor of its rounds
    (host_floor.FLOOR), or, recorded before the floor, the median of its last rounds (recent_h)."""
    rounds = point.get("host_rounds_us")
    if not rounds:
        return point["host_dispatch_us"]
    return host_floor.floor_us(rounds) if host_floor.statistic(point) == host_floor.FLOOR else recent_h(rounds)


def h_interval(point: dict) -> tuple[float, float]:
    """The band's H interval, by the rule the point was timed with: the floor moved as far as it
    moved over its rounds (host_floor.floor_interval), or, recorded before the floor, the j-th
    lowest and highest of its rounds (band_rounds)."""
    rounds = point.get("host_rounds_us") or [point["host_dispatch_us"]]
    if host_floor.statistic(point) == host_floor.FLOOR:
        return host_floor.floor_interval(rounds)
    return band_rounds(rounds)


def band_rounds(rounds: list[float], coverage: float = BAND_COVERAGE) -> tuple[float, float]:
    """The H interval of the band: the j-th lowest and j-th highest of the n rounds, with the
    largest j whose interval holds a new round from the same host with probability
    (n + 1 − 2j) / (n + 1) ≥ `coverage` (exchangeable draws). Fewer than 19 rounds give the
    lowest and highest, which holds less: 5 rounds, 4/6."""
    xs = sorted(rounds)
    j = _band_rank(len(xs), coverage)
    return xs[j - 1], xs[-j]


def recent_h(rounds: list[float], recent: int = HOST_RECENT) -> float:
    """The H a point is predicted from: the median of the last `recent` rounds, the ones timed just
    before the steps it predicts. The host holds a state for a fraction of a second to seconds
    (tests/gpu_runs/host_states_probe.py: over 30 blocks in one process H ranged 2x, while the
    eager step stayed within 0.91-1.20 of the H round timed just before it), so the latest rounds
    say most about the next second; all the rounds make the band (band_rounds)."""
    return round(statistics.median(rounds[-recent:]), 3)


def band_holds(n: int, coverage: float = BAND_COVERAGE) -> float:
    """The probability that a new round falls inside band_rounds' interval of `n` rounds."""
    return (n + 1 - 2 * _band_rank(n, coverage)) / (n + 1) if n > 1 else 0.0


def _band_rank(n: int, coverage: float) -> int:
    return max(1, int(round((1 - coverage) / 2 * (n + 1), 9)))


def diagnose(runner, spec: Spec, machine: Machine, variants=("eager", "our_graph"), profile=None) -> dict:
    """Diagnose `spec` (already prepared) on `runner` with the constants `machine`.

    Args:
        variants: which variants to measure (eager and our_graph always run; only eager when
            the capture failed).
        profile: a result of runner.profile(spec) to reuse (None: profile now).
    Returns the flat point dict: counts, prediction, measurements, verdict, timelines, and the
    profile it was predicted from (so a prediction can be recomputed offline).
    """
    prof = profile or runner.profile(spec)
    eager_prof, graph_prof = prof["eager"], prof.get("graph")
    captured = prof.get("captured") or eager_prof
    failure = prof.get("capture_error")
    step = runner.build(spec)
    rounds = host_rounds(runner, step)
    point = {**spec.as_dict(), "backend": runner.backend, "device_name": runner.device_name,
             "kernels": eager_prof.kernels, "gpu_ops": eager_prof.gpu_ops,
             "driver_calls": eager_prof.driver_calls, "copy_calls": eager_prof.copy_calls,
             "busy_us": round(eager_prof.busy_us, 3), "kernel_mean_us": round(eager_prof.kernel_mean_us, 3),
             "kernel_std_us": round(eager_prof.kernel_std_us, 3),
             "kernel_p10_us": round(eager_prof.kernel_p10_us, 3), "kernel_p90_us": round(eager_prof.kernel_p90_us, 3),
             "kernel_max_us": round(eager_prof.kernel_max_us, 3), "top_kernels": eager_prof.top_kernels,
             "top_host": eager_prof.top_host,
             "captured_gpu_ops": captured.gpu_ops, "captured_busy_us": round(captured.busy_us, 3),
             "captured_profiled": prof.get("captured") is not None,
             "host_rounds_us": rounds, "host_dispatch_us": host_floor.floor_us(rounds), "timing_core": pin_mode(),
             "timing": host_floor.timing_fields(_virtual(runner), HOST_SPREAD_S),
             "inputs": len(step.inputs), "capturable": failure is None,
             "profile": {"eager_ops": eager_prof.ops, "captured_ops": captured.ops,
                         "eager_launch_us": eager_prof.launch_us, "eager_span_us": eager_prof.span_us}}
    if graph_prof is not None:
        point["graph_profile"] = {k: v for k, v in graph_prof.as_dict().items()
                                  if k not in ("top_kernels", "ops", "top_host", "launch_us", "span_us")}
    if failure is not None:
        point["capture_failure"] = failure
    point.update(predicted_fields(point, machine))  # before anything is timed
    if failure is None:
        measured = measure_variants(runner, step, variants, guess_us=point["predicted_eager_us"])
        point.update(measured_fields(measured))
        point["passes"] = [pass_fields(point)]
    else:
        measured = measure_variants(runner, step, ("eager",), guess_us=point["predicted_eager_us"])
        point.update(eager_us=measured["eager"]["us"], graph_us=None, measured_graph_speedup=None,
                     graph_capture_s=None, graph_pool_bytes=None, variants=measured)
    point["gpu_idle_share"] = gpu_idle_share(point)
    point["timelines"] = {"eager": _rows(eager_prof)}
    if graph_prof is not None:
        point["timelines"]["our_graph"] = _rows(graph_prof)
    step = None  # drop the model before cleanup() empties the allocator's cache
    runner.cleanup()
    return point


def host_rounds(runner, step, rounds: int | None = None, spread_s: float | None = None) -> list[float]:
    """H timed in `rounds` rounds, each its own median (timing.host_dispatch_us), spread evenly
    over `spread_s` seconds: the host switches between a fast and a slow state for a fraction of
    a second to tens of seconds at a time, so rounds back to back see one state, and rounds spread
    over seconds reach its fast one (host_floor.py). On a virtual clock: VIRTUAL_ROUNDS, back to back."""
    virtual = _virtual(runner)
    rounds = rounds or (VIRTUAL_ROUNDS if virtual else HOST_ROUNDS)
    spread_s = (0.0 if virtual else HOST_SPREAD_S) if spread_s is None else spread_s
    return [round(_host_dispatch_us(runner, step, reps=9, warmups=2), 3) for _ in host_floor.spread(rounds, spread_s)]


def _virtual(runner) -> bool:
    """Whether the runner's device keeps a virtual clock (every round the same; nothing to spread)."""
    return bool(getattr(runner.dev, "deterministic", False))


PASS_KEYS = ("host_dispatch_us", "eager_us", "graph_us")


def pass_fields(point: dict) -> dict:
    """What one pass measured of a point: H, then the eager and graph step times."""
    return {k: point[k] for k in PASS_KEYS}


def measure_pass(runner, spec: Spec, guess_us: float) -> dict:
    """One more pass over a point (K and B are the first pass's profile): H first, before
    anything is timed, then eager and our graph timed, interleaved. Returns pass_fields."""
    step = runner.build(spec)
    host_us = host_floor.floor_us(host_rounds(runner, step))
    measured = measure_variants(runner, step, ("eager", "our_graph"), guess_us=guess_us)
    step = None  # drop the model before cleanup() empties the allocator's cache
    runner.cleanup()
    return {"host_dispatch_us": round(host_us, 3), "eager_us": measured["eager"]["us"],
            "graph_us": measured["our_graph"]["us"]}


def fold_passes(point: dict) -> dict:
    """The point's H and step times set to the median of its passes (a point recorded before
    passes existed counts as one pass); the measured speedup is their ratio. Returns the point."""
    passes = point.setdefault("passes", [pass_fields(point)])
    for k in PASS_KEYS:  # to the nanosecond, but a positive time never rounds to 0 (a ratio divides by it)
        median = statistics.median(p[k] for p in passes)
        point[k] = round(median, 3) or median
    point["measured_graph_speedup"] = round(point["eager_us"] / point["graph_us"], 4)
    return point


def _host_dispatch_us(runner, step, **reps) -> float:
    """H: the host's time to enqueue one step of a fresh request, pinned to one core."""
    request = step.clone_inputs()
    with one_core():
        return host_dispatch_us(runner.dev, lambda: step(*request), **reps)


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
